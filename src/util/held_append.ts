/**
 * An append-only store file kept open between appends (the state's pending file takes about eight appends per prompt,
 * docs/bench.md `scale`). Every append still checks the path first: one `lstat` must name the regular file the handle
 * holds (same device and inode). Anything else — the file removed, renamed away or replaced, a link or special file
 * planted — closes the handle and opens the path again through {@link openStoreFileSync}'s checks (a link or special
 * file is refused). So an append never goes through a link or into a file no longer at the path, at the cost of one
 * `lstat` instead of an `lstat`, an open, an `fstat`, a second `lstat` and a close.
 */
import { lstatStoreSync, openStoreFileSync } from "./safe_fs.ts";

/** Appends whole lines to one store file through a handle held open while the path still names it. */
export class HeldAppender {
  #file: Deno.FsFile | null = null;
  #dev = 0;
  #ino: number | null = null;
  /** How many times the path was opened (test seam: one open serves many appends). */
  opens = 0;

  /** An appender for the store file at `path` (nothing is opened until the first append). */
  constructor(readonly path: string) {}

  /** Append `line` (a newline is added when missing) in one write on the O_APPEND handle. */
  appendSync(line: string): void {
    const file = this.#current();
    const bytes = new TextEncoder().encode(line.endsWith("\n") ? line : line + "\n");
    const n = file.writeSync(bytes);
    if (n !== bytes.length) throw new Error(`short append to ${this.path}: ${n} of ${bytes.length} bytes`);
  }

  /** Close the held handle (the next append opens the path again). */
  close(): void {
    const file = this.#file;
    this.#file = null;
    this.#ino = null;
    file?.close();
  }

  #current(): Deno.FsFile {
    if (this.#file !== null) {
      let st: Deno.FileInfo | null;
      try {
        st = lstatStoreSync(this.path, "file");
      } catch (e) {
        this.close();
        throw e;
      }
      if (st !== null && this.#ino !== null && st.ino === this.#ino && st.dev === this.#dev) return this.#file;
      this.close();
    }
    const file = openStoreFileSync(this.path);
    const st = file.statSync();
    this.#file = file;
    this.#dev = st.dev;
    this.#ino = st.ino;
    this.opens++;
    return file;
  }
}
