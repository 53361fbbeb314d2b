/**
 * A client of a live run's shared follower (hub.ts; docs/reference/http_api.md §5): it sends the hub's frames while the
 * hub holds what comes next; a client that starts earlier, or falls behind the ring, reads with a follower of its own
 * until it reaches what the ring holds, then hands over. Either way it gets every seq once, in order.
 */
import { type Cursor, type StreamItem, subscribe } from "../../control/mod.ts";
import type { SseFrame } from "./sse.ts";
import { FrameBuilder } from "./frames.ts";
import { BATCH_BYTES, type EventHub } from "./hub.ts";

function endOf(item: StreamItem, runId: string): SseFrame {
  const d = (item.data ?? {}) as { status?: unknown; reason?: unknown };
  return {
    event: "end",
    data: {
      run_id: runId,
      status: typeof d.status === "string" ? d.status : "unknown",
      reason: typeof d.reason === "string" ? d.reason : null,
    },
  };
}

/**
 * A client's frames through `hub`: from `from`, with a follower of its own while the hub does not hold what comes
 * next. That follower has no watcher of its own: it waits for the hub's reads (one watcher per run, however many
 * clients catch up), and sends what it has read in batches. Ends with the `end` frame after `run_finished`;
 * `fallbackEnd` gives it when the stream ends without one.
 */
export async function* hubFrames(
  hub: EventHub,
  from: Cursor,
  signal: AbortSignal,
  fallbackEnd: () => Promise<SseFrame>,
): AsyncGenerator<SseFrame | Uint8Array> {
  const runId = hub.ref.runId;
  let next: number | null = typeof from === "number" ? from : from === "start" ? 1 : null;
  let idx: number | null = null;
  if (from === "current") {
    // What is new from now on: past what the hub holds once it has read the stream as it was when it opened.
    while (!hub.caughtUp && !hub.done && !signal.aborted) await hub.changed(signal);
    idx = hub.edge();
  }
  while (!signal.aborted) {
    if (idx === null && next !== null) {
      idx = hub.indexFor(next);
      if (idx === null && hub.ahead(next)) {
        // A client that caught up past the hub (it reads at most once per few ms) waits for it: one follower, not one
        // per client.
        await hub.changed(signal);
        continue;
      }
    }
    if (idx !== null) {
      const e = hub.batch(idx);
      if (e === "behind") {
        idx = null;
        continue;
      }
      if (e === "pending") {
        if (hub.done) {
          idx = null;
          if (next === null) break;
          if (hub.indexFor(next) === null) {
            // The hub ended without the rest: read it with a follower of our own.
            yield* own(next, false);
            return;
          }
          break;
        }
        await hub.changed(signal);
        continue;
      }
      // Every frame already there goes out in one write (up to 64 KiB), the same bytes for every client in step.
      idx = e.end;
      if (e.next !== null) next = e.next;
      yield e.bytes;
      if (e.finished !== null) {
        yield endOf(e.finished, runId);
        return;
      }
      continue;
    }
    // Not in the hub's ring: follow privately until the hub holds the next seq.
    if (yield* own(next ?? "start", true)) return;
  }
  if (!signal.aborted) yield await fallbackEnd();

  /**
   * Follow from `start` with a follower of this client's own, in batches (what one read delivered, up to 64 KiB).
   * `handover`: it waits for the hub's reads and returns false as soon as the hub holds the next seq (decided where
   * the hub was read: by the time the follower has closed the hub may have moved on, which the caller's next turn
   * handles). True when the stream ended here (the `end` frame sent, or the fallback's).
   */
  async function* own(start: Cursor, handover: boolean): AsyncGenerator<SseFrame | Uint8Array, boolean> {
    let flush: (() => void) | null = null;
    const opts = {
      from: start,
      signal,
      pollMs: 500,
      rawLines: true,
      onIdle: () => flush?.(),
      ...(handover ? { wait: (s?: AbortSignal) => hub.next(s ?? signal) } : {}),
    };
    const it = subscribe(hub.ref, opts)[Symbol.asyncIterator]();
    const frames = new FrameBuilder();
    const take = (): Uint8Array => frames.take().bytes;
    try {
      for (;;) {
        const pending = it.next();
        let r: IteratorResult<StreamItem>;
        if (frames.count === 0) r = await pending;
        else {
          // Frames are waiting: send them when the follower has drained what is there (about to wait), not later.
          const idle = new Promise<null>((resolve) => flush = () => resolve(null));
          const first = await Promise.race([pending, idle]);
          flush = null;
          if (first === null) yield take();
          r = first ?? await pending;
        }
        if (r.done) break;
        const item = r.value;
        frames.add(item);
        if (typeof item.seq === "number") next = item.seq + 1;
        if (item.type === "run_finished") {
          yield take();
          yield endOf(item, runId);
          return true;
        }
        if (handover && next !== null && !hub.done && (hub.indexFor(next) !== null || hub.ahead(next))) {
          yield take();
          return false;
        }
        if (frames.size >= BATCH_BYTES) yield take();
      }
      if (frames.count > 0) yield take();
    } finally {
      await it.return?.();
    }
    if (!signal.aborted) yield await fallbackEnd();
    return true;
  }
}
