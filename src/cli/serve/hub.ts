/**
 * One shared follower per live run (docs/reference/http_api.md §5): each envelope is read, parsed and framed once,
 * and every client that is in step sends the same bytes. The hub keeps the last frames in a ring bounded in bytes
 * (flat memory); its clients' side is hub_frames.ts.
 */
import { type RunRef, type StreamItem, subscribeBatches } from "../../control/mod.ts";
import { FrameBuilder, type FrameRun } from "./frames.ts";
import { Fifo } from "./ring.ts";
import { concatBytes } from "../../util/bytes.ts";

/**
 * What a hub's ring may hold, in bytes: the frames' bytes plus an allowance per chunk and per frame for the objects
 * that index them, so the bound holds whatever the frames' sizes (flat memory; docs/bench.md, `serve`).
 */
const RING_BYTES = 8 * 1024 * 1024;
const CHUNK_COST = 256;
const FRAME_COST = 24;
/** At most one read of the run's stream per this many ms while it streams (wakes in between are coalesced). */
const COALESCE_MS = 5;
/** The most bytes of frames sent to a client in one write (a chunk is sealed at this size). */
export const BATCH_BYTES = 65536;
/**
 * A run with at most this many events when its hub opens is read from its start: the ring then holds every frame,
 * and clients coming from the start (a page opening a young run) share its bytes instead of each reading the file.
 */
export const HUB_FROM_START_SEQS = 4096;

/** Frames from `start` (absolute index) up to `end`, as one byte array shared by every client asking for them. */
export interface Batch {
  start: number;
  end: number;
  bytes: Uint8Array;
  /** The seq after the last one in the batch (null: none had one). */
  next: number | null;
  /** The run's `run_finished` when the batch ends with it. */
  finished: StreamItem | null;
}

/** The frames of one hub read (or 64 KiB of it): immutable once in the ring. */
interface Chunk extends FrameRun {
  /** Absolute index of its first frame. */
  first: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** The batch from its first frame, built once. */
  whole: Batch | null;
}

/** The shared follower of one run. */
export class EventHub {
  private chunks = new Fifo<Chunk>();
  private building = new FrameBuilder();
  /** Ring bytes with the per-chunk and per-frame allowances. */
  private cost = 0;
  /** Absolute index just past the newest frame in the ring. */
  private end = 0;
  /** Clients waiting for the next read, each with its abort signal (listened to once per signal, not per wait). */
  private waiters = new Set<Waiter>();
  private readonly listening = new WeakSet<AbortSignal>();
  private memo: Batch | null = null;
  private readonly ac = new AbortController();
  /** Clients attached. */
  clients = 0;
  /** Whether the hub's follower has ended (the run finished, or it failed). */
  done = false;
  /** Whether the hub's follower has read what the stream held when it opened (its first wait). */
  caughtUp = false;

