/**
 * SSE frames of a run's envelopes (docs/reference/http_api.md §5), built straight into large shared buffers: a hub
 * read, or a client's catch-up, becomes one byte array (a view of its buffer) with the frames' offsets — not one small
 * array per frame (each of which costs a few hundred bytes of heap besides its bytes), nor a copy per read.
 */
import { rawLineOf, type StreamItem } from "../../control/mod.ts";

const encoder = new TextEncoder();

/**
 * The SSE frame of one envelope, as text: its line exactly as written as the `data:` (no parse and re-serialise), its
 * seq as the `id:`. Items without a line (synthetic ones) are serialised.
 */
export function frameText(item: StreamItem): string {
  const raw = rawLineOf(item);
  const text = raw !== undefined && !raw.includes("\r") ? raw : JSON.stringify(item);
  return typeof item.seq === "number" ? `id: ${item.seq}\ndata: ${text}\n\n` : `data: ${text}\n\n`;
}

/** The SSE frame of one envelope, as bytes ({@link frameText}). */
export function itemFrame(item: StreamItem): Uint8Array {
  return encoder.encode(frameText(item));
}

/** The size of a new buffer: the frames of many reads are views of one (one allocation per this many bytes). */
const SLAB = 1 << 18;

/** Frames built into one byte array: `ends[i]` is the offset just past frame i, `seqs[i]` its seq (null: none). */
export interface FrameRun {
  bytes: Uint8Array;
  ends: number[];
  seqs: (number | null)[];
  /** The run's `run_finished`, when it is the last frame. */
  finished: StreamItem | null;
}

/**
 * Accumulates frames into a buffer; {@link take} hands them over as a view of it and goes on after them. A frame that
 * does not fit starts a new buffer (the frames not yet taken move with it); a view once taken is never written again.
 */
export class FrameBuilder {
  // A small first buffer: a client's private catch-up may hold only a few frames.
  #buf = new Uint8Array(1 << 16);
  /** Where the frames not yet taken start. */
  #from = 0;
  #used = 0;
  #ends: number[] = [];
  #seqs: (number | null)[] = [];
  #finished: StreamItem | null = null;

  /** Bytes held. */
  get size(): number {
    return this.#used - this.#from;
  }

  /** Frames held. */
  get count(): number {
    return this.#ends.length;
  }

  /** Room for `need` more bytes after the frames held. */
  #room(need: number): void {
    if (this.#used + need <= this.#buf.length) return;
    const held = this.#used - this.#from;
    const next = new Uint8Array(Math.max(SLAB, held + need));
    next.set(this.#buf.subarray(this.#from, this.#used));
    this.#buf = next;
    this.#from = 0;
    this.#used = held;
  }

  /** Append the frame of `item`. */
  add(item: StreamItem): void {
    const text = frameText(item);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: make room first so one encodeInto always fits.
    this.#room(text.length * 3);
    this.#used += encoder.encodeInto(text, this.#buf.subarray(this.#used)).written;
    this.#ends.push(this.#used - this.#from);
    this.#seqs.push(typeof item.seq === "number" ? item.seq : null);
    if (item.type === "run_finished") this.#finished = item;
  }

  /** The frames held (a view of the buffer, never written again), leaving the builder empty. */
  take(): FrameRun {
    const out: FrameRun = {
      bytes: this.#buf.subarray(this.#from, this.#used),
      ends: this.#ends,
      seqs: this.#seqs,
      finished: this.#finished,
    };
    this.#from = this.#used;
    this.#ends = [];
    this.#seqs = [];
    this.#finished = null;
    return out;
  }
}
