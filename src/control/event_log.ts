/**
 * The runner's writer of `control/events.jsonl` (docs/reference/control-plane.md §5.1–§5.2): rotation of an earlier run's stream,
 * `seq` continuation for a resumed run, buffered appends flushed at least every 20 ms (and at the boundaries that
 * matter, see `plane.ts`), and size-bounded segments: a full `events.jsonl` is sealed (fsynced, renamed to
 * `events/<run_id>.<n>.jsonl`) between two lines and a fresh one opened.
 */
import { ensureStoreDirSync, lstatStoreSync, openStoreFileSync } from "../util/safe_fs.ts";
import { storePaths } from "../store/paths.ts";
import { isRecord } from "../util/common.ts";
import { failpoint } from "../util/failpoint.ts";
import { traceStage } from "../util/stage_trace.ts";

const FLUSH_MS = 20;
/** At a boundary, queued lines are written once this many bytes are queued … */
const BOUNDARY_FLUSH_BYTES = 64 * 1024;
/** … or once the last write is this old (so a lone event after a pause is written at its boundary, at once). */
const BOUNDARY_FLUSH_MS = 5;

/** The default size bound of one event segment: 64 MiB (docs/reference/control-plane.md §5.2). */
export const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;

/** Segmenting of an {@link EventAppender}: the size bound and where the next sealed segment goes. */
export interface SegmentPolicy {
  /** Seal the file once it would grow past this many bytes (a single longer line still gets a segment of its own). */
  maxBytes: number;
  /** The path of the next sealed segment (called once per seal). */
  nextSegment: () => string;
  /**
   * Start an fsync of the open file off the runner's thread after this many bytes were written since the last one
   * (default {@link SYNC_AHEAD_BYTES}; 0: never), so the seal's own fsync finds little left to write.
   */
  syncAheadBytes?: number;
}

/**
 * Bytes between two background fsyncs of a segment being filled. The seal fsyncs the file on the runner's thread
 * before renaming it (the sealed segment must be durable); with 64 MiB unwritten that took 65–73 ms, during which a
 * streaming run applied no control request (docs/bench.md, "Control under full load"). With the file synced ahead
 * every 8 MiB on a worker thread, the seal waits for at most about that much.
 */
export const SYNC_AHEAD_BYTES = 8 * 1024 * 1024;

