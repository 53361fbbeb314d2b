/**
 * An append-only store file kept open between appends (the state's pending file takes about eight appends per prompt,
 * docs/bench.md `scale`). Every append still checks the path first: one `lstat` must name the regular file the handle
 * holds (same device and inode). Anything else — the file removed, renamed away or replaced, a link or special file
 * planted — closes the handle and opens the path again through {@link openStoreFileSync}'s checks (a link or special
 * file is refused). So an append never goes through a link or into a file no longer at the path, at the cost of one
 * `lstat` instead of an `lstat`, an open, an `fstat`, a second `lstat` and a close.
 */
import { appendStoreLine, lstatStoreSync, openStoreFileSync } from "./safe_fs.ts";

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
    this.#write(line);
  }

  /**
   * {@link appendSync}, then (`fsync`) the file's data flushed to disk before it resolves — the same guarantee as
   * {@link appendStoreLine}'s. A failed write or fsync closes the handle (the next append opens the path again).
   */
  async append(line: string, opts: { fsync?: boolean } = {}): Promise<void> {
    const file = this.#write(line);
    if (!opts.fsync) return;
    try {
      await file.sync();
    } catch (e) {
      if (this.#file === file) this.close();
      throw e;
    }
  }

  #write(line: string): Deno.FsFile {
    const file = this.#current();
    const bytes = new TextEncoder().encode(line.endsWith("\n") ? line : line + "\n");
    let n: number;
    try {
      n = file.writeSync(bytes);
    } catch (e) {
      this.close();
      throw e;
    }
    if (n !== bytes.length) {
      this.close();
      throw new Error(`short append to ${this.path}: ${n} of ${bytes.length} bytes`);
    }
    return file;
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

/** Most paths a run holds open at once (it holds three: its journal, `progress.log`, `verifications.jsonl`). */
const MAX_HELD = 8;

/**
 * The store files a run appends to at every prompt (its journal, `progress.log`, `verifications.jsonl`), each kept
 * open between appends as a {@link HeldAppender} — the same checks per append, one `lstat` instead of an open, an
 * `fstat`, `lstat`s and a close (docs/bench.md, "Per-prompt cost"). Every handle is closed with the run.
 */
export class HeldAppends {
  readonly #by = new Map<string, HeldAppender>();

  /** Append one line to `path` through its held handle (opened on first use); `fsync` as {@link appendStoreLine}. */
  append(path: string, line: string, opts: { fsync?: boolean } = {}): Promise<void> {
    let held = this.#by.get(path);
    if (held === undefined) {
      if (this.#by.size >= MAX_HELD) {
        const [oldest, appender] = this.#by.entries().next().value!;
        appender.close();
        this.#by.delete(oldest);
      }
      held = new HeldAppender(path);
      this.#by.set(path, held);
    }
    return held.append(line, opts);
  }

  /** Handles opened so far, over every path (test seam: one open serves a run's appends to a path). */
  get opens(): number {
    let n = 0;
    for (const h of this.#by.values()) n += h.opens;
    return n;
  }

  /** Close every held handle. */
  close(): void {
    for (const h of this.#by.values()) h.close();
    this.#by.clear();
  }
}

let active: HeldAppends | null = null;

/**
 * Hold the run's appended files open until {@link closeHeldAppends} (the runner, for one run). A second run in the same
 * process takes over; each closes its own handles.
 */
export function openHeldAppends(): HeldAppends {
  active = new HeldAppends();
  return active;
}

/** Close the handles of `held` and stop holding. */
export function closeHeldAppends(held: HeldAppends): void {
  if (active === held) active = null;
  held.close();
}

/**
 * Append one line to a store file: through the run's held handle while a run holds them ({@link openHeldAppends}),
 * else opened and closed as {@link appendStoreLine} does. Either way one write on an O_APPEND handle that the path
 * names, never through a link, and fsynced before it resolves when `fsync` is set.
 */
export function appendHeldLine(path: string, line: string, opts: { fsync?: boolean } = {}): Promise<void> {
  return active !== null ? active.append(path, line, opts) : appendStoreLine(path, line, opts);
}
