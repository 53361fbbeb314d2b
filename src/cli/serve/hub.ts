/**
 * One shared follower per live run (docs/reference/http_api.md §5): each envelope is read, parsed and framed once,
 * and every client that is in step sends the same bytes. The hub keeps the last frames in a bounded ring (flat
 * memory); a client that starts earlier, or falls behind the ring, reads with a follower of its own until it reaches
 * what the ring holds, then hands over. Either way a client gets every seq once, in order.
 */
import { type Cursor, rawLineOf, type RunRef, type StreamItem, subscribe } from "../../control/mod.ts";
import type { SseFrame } from "./sse.ts";

/** How many frames, and bytes, a hub keeps. */
const RING_FRAMES = 4096;
const RING_BYTES = 8 * 1024 * 1024;
/** At most one read of the run's stream per this many ms while it streams (wakes in between are coalesced). */
const COALESCE_MS = 5;
/** The most bytes of frames sent to a client in one write. */
const BATCH_BYTES = 65536;

const encoder = new TextEncoder();

/**
 * The SSE frame of one envelope: its line exactly as written as the `data:` (no parse and re-serialise), its seq as
 * the `id:`. Items without a line (synthetic ones) are serialised.
 */
export function itemFrame(item: StreamItem): Uint8Array {
  const raw = rawLineOf(item);
  const text = raw !== undefined && !raw.includes("\r") ? raw : JSON.stringify(item);
  return encoder.encode(typeof item.seq === "number" ? `id: ${item.seq}\ndata: ${text}\n\n` : `data: ${text}\n\n`);
}

/** Frames from `start` (absolute index) up to `end`, as one byte array shared by every client asking for them. */
export interface Batch {
  start: number;
  end: number;
  bytes: Uint8Array;
  /** The seq after the last one in the batch (null: none had one). */
  next: number | null;
  /** The run's `run_finished` when the batch ends with it. */
  finished: StreamItem | null;
  /** No more frames will join it (size cap or `run_finished`). */
  sealed: boolean;
}

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
  private unwoken = 0;
  private memo: Batch | null = null;
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
      const opts = {
        from: "current" as const,
        signal: this.ac.signal,
        pollMs: 500,
        rawLines: true,
        coalesceMs: COALESCE_MS,
        // Clients wake once per read (the follower has drained what is there), not once per event.
        onIdle: () => this.wake(),
      };
      for await (const item of subscribe(this.ref, opts)) this.push(item);
    } catch {
      /* clients fall back to followers of their own */
    } finally {
      this.done = true;
      this.wake();
    }
  }

  private push(item: StreamItem): void {
    const seq = typeof item.seq === "number" ? item.seq : null;
    const bytes = itemFrame(item);
    this.ring.push({ seq, bytes, item });
    this.bytes += bytes.length;
    while (this.ring.length > this.limits.frames || (this.bytes > this.limits.bytes && this.ring.length > 1)) {
      this.bytes -= this.ring.shift()!.bytes.length;
      this.first += 1;
    }
    // A long read wakes its clients every batch's worth, and at its end (onIdle); run_finished at once.
    this.unwoken += bytes.length;
    if (this.unwoken >= BATCH_BYTES || item.type === "run_finished") this.wake();
  }

  private wake(): void {
    this.unwoken = 0;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Clients waiting for frames (an aborted client waits no more); for tests. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * The frames from `idx` on, up to {@link BATCH_BYTES} or `run_finished`, as one byte array: built once and shared by
   * every client asking for the same range (one frame is its own bytes, never copied).
   */
  batch(idx: number): Batch | "behind" | "pending" {
    const m = this.memo;
    if (m !== null && m.start === idx && (m.sealed || m.end === this.edge())) return m;
    const first = this.at(idx);
    if (typeof first === "string") return first;
    const parts: Uint8Array[] = [];
    let size = 0;
    let next: number | null = null;
    let finished: StreamItem | null = null;
    let end = idx;
    for (let cur: Entry | "behind" | "pending" = first; typeof cur !== "string"; cur = this.at(end)) {
      parts.push(cur.bytes);
      size += cur.bytes.length;
      end += 1;
      if (cur.seq !== null) next = cur.seq + 1;
      if (cur.item.type === "run_finished") {
        finished = cur.item;
        break;
      }
      if (size >= BATCH_BYTES) break;
    }
    const bytes = parts.length === 1 ? parts[0]! : concat(parts, size);
    const b: Batch = { start: idx, end, bytes, next, finished, sealed: finished !== null || size >= BATCH_BYTES };
    if (parts.length > 1) this.memo = b;
    return b;
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

  /**
   * Whether `seq` is still to come through the hub: it follows the stream without a break from a seq at or before
   * `seq` and has not passed it yet (so a client that caught up past the hub can wait for it instead of reading).
   */
  ahead(seq: number): boolean {
    const first = this.firstSeq, last = this.lastSeq;
    return !this.done && first !== null && last !== null && first <= seq && last < seq;
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
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
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
            yield* own(next);
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
    // Decided where the hub's state is read: by the time the private follower has closed, the hub may have moved on
    // (the next seq may have left its ring), which the next turn of the loop handles.
    let handover = false;
    for await (const item of subscribe(hub.ref, { from: next ?? "start", signal, pollMs: 500, rawLines: true })) {
      const seq = typeof item.seq === "number" ? item.seq : null;
      yield itemFrame(item);
      if (seq !== null) next = seq + 1;
      if (item.type === "run_finished") {
        yield endOf(item, runId);
        return;
      }
      if (next !== null && !hub.done && (hub.indexFor(next) !== null || hub.ahead(next))) {
        handover = true;
        break;
      }
    }
    if (!handover) break;
  }
  if (!signal.aborted) yield await fallbackEnd();

  async function* own(start: number): AsyncGenerator<SseFrame | Uint8Array> {
    for await (const item of subscribe(hub.ref, { from: start, signal, pollMs: 500, rawLines: true })) {
      yield itemFrame(item);
      if (item.type === "run_finished") {
        yield endOf(item, runId);
        return;
      }
    }
    if (!signal.aborted) yield await fallbackEnd();
  }
}