/** fsync a directory so a rename in it is durable (best effort: some filesystems refuse). */
function syncDir(dir: string): void {
  try {
    const f = Deno.openSync(dir, { read: true });
    try {
      f.syncSync();
    } finally {
      f.close();
    }
  } catch { /* not supported here: the rename is still atomic */ }
}

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
  readonly #segments: SegmentPolicy | null;
  /** Bytes in the open file (its size at open plus what this appender wrote). */
  #size: number;
  /** Bytes queued and not yet written. */
  #pending = 0;
  /** `performance.now()` of the last write. */
  #lastWrite = 0;
  /** Times the file was found replaced or removed under the runner and reopened (diagnostics, tests). */
  reopened = 0;
  /** Segments sealed by this appender (diagnostics, tests). */
  sealed = 0;
  /** Background fsyncs started (diagnostics, tests). */
  syncedAhead = 0;
  /** A second handle on the open file, for the background fsyncs (fsync applies to the file, not the handle). */
  #syncer: Deno.FsFile | null = null;
  /** The background fsync in flight, if any. */
  #ahead: Promise<void> | null = null;
  /** Bytes written since the last background fsync started. */
  #unsynced = 0;

  /**
   * Open (create) the events file for appending; a torn last line is terminated so new lines stay separate. With a
   * segment policy the file is sealed whenever the next lines would take it past the bound.
   */
  constructor(path: string, torn: boolean, segments: SegmentPolicy | null = null) {
    this.#path = path;
    this.#segments = segments;
    this.#file = openStoreFileSync(path);
    const st = this.#file.statSync();
    this.#ino = st.ino;
    this.#size = st.size;
    if (torn) this.#writeAll(this.#enc.encode("\n"));
  }

  /** Bytes queued since the last flush (UTF-16 length: an estimate for flush thresholds). */
  get pending(): number {
    return this.#pending;
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
    this.#dropSyncer();
    this.#file.close();
    this.#file = file;
    const now = file.statSync();
    this.#ino = now.ino;
    this.#size = now.size;
    this.reopened += 1;
  }

  #writeAll(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
    this.#size += bytes.length;
    this.#unsynced += bytes.length;
    const every = this.#segments?.syncAheadBytes ?? SYNC_AHEAD_BYTES;
    if (this.#segments !== null && every > 0 && this.#unsynced >= every && this.#ahead === null) this.#syncAhead();
  }

  /**
   * Start an fsync of the open file on a worker thread, through a second handle on it (a write through the first
   * never waits for it). Only ever in addition to the fsyncs the record needs (the seal's, the boundary's).
   */
  #syncAhead(): void {
    if (this.#syncer === null) {
      try {
        const f = openStoreFileSync(this.#path);
        if (f.statSync().ino === this.#ino) this.#syncer = f;
        else f.close(); // replaced under the runner: the next write reopens
      } catch { /* raced with a change of the file: tried again after the next write */ }
      if (this.#syncer === null) return;
    }
    this.#unsynced = 0;
    this.syncedAhead += 1;
    this.#ahead = this.#syncer.sync().catch(() => {}).finally(() => (this.#ahead = null));
  }

  /** Drop the second handle (the file it names is sealed, replaced or closed). */
  #dropSyncer(): void {
    try {
      this.#syncer?.close();
    } catch { /* closed under a pending fsync: it ends with it */ }
    this.#syncer = null;
    this.#unsynced = 0;
  }

  /** Settles when no background fsync is in flight (tests). */
  async syncedAheadIdle(): Promise<void> {
    while (this.#ahead !== null) await this.#ahead;
  }

  /**
   * Seal the open file: fsync it, rename it to the next segment's name, fsync the directories, then open a fresh
   * file at the path. A crash between the rename and the open leaves every line in the sealed segment and no live
   * file; the next open continues `seq` from the segment (`lastRunSeq()` in segments.ts).
   */
  #seal(policy: SegmentPolicy): boolean {
    traceStage("seal", "-");
    this.#file.syncSync();
    traceStage("sealed_fsync", "-");
    const target = policy.nextSegment();
    try {
      Deno.renameSync(this.#path, target);
    } catch {
      // Cannot seal now (the archive directory is gone or unwritable): keep appending to this file, lose nothing,
      // and try again at the next flush.
      return false;
    }
    syncDir(target.slice(0, target.lastIndexOf("/")));
    syncDir(this.#path.slice(0, this.#path.lastIndexOf("/")));
    this.sealed += 1;
    failpoint("control.events_after_seal");
    this.#dropSyncer();
    this.#file.close();
    this.#file = openStoreFileSync(this.#path);
    const st = this.#file.statSync();
    this.#ino = st.ino;
    this.#size = st.size;
    traceStage("sealed", "-");
    return true;
  }

  /** Write whole lines, sealing the file between two lines whenever the next ones would pass the bound. */
  #writeLines(bytes: Uint8Array): void {
    const policy = this.#segments;
    let off = 0;
    let sealing = policy !== null;
    while (policy !== null && sealing && this.#size + (bytes.length - off) > policy.maxBytes) {
      const room = policy.maxBytes - this.#size;
      // The last newline that still fits: everything up to it goes into this segment.
      const cut = room > 0 ? bytes.subarray(off, off + room).lastIndexOf(0x0a) : -1;
      if (cut >= 0) {
        this.#writeAll(bytes.subarray(off, off + cut + 1));
        off += cut + 1;
        sealing = this.#seal(policy);
      } else if (this.#size > 0) {
        sealing = this.#seal(policy); // the next line does not fit: it starts the next segment
      } else {
        // One line longer than the bound: it gets a segment of its own.
        const nl = bytes.indexOf(0x0a, off);
        const end = nl < 0 ? bytes.length : nl + 1;
        this.#writeAll(bytes.subarray(off, end));
        off = end;
        if (off < bytes.length) sealing = this.#seal(policy);
      }
    }
    if (off < bytes.length) this.#writeAll(bytes.subarray(off));
  }

  /** Queue one line (without newline); it is written within 20 ms or at the next flush. */
  push(line: string): void {
    if (this.#closed) return;
    this.#chunks.push(line + "\n");
    this.#pending += line.length + 1;
    if (this.#timer === null) {
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.flush();
      }, FLUSH_MS);
    }
  }

  /**
   * At a boundary: write what is queued when ≥ 64 KiB are queued or the last write is ≥ 5 ms old. A stream at full
   * speed is written in batches (every 5 ms at most); an event after a pause is written at once.
   */
  flushIfDue(): void {
    if (this.#chunks.length === 0) return;
    if (this.#pending >= BOUNDARY_FLUSH_BYTES || performance.now() - this.#lastWrite >= BOUNDARY_FLUSH_MS) {
      this.flush();
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
    this.#pending = 0;
    this.#lastWrite = performance.now();
    this.#reopenIfReplaced();
    this.#writeLines(this.#enc.encode(text));
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
    this.#dropSyncer();
    this.#file.close();
  }
}
