/**
 * SSE frames of a run's envelopes (docs/reference/http_api.md §5), built straight into one growing byte buffer: a
 * hub read, or a client's catch-up, becomes one byte array with the frames' offsets, not one small array per frame
 * (each of which costs a few hundred bytes of heap besides its bytes).
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

/** Frames built into one byte array: `ends[i]` is the offset just past frame i, `seqs[i]` its seq (null: none). */
export interface FrameRun {
  bytes: Uint8Array;
  ends: number[];
  seqs: (number | null)[];
  /** The run's `run_finished`, when it is the last frame. */
  finished: StreamItem | null;
}

/** Accumulates frames into one buffer; {@link take} hands them over as an exact-size copy and starts again. */
export class FrameBuilder {
  #buf = new Uint8Array(1 << 16);
  #used = 0;
  #ends: number[] = [];
  #seqs: (number | null)[] = [];
  #finished: StreamItem | null = null;

  /** Bytes held. */
  get size(): number {
    return this.#used;
  }

  /** Frames held. */
  get count(): number {
    return this.#ends.length;
  }

  /** Append the frame of `item`. */
  add(item: StreamItem): void {
    const text = frameText(item);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: grow first so one encodeInto always fits.
    const need = this.#used + text.length * 3;
    if (need > this.#buf.length) {
      const bigger = new Uint8Array(Math.max(need, this.#buf.length * 2));
      bigger.set(this.#buf.subarray(0, this.#used));
      this.#buf = bigger;
    }
    this.#used += encoder.encodeInto(text, this.#buf.subarray(this.#used)).written;
    this.#ends.push(this.#used);
    this.#seqs.push(typeof item.seq === "number" ? item.seq : null);
    if (item.type === "run_finished") this.#finished = item;
  }

  /** The frames held (an exact-size copy), leaving the builder empty; its buffer shrinks back after a big run. */
  take(): FrameRun {
    const out: FrameRun = {
      bytes: this.#buf.slice(0, this.#used),
      ends: this.#ends,
      seqs: this.#seqs,
      finished: this.#finished,
    };
    if (this.#buf.length > 1 << 18) this.#buf = new Uint8Array(1 << 16);
    this.#used = 0;
    this.#ends = [];
    this.#seqs = [];
    this.#finished = null;
    return out;
  }
}