  /**
   * Start following `ref` from its current end (or its start: `from`), keeping at most `limits.bytes` of the newest
   * frames (with their allowances).
   */
  constructor(
    readonly ref: RunRef,
    private readonly limits = { bytes: RING_BYTES },
    private readonly from: "start" | "current" = "current",
  ) {
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      const opts = {
        from: this.from,
        signal: this.ac.signal,
        pollMs: 500,
        rawLines: true,
        coalesceMs: COALESCE_MS,
        // Clients wake once per read (the follower has drained what is there), not once per event.
        onIdle: () => {
          this.caughtUp = true;
          this.seal();
        },
      };
      // One await per read of the stream (its items in one batch), not one per item.
      for await (const items of subscribeBatches(this.ref, opts)) {
        for (const item of items) {
          this.building.add(item);
          // A long read is handed out every batch's worth, and at its end (onIdle); run_finished at once.
          if (this.building.size >= BATCH_BYTES || item.type === "run_finished") this.seal();
        }
      }
    } catch {
      /* clients fall back to followers of their own */
    } finally {
      this.seal();
      this.done = true;
      this.wake();
    }
  }

  /** Move the frames read so far into the ring (dropping the oldest chunks past the bound) and wake the clients. */
  private seal(): void {
    if (this.building.count > 0) {
      const run = this.building.take();
      const firstSeq = run.seqs.find((s) => s !== null) ?? null;
      const lastSeq = run.seqs.findLast((s) => s !== null) ?? null;
      this.chunks.push({ ...run, first: this.end, firstSeq, lastSeq, whole: null });
      this.end += run.ends.length;
      this.cost += costOf(run);
      while (this.cost > this.limits.bytes && this.chunks.length > 1) this.cost -= costOf(this.chunks.shift()!);
    }
    this.wake();
  }

  private wake(): void {
    const all = this.waiters;
    if (all.size === 0) return;
    this.waiters = new Set();
    for (const w of all) w.resolve();
  }

  /** Clients waiting for frames (an aborted client waits no more); for tests. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** What the ring holds: frames, chunks, and bytes with their allowances; for tests. */
  get held(): { frames: number; chunks: number; cost: number } {
    return { frames: this.end - this.start(), chunks: this.chunks.length, cost: this.cost };
  }

  private start(): number {
    return this.chunks.at(0)?.first ?? this.end;
  }

  /** The chunk holding absolute index `idx` (which the caller checked is in the ring). */
  private chunkAt(idx: number): Chunk {
    let lo = 0, hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.chunks.at(mid)!.first <= idx) lo = mid;
      else hi = mid - 1;
    }
    return this.chunks.at(lo)!;
  }

  /**
   * The frames from `idx` on as one byte array: the rest of its chunk (a view, never a copy), or, when that is
   * short of {@link BATCH_BYTES} and more chunks follow, the chunks up to it joined once and shared by every client
   * asking for the same range.
   */
  batch(idx: number): Batch | "behind" | "pending" {
    if (idx < this.start()) return "behind";
    if (idx >= this.end) return "pending";
    const m = this.memo;
    if (m !== null && m.start === idx) return m;
    const c = this.chunkAt(idx);
    const first = slice(c, idx);
    let next = first.next;
    if (first.finished !== null || first.bytes.length >= BATCH_BYTES || first.end >= this.end) return first;
    const parts = [first.bytes];
    let size = first.bytes.length;
    let end = first.end;
    let finished: StreamItem | null = null;
    while (end < this.end && size < BATCH_BYTES && finished === null) {
      const more = this.chunkAt(end);
      parts.push(more.bytes);
      size += more.bytes.length;
      end = more.first + more.ends.length;
      if (more.lastSeq !== null) next = more.lastSeq + 1;
      finished = more.finished;
    }
    return this.memo = { start: idx, end, bytes: joinBytes(parts, size), next, finished };
  }

  /** The absolute index just past the newest frame. */
  edge(): number {
    return this.end;
  }

  /** The index of the frame holding `seq`, or of the edge when `seq` is the next one due; else null. */
  indexFor(seq: number): number | null {
    const last = this.lastSeq;
    if (last === null) return null;
    if (last === seq - 1) return this.end;
    const first = this.firstSeq;
    if (seq > last || first === null || seq < first) return null;
    for (let k = this.chunks.length - 1; k >= 0; k--) {
      const c = this.chunks.at(k)!;
      if (c.firstSeq === null || c.firstSeq > seq) continue;
      // Seqs ascend by one, so the offset finds it at once; items without a seq (gap, resync) shift the rest, and a
      // gap skips seqs: then scan the chunk from its end (seqs ascending, the first one below ends the search).
      const guess = seq - c.firstSeq;
      if (c.seqs[guess] === seq) return c.first + guess;
      for (let i = c.seqs.length - 1; i >= 0; i--) {
        const s = c.seqs[i]!;
        if (s === seq) return c.first + i;
        if (s !== null && s < seq) return null;
      }
      return null;
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
    for (let k = this.chunks.length - 1; k >= 0; k--) {
      const s = this.chunks.at(k)!.lastSeq;
      if (s !== null) return s;
    }
    return null;
  }

  private get firstSeq(): number | null {
    for (let k = 0; k < this.chunks.length; k++) {
      const s = this.chunks.at(k)!.firstSeq;
      if (s !== null) return s;
    }
    return null;
  }

  /** Resolves when a frame arrives, the hub ends, or `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    if (this.done || signal.aborted) return Promise.resolve();
    if (!this.listening.has(signal)) {
      // One listener per client for its whole stream (adding and removing one per wait cost more than the wait).
      this.listening.add(signal);
      signal.addEventListener("abort", () => {
        for (const w of this.waiters) {
          if (w.signal !== signal) continue;
          this.waiters.delete(w);
          w.resolve();
        }
      }, { once: true });
    }
    return new Promise((resolve) => this.waiters.add({ signal, resolve }));
  }

  /** Resolves at the hub's next read (see {@link changed}), or after a poll interval once the hub has ended. */
  next(signal: AbortSignal): Promise<void> {
    if (!this.done || signal.aborted) return this.changed(signal);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, 500);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Stop following. */
  close(): void {
    this.ac.abort();
  }
}

/** A client waiting for the hub's next read. */
interface Waiter {
  signal: AbortSignal;
  resolve: () => void;
}

function costOf(run: FrameRun): number {
  return run.bytes.length + CHUNK_COST + FRAME_COST * run.ends.length;
}

/** The frames of chunk `c` from absolute index `idx` to its end. */
function slice(c: Chunk, idx: number): Batch {
  const i = idx - c.first;
  const end = c.first + c.ends.length;
  const next = c.lastSeq === null || c.seqs.slice(i).every((s) => s === null) ? null : c.lastSeq + 1;
  if (i === 0) return c.whole ??= { start: idx, end, bytes: c.bytes, next, finished: c.finished };
  return { start: idx, end, bytes: c.bytes.subarray(c.ends[i - 1]!), next, finished: c.finished };
}

/**
 * `parts` (`size` bytes in all) as one array: a view when they lie end to end in one buffer (frames built there in
 * turn, frames.ts), else a copy.
 */
export function joinBytes(parts: Uint8Array[], size: number): Uint8Array {
  const first = parts[0]!;
  let next = first.byteOffset;
  let adjacent = true;
  for (const p of parts) {
    if (p.buffer !== first.buffer || p.byteOffset !== next) {
      adjacent = false;
      break;
    }
    next += p.length;
  }
  return adjacent ? new Uint8Array(first.buffer, first.byteOffset, size) : concatBytes(parts, size);
}
