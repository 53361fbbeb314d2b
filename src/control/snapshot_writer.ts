/**
 * Writes `snapshot.json` off the runner's thread (docs/reference/control-plane.md §4.4). The plane builds each document
 * on its own thread at the moments it always did and hands the bytes here; the writer replaces the file with async
 * Deno calls (temp created new, written, renamed — Deno runs them on its blocking pool), so the runner goes on while
 * the file system works. One write is in flight at a time, and while it is, only the newest document waits for the
 * next: the file never goes backwards, and a burst of transitions costs one more write, not one per transition.
 * A failed write is reported (the plane says it once) and the next document is still written.
 */
import { isTempSiblingName } from "../util/fs.ts";

/** Writes one whole document (`fsync`: make it durable before it replaces the file). */
export type SnapshotWriteFn = (text: string, opts: { fsync: boolean }) => Promise<void>;

/** In-order, coalescing writer of one document file. */
export class SnapshotWriter {
  #pending: string | null = null;
  #fsync = false;
  #run: Promise<void> | null = null;

  /** `write` replaces the file with one document; `failed` hears every write that threw. */
  constructor(private readonly write: SnapshotWriteFn, private readonly failed: (e: unknown) => void) {}

  /**
   * Queue `text` as the newest document. The write starts at once when none is in flight; else it replaces whatever
   * was waiting (an fsync asked for by the replaced document is kept).
   */
  submit(text: string, opts: { fsync?: boolean } = {}): void {
    this.#pending = text;
    this.#fsync ||= opts.fsync === true;
    if (this.#run === null) this.#run = this.#pump();
  }

  /** Whether a write is in flight or waiting. */
  get busy(): boolean {
    return this.#run !== null;
  }

  /** Resolves once every submitted document has been written (or has failed). */
  async idle(): Promise<void> {
    while (this.#run !== null) await this.#run;
  }

  async #pump(): Promise<void> {
    try {
      while (this.#pending !== null) {
        const text = this.#pending;
        const fsync = this.#fsync;
        this.#pending = null;
        this.#fsync = false;
        try {
          await this.write(text, { fsync });
        } catch (e) {
          try {
            this.failed(e);
          } catch { /* a failing reporter must not stop the writer or reject idle() */ }
        }
      }
    } finally {
      this.#run = null;
    }
  }
}

/** Whether `name` (an entry of `control/`) is a temp file of a snapshot write. */
export function isSnapshotTemp(name: string): boolean {
  return isTempSiblingName(name, "snapshot.json");
}
