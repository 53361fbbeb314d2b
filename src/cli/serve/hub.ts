/**
 * One shared follower per live run (docs/reference/http_api.md §5): each envelope is read, parsed and framed once,
 * and every client that is in step sends the same bytes. The hub keeps the last frames in a bounded ring (flat
 * memory); a client that starts earlier, or falls behind the ring, reads with a follower of its own until it reaches
 * what the ring holds, then hands over. Either way a client gets every seq once, in order.
 */
import { type Cursor, type RunRef, type StreamItem, subscribe } from "../../control/mod.ts";
import { frameBytes, type SseFrame } from "./sse.ts";

/** How many frames, and bytes, a hub keeps. */
const RING_FRAMES = 4096;
const RING_BYTES = 8 * 1024 * 1024;

interface Entry {
  seq: number | null;
  bytes: Uint8Array;
  item: StreamItem;
}

/** The shared follower of one run. */
export class EventHub {
  private ring: Entry[] = [];
  private bytes = 0;
  /** Absolute index of ring[0]. */
  private first = 0;
  private waiters: (() => void)[] = [];
  private readonly ac = new AbortController();
  /** Clients attached. */
  clients = 0;
  /** Whether the hub's follower has ended (the run finished, or it failed). */
  done = false;

  /** Start following `ref` from its current end, keeping at most `limits` of the newest frames. */
  constructor(readonly ref: RunRef, private readonly limits = { frames: RING_FRAMES, bytes: RING_BYTES }) {
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      for await (const item of subscribe(this.ref, { from: "current", signal: this.ac.signal, pollMs: 500 })) {
        this.push(item);
      }
    } catch {
      /* clients fall back to followers of their own */
    } finally {
      this.done = true;
      this.wake();
    }
  }

  private push(item: StreamItem): void {
    const seq = typeof item.seq === "number" ? item.seq : null;
    const bytes = frameBytes(seq === null ? { data: item } : { id: String(seq), data: item });
    this.ring.push({ seq, bytes, item });
    this.bytes += bytes.length;
    while (this.ring.length > this.limits.frames || (this.bytes > this.limits.bytes && this.ring.length > 1)) {
      this.bytes -= this.ring.shift()!.bytes.length;
      this.first += 1;
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** The absolute index just past the newest frame. */
  edge(): number {
    return this.first + this.ring.length;
  }

  /** The index of the frame holding `seq`, or of the edge when `seq` is the next one due; else null. */
  indexFor(seq: number): number | null {
    const last = this.lastSeq;
    if (last === null) return null;
    if (last === seq - 1) return this.edge();
    if (seq > last || this.firstSeq === null || seq < this.firstSeq) return null;
    // Seqs are ascending (with rare items without one in between): start at the offset, step back if needed.
    let i = Math.min(this.ring.length - 1, seq - this.firstSeq);
    for (; i >= 0; i--) {
      const s = this.ring[i]!.seq;
      if (s === seq) return this.first + i;
      if (s !== null && s < seq) return null;
    }
    return null;
  }

  private get lastSeq(): number | null {
    for (let i = this.ring.length - 1; i >= 0; i--) if (this.ring[i]!.seq !== null) return this.ring[i]!.seq;
    return null;
  }

  private get firstSeq(): number | null {
    for (const e of this.ring) if (e.seq !== null) return e.seq;
    return null;
  }

  /** The frame at `idx`: an entry, `behind` (dropped from the ring) or `pending` (not there yet). */
  at(idx: number): Entry | "behind" | "pending" {
    if (idx < this.first) return "behind";
    return this.ring[idx - this.first] ?? "pending";
  }

  /** Resolves when a frame arrives, the hub ends, or `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    if (this.done || signal.aborted) return Promise.resolve();
    return new Promise((r) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        r();
      };
      this.waiters.push(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Stop following. */
  close(): void {
    this.ac.abort();
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

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
 * next. Ends with the `end` frame after `run_finished`; `fallbackEnd` gives it when the stream ends without one.
 */
export async function* hubFrames(
  hub: EventHub,
  from: Cursor,
  signal: AbortSignal,
  fallbackEnd: () => Promise<SseFrame>,
): AsyncGenerator<SseFrame | Uint8Array> {
  const runId = hub.ref.runId;
  let next: number | null = typeof from === "number" ? from : from === "start" ? 1 : null;
  let idx: number | null = from === "current" ? hub.edge() : null;
  while (!signal.aborted) {
    if (idx === null && next !== null) idx = hub.indexFor(next);
    if (idx !== null) {
      const e = hub.at(idx);
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
            yield* own(next);
            return;
          }
          break;
        }
        await hub.changed(signal);
        continue;
      }
      // Every frame already there goes out in one write (up to 64 KiB): one chunk, not one per event.
      const batch: Uint8Array[] = [];
      let size = 0;
      let finished: StreamItem | null = null;
      for (let cur: Entry | "behind" | "pending" = e; typeof cur !== "string"; cur = hub.at(idx)) {
        batch.push(cur.bytes);
        size += cur.bytes.length;
        idx += 1;
        if (cur.seq !== null) next = cur.seq + 1;
        if (cur.item.type === "run_finished") {
          finished = cur.item;
          break;
        }
        if (size >= 65536) break;
      }
      yield batch.length === 1 ? batch[0]! : concat(batch, size);
      if (finished !== null) {
        yield endOf(finished, runId);
        return;
      }
      continue;
    }
    // Not in the hub's ring: follow privately until the hub holds the next seq.
    let ended = false;
    for await (const item of subscribe(hub.ref, { from: next ?? "start", signal, pollMs: 500 })) {
      const seq = typeof item.seq === "number" ? item.seq : null;
      yield seq === null ? { data: item } : { id: String(seq), data: item };
      if (seq !== null) next = seq + 1;
      if (item.type === "run_finished") {
        yield endOf(item, runId);
        return;
      }
      if (next !== null && !hub.done && hub.indexFor(next) !== null) break;
    }
    ended = next === null || hub.done || hub.indexFor(next) === null;
    if (ended) break;
  }
  if (!signal.aborted) yield await fallbackEnd();

  async function* own(start: number): AsyncGenerator<SseFrame> {
    for await (const item of subscribe(hub.ref, { from: start, signal, pollMs: 500 })) {
      const seq = typeof item.seq === "number" ? item.seq : null;
      yield seq === null ? { data: item } : { id: String(seq), data: item };
      if (item.type === "run_finished") {
        yield endOf(item, runId);
        return;
      }
    }
    if (!signal.aborted) yield await fallbackEnd();
  }
}
