/**
 * The one tailer behind every follower (docs/reference/control-plane.md §11.1): wakes on `Deno.watchFs` of a directory plus a
 * poll, reads from a byte offset through one open descriptor (so a rotated file is drained from its archive),
 * buffers an incomplete last line until its newline arrives, decodes only complete lines (a multi-byte character
 * split across reads is never corrupted), and skips lines that do not decode to JSON objects. Memory stays flat.
 */
import { isRecord } from "../util/common.ts";
import { StoreIntegrityError } from "../util/safe_fs.ts";
import { openStoreReaderSync } from "../util/safe_read.ts";
import { defaultWatch, type WatchFactory, WatchLoop } from "./watch_loop.ts";

/** The watcher surface a follower uses; `Deno.watchFs` by default, a fake in tests. */
export type FollowWatchFactory = WatchFactory;

/**
 * Wake-ups for a follower: a directory watcher plus a poll timer, both optional hints. A watcher that fails or ends
 * is re-armed after a pause, with a wake-up right after so whatever landed in the gap is drained at once.
 */
export class Wakeup {
  #waiter: (() => void) | null = null;
  #pending = false;
  #stopped = false;
  #signals: { signal: AbortSignal; onAbort: () => void }[] = [];
  readonly #watch: WatchLoop | null;

  /**
   * `ignore`: names of the directory whose events do not wake (an event naming only such files); an event naming no
   * file (an overflow) always wakes.
   */
  constructor(
    dir: string | null,
    opts: { rearmMs?: number; watchFs?: FollowWatchFactory; ignore?: (name: string) => boolean } = {},
  ) {
    const ignore = opts.ignore;
    // The first watcher is created synchronously: a caller that reads after constructing this misses nothing.
    this.#watch = dir
      ? new WatchLoop(dir, {
        watchFs: opts.watchFs ?? defaultWatch,
        rearmMs: opts.rearmMs ?? 1000,
        onEvent: (e) => {
          // A close after a read-write open ("access": inotify's IN_CLOSE_WRITE) changes nothing by itself: a write
          // also reports "modify", a rename or new file "create"/"rename". Waking on it let a follower wake itself
          // (its own snapshot read closes a read-write handle in the watched directory) and spin while the run is idle.
          if (e.kind === "access") return false;
          if (
            ignore === undefined || e.paths.length === 0 ||
            !e.paths.every((p) => ignore(p.slice(p.lastIndexOf("/") + 1)))
          ) this.#fire();
          else this.ignored++;
          return false;
        },
        onGap: () => this.#fire(),
      })
      : null;
  }

  /** Watch events that did not wake (their files ignored); for tests. */
  ignored = 0;

  /** Watchers armed so far (re-arms included); for tests. */
  get armed(): number {
    return this.#watch?.armed ?? 0;
  }

  #fire(): void {
    this.#pending = true;
    const w = this.#waiter;
    this.#waiter = null;
    w?.();
  }

  /** Wait for a watch event, `pollMs`, or the abort signal, whichever comes first. */
  wait(pollMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#pending || this.#stopped || signal?.aborted) {
      this.#pending = false;
      return Promise.resolve();
    }
    if (signal !== undefined && !this.#signals.some((s) => s.signal === signal)) {
      // One abort listener per signal until close(), not one added and removed per wait (a follower waits once per
      // read).
      const onAbort = () => this.#fire();
      this.#signals.push({ signal, onAbort });
      signal.addEventListener("abort", onAbort, { once: true });
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.#waiter === done) this.#waiter = null;
        this.#pending = false;
        resolve();
      };
      const timer = setTimeout(done, pollMs);
      this.#waiter = done;
    });
  }

  /** Stop watching. */
  async close(): Promise<void> {
    this.#stopped = true;
    for (const { signal, onAbort } of this.#signals.splice(0)) signal.removeEventListener("abort", onAbort);
    await this.#watch?.stop();
    this.#fire();
  }
}

const NL = 0x0a;
const CHUNK = 1 << 16;

/**
 * The line each item of a raw-keeping reader was decoded from, exactly as written: a symbol-keyed property of the
 * item (never serialised by `JSON.stringify`, nor listed by `Object.keys`), which costs a few ns per line where a
 * WeakMap entry costs a few hundred (and burdens the GC).
 */
const RAW_LINE: unique symbol = Symbol("rawLine");

/** The line `item` was decoded from by a reader opened with `keepRaw`, exactly as written; else undefined. */
export function rawLineOf(item: object): string | undefined {
  const raw = (item as { [RAW_LINE]?: unknown })[RAW_LINE];
  return typeof raw === "string" ? raw : undefined;
}

/** Reads complete JSON-object lines from an open file, starting at a byte offset. */
export class LineReader {
  readonly #file: Deno.FsFile;
  readonly #ino: number | null;
  #partial: Uint8Array = new Uint8Array(0);
  #buf = new Uint8Array(CHUNK);
  #fatal = new TextDecoder("utf-8", { fatal: true });
  #loose = new TextDecoder();
  #skipFirst: boolean;
  readonly #keepRaw: boolean;
  /** Bytes consumed so far (offset of the next unread byte). */
  offset: number;

