/**
 * The runner's writer of `control/events.jsonl` (docs/reference/control-plane.md §5.1–§5.2): rotation of an earlier run's stream,
 * `seq` continuation for a resumed run, and buffered appends flushed at least every 20 ms and at every boundary.
 */
import { ensureStoreDirSync, lstatStoreSync, openStoreFileSync } from "../util/safe_fs.ts";
import { storePaths } from "../store/paths.ts";
import { isRecord } from "../util/common.ts";

const FLUSH_MS = 20;

/** Read the first decodable line's `run_id` of an events file (null when none). */
export function firstRunId(path: string): string | null {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch {
    return null;
  }
  try {
    const buf = new Uint8Array(65536);
    const n = file.readSync(buf) ?? 0;
    const text = new TextDecoder().decode(buf.subarray(0, n));
    for (const line of text.split("\n")) {
      try {
        const v: unknown = JSON.parse(line);
        if (isRecord(v) && typeof v.run_id === "string") return v.run_id;
      } catch { /* skip */ }
    }
    return null;
  } finally {
    file.close();
  }
}

/**
 * The `seq` of the last complete, decodable line of an events file, read backwards from the end in chunks; also
 * whether the file ends without a newline (a torn last line). Missing file → `{seq: 0, torn: false}`.
 */
export function lastCompleteSeq(path: string): { seq: number; torn: boolean } {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch {
    return { seq: 0, torn: false };
  }
  try {
    const size = file.statSync().size;
    if (size === 0) return { seq: 0, torn: false };
    const last = new Uint8Array(1);
    file.seekSync(size - 1, Deno.SeekMode.Start);
    file.readSync(last);
    const torn = last[0] !== 0x0a;
    const dec = new TextDecoder();
    for (let tail = 65536;; tail *= 4) {
      const start = Math.max(0, size - tail);
      const buf = new Uint8Array(size - start);
      file.seekSync(start, Deno.SeekMode.Start);
      let off = 0;
      while (off < buf.length) {
        const n = file.readSync(buf.subarray(off));
        if (n === null || n === 0) break;
        off += n;
      }
      const lines = dec.decode(buf.subarray(0, off)).split("\n");
      lines.pop(); // the torn remainder, or "" after the final newline
      if (start > 0) lines.shift(); // may begin mid-line
      for (let i = lines.length - 1; i >= 0; i--) {
        try {
          const v: unknown = JSON.parse(lines[i]!);
          if (isRecord(v) && typeof v.seq === "number") return { seq: v.seq, torn };
        } catch { /* undecodable: keep looking */ }
      }
      if (start === 0) break;
    }
    return { seq: 0, torn };
  } finally {
    file.close();
  }
}

/**
 * Move `events.jsonl` of an earlier run to `events/<old run id>.jsonl` (`-<n>` appended if taken). Returns the
 * archive path or null when nothing was moved.
 */
export function rotateEvents(storeRoot: string, oldRunId: string): string | null {
  const p = storePaths(storeRoot);
  if (lstatStoreSync(p.events, "file") === null) return null;
  ensureStoreDirSync(p.root, p.eventsArchive);
  let target = p.archivedEvents(oldRunId);
  for (let n = 1;; n++) {
    try {
      Deno.lstatSync(target);
      target = `${p.eventsArchive}/${oldRunId}-${n}.jsonl`;
    } catch {
      break;
    }
  }
  Deno.renameSync(p.events, target);
  return target;
}

/** Buffered appender of envelope lines. */
export class EventAppender {
  #file: Deno.FsFile;
  #chunks: string[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #enc = new TextEncoder();
  #closed = false;
  readonly #path: string;
  #ino: number | null;
  /** Times the file was found replaced or removed under the runner and reopened (diagnostics, tests). */
  reopened = 0;

  /** Open (create) the events file for appending; a torn last line is terminated so new lines stay separate. */
  constructor(path: string, torn: boolean) {
    this.#path = path;
    this.#file = openStoreFileSync(path);
    this.#ino = this.#file.statSync().ino;
    if (torn) this.#writeAll("\n");
  }

  /**
   * If `events.jsonl` was renamed away, removed or replaced, open the file now at the path (creating it), so
   * followers keep seeing this run's lines; they announce the seq range they lost as a gap.
   */
  #reopenIfReplaced(): void {
    let st: Deno.FileInfo | null = null;
    try {
      st = Deno.lstatSync(this.#path);
    } catch { /* removed or renamed away */ }
    if (this.#ino === null || (st !== null && (st.ino === this.#ino || st.ino === null))) return;
    // Never open a symlink, FIFO or device put there (it could block or point outside the store).
    if (st !== null && !st.isFile) return;
    let file: Deno.FsFile;
    try {
      // Read-write and checked against the path (src/util/safe_fs.ts): a FIFO or link swapped in is refused.
      file = openStoreFileSync(this.#path);
    } catch {
      return; // raced with another change: checked again at the next flush
    }
    this.#file.close();
    this.#file = file;
    this.#ino = file.statSync().ino;
    this.reopened += 1;
  }

  #writeAll(text: string): void {
    const bytes = this.#enc.encode(text);
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
  }

  /** Queue one line (without newline); it is written within 20 ms or at the next flush. */
  push(line: string): void {
    if (this.#closed) return;
    this.#chunks.push(line + "\n");
    if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.flush();
      }, FLUSH_MS);
    }
  }

  /** Write everything buffered (one write call). */
  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#chunks.length === 0 || this.#closed) return;
    const text = this.#chunks.join("");
    this.#chunks = [];
    this.#reopenIfReplaced();
    this.#writeAll(text);
  }

  /** Flush and fsync. */
  sync(): void {
    this.flush();
    if (!this.#closed) this.#file.syncSync();
  }

  /** Flush, fsync and close. */
  close(): void {
    if (this.#closed) return;
    this.sync();
    this.#closed = true;
    this.#file.close();
  }
}