  private constructor(file: Deno.FsFile, ino: number | null, offset: number, skipFirst: boolean, keepRaw: boolean) {
    this.#file = file;
    this.#keepRaw = keepRaw;
    this.#ino = ino;
    this.offset = offset;
    this.#skipFirst = skipFirst;
  }

  /**
   * Open a file at the start, or at its end (`"end"`: only lines appended later; a line being written at that
   * moment is skipped whole). Null when the file does not exist. `keepRaw`: remember each item's line
   * ({@link rawLineOf}).
   */
  static open(path: string, from: "start" | "end" | number = "start", keepRaw = false): LineReader | null {
    let file: Deno.FsFile | null;
    try {
      file = openStoreReaderSync(path);
    } catch (e) {
      if (e instanceof StoreIntegrityError) throw e; // a FIFO, symlink or directory at the path: refused by name
      return null;
    }
    if (file === null) return null;
    const st = file.statSync();
    let offset = 0;
    let skipFirst = false;
    if (from === "end") {
      offset = st.size;
      if (st.size > 0) {
        const b = new Uint8Array(1);
        file.seekSync(st.size - 1, Deno.SeekMode.Start);
        file.readSync(b);
        skipFirst = b[0] !== NL;
      }
    } else if (typeof from === "number") offset = from;
    file.seekSync(offset, Deno.SeekMode.Start);
    return new LineReader(file, st.ino, offset, skipFirst, keepRaw);
  }

  /** Whether the open file is now shorter than what was read from it (truncated in place). */
  truncated(): boolean {
    try {
      return this.#file.statSync().size < this.offset;
    } catch {
      return false;
    }
  }

  /** Whether `path` names the very file this reader has open (same inode). */
  isFile(path: string): boolean {
    try {
      const st = Deno.statSync(path);
      return this.#ino !== null && st.ino === this.#ino;
    } catch {
      return false;
    }
  }

  /** Whether `path` now names a different file than the one being read (rotated or replaced). */
  replaced(path: string): boolean {
    try {
      const st = Deno.statSync(path);
      return this.#ino !== null && st.ino !== null && st.ino !== this.#ino;
    } catch {
      return true;
    }
  }

  /**
   * Read one chunk (at most 64 KiB) and return the decoded objects of the lines it completed; `eof` is true when
   * nothing more is available right now. Callers loop until `eof`, so memory stays bounded by one chunk.
   */
  readChunk(): { items: Record<string, unknown>[]; eof: boolean } {
    const n = this.#file.readSync(this.#buf);
    if (n === null || n === 0) return { items: [], eof: true };
    this.offset += n;
    const items: Record<string, unknown>[] = [];
    this.#consume(this.#buf.subarray(0, n), items);
    return { items, eof: false };
  }

  #consume(chunk: Uint8Array, out: Record<string, unknown>[]): void {
    let data = chunk;
    if (this.#partial.length) {
      data = new Uint8Array(this.#partial.length + chunk.length);
      data.set(this.#partial, 0);
      data.set(chunk, this.#partial.length);
    }
    const lastNl = data.lastIndexOf(NL);
    if (lastNl < 0) {
      this.#partial = data.slice();
      return;
    }
    let start = 0;
    if (this.#skipFirst) {
      start = data.indexOf(NL) + 1;
      this.#skipFirst = false;
    }
    const complete = data.subarray(start, lastNl);
    this.#partial = data.slice(lastNl + 1);
    const text = decodeValid(complete, this.#loose, this.#fatal);
    if (text !== null) {
      for (const line of text.split("\n")) pushLine(line, out, this.#keepRaw);
      return;
    }
    // Some line is not valid UTF-8: decode line by line and skip the bad ones.
    let i = 0;
    while (i <= complete.length) {
      let j = complete.indexOf(NL, i);
      if (j < 0) j = complete.length;
      try {
        pushLine(this.#fatal.decode(complete.subarray(i, j)), out, this.#keepRaw);
      } catch { /* undecodable line */ }
      i = j + 1;
    }
  }

  /** Close the descriptor. */
  close(): void {
    try {
      this.#file.close();
    } catch { /* closed */ }
  }
}

/**
 * `bytes` decoded when they are valid UTF-8, else null. The replacing decoder is tried first: Deno decodes it into a
 * compact string (one byte per character for ASCII) several times faster than the fatal decoder, whose result is
 * always two bytes per character — and the lines, their JSON and the frames built from them are then cheaper too
 * (docs/bench.md, `control serve`). Its result has no U+FFFD when every byte was valid; one that has (an invalid byte,
 * or a U+FFFD written as such) is decided by the fatal decoder.
 */
function decodeValid(bytes: Uint8Array, loose: TextDecoder, fatal: TextDecoder): string | null {
  const text = loose.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return fatal.decode(bytes);
  } catch {
    return null;
  }
}

function pushLine(line: string, out: Record<string, unknown>[], keepRaw: boolean): void {
  if (line.length === 0 || line.trim() === "") return;
  try {
    const v: unknown = JSON.parse(line);
    if (!isRecord(v)) return;
    if (keepRaw) (v as { [RAW_LINE]?: string })[RAW_LINE] = line;
    out.push(v);
  } catch { /* not JSON */ }
}
