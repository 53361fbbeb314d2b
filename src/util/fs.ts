/** File helpers shared by every writer of state: atomic JSON documents, single-write appends, private modes. */
import { failpoint } from "./failpoint.ts";

/** Options of the atomic writers: fsync the temp file, and a failpoint reached between the write and the rename. */
export interface AtomicOpts {
  fsync?: boolean;
  /** A failpoint (src/util/failpoint.ts) reached after the temp file is written, before it is renamed. */
  failpoint?: string;
}

/** Directory mode for everything under a store root. */
export const DIR_MODE = 0o700;
/** File mode for everything under a store root. */
export const FILE_MODE = 0o600;

/** Create a directory (and parents) with mode 0700. */
export async function ensureDir(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true, mode: DIR_MODE });
}

function tempSibling(path: string): string {
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : ".";
  const base = slash >= 0 ? path.slice(slash + 1) : path;
  const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16);
  return `${dir}/.${base}.${Deno.pid}.${rand}.tmp`;
}

/** Whether `name` (a directory entry) is a temp file an atomic write of the file `base` beside it created. */
export function isTempSiblingName(name: string, base: string): boolean {
  const prefix = `.${base}.`;
  return name.startsWith(prefix) && /^\d+\.[0-9a-f]+\.tmp$/.test(name.slice(prefix.length));
}

/** Pretty JSON with 2-space indent and a trailing newline. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * Write a file atomically: a dot-prefixed temp file in the same directory, optionally fsynced, then renamed over
 * the target. Readers see either the old or the new content, never a torn file.
 */
export async function atomicWriteText(path: string, text: string, opts: AtomicOpts = {}): Promise<void> {
  await writeViaTemp(tempSibling(path), path, text, opts);
}

/**
 * Create `tmp` exclusively, write `data`, optionally fsync, then rename it to `path`; the temp file is removed when
 * any step fails. {@link atomicWriteText} with a temp path of the caller's choosing (another directory of the same
 * file system, a name the caller needs).
 *
 * Without an fsync the create, the write and the close are one call (`Deno.writeFile` with `createNew`): one hop to
 * Deno's blocking pool instead of one per step, and the path checked once (docs/bench.md, "Per-prompt cost").
 */
export async function writeViaTemp(
  tmp: string,
  path: string,
  data: string | Uint8Array,
  opts: AtomicOpts = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  if (!opts.fsync) {
    try {
      await Deno.writeFile(tmp, bytes, { createNew: true, mode: FILE_MODE });
    } catch (e) {
      // Whatever is at `tmp` when the create-new failed is not ours; anything else may be our partial file.
      if (!(e instanceof Deno.errors.AlreadyExists)) await Deno.remove(tmp).catch(() => {});
      throw e;
    }
    await renameTemp(tmp, path, opts);
    return;
  }
  await fillViaTemp(tmp, path, opts, async (file) => {
    let off = 0;
    while (off < bytes.length) off += await file.write(bytes.subarray(off));
  });
}

/**
 * The steps every atomic writer shares: create `tmp` exclusively, let `fill` write it, optionally fsync, close, pass
 * the failpoint, rename to `path`; the temp file is removed when any step fails.
 */
async function fillViaTemp(
  tmp: string,
  path: string,
  opts: AtomicOpts,
  fill: (file: Deno.FsFile) => Promise<void>,
): Promise<void> {
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: FILE_MODE });
  try {
    await fill(file);
    if (opts.fsync) await file.sync();
  } catch (e) {
    file.close();
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  file.close();
  await renameTemp(tmp, path, opts);
}

/** The last step of every atomic writer: pass the failpoint, rename `tmp` to `path`; the temp is removed on failure. */
async function renameTemp(tmp: string, path: string, opts: AtomicOpts): Promise<void> {
  if (opts.failpoint) failpoint(opts.failpoint);
  try {
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** Synchronous {@link atomicWriteText}. */
export function atomicWriteTextSync(path: string, text: string, opts: AtomicOpts = {}): void {
  const tmp = tempSibling(path);
  const file = Deno.openSync(tmp, { write: true, createNew: true, mode: FILE_MODE });
  try {
    const bytes = new TextEncoder().encode(text);
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    if (opts.fsync) file.syncSync();
  } catch (e) {
    file.close();
    try {
      Deno.removeSync(tmp);
    } catch { /* already gone */ }
    throw e;
  }
  file.close();
  if (opts.failpoint) failpoint(opts.failpoint);
  Deno.renameSync(tmp, path);
}

/** Write a JSON document atomically (pretty, trailing newline). */
export async function atomicWriteJson(path: string, value: unknown, opts: AtomicOpts = {}): Promise<void> {
  await atomicWriteText(path, prettyJson(value), opts);
}

/**
 * A `catch` handler for reads where only absence is quiet: `NotFound` (or `NotADirectory`: a path through a file does
 * not exist either) becomes null; anything else (EACCES, EISDIR, a refused store path) is thrown again.
 * `await Deno.lstat(p).catch(nullIfAbsent)`.
 */
export function nullIfAbsent(e: unknown): null {
  if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
  throw e;
}

/** Read a file as text, or null when it does not exist. Other errors propagate. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Whether a path exists (lstat; symlinks count). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** Read a JSON Lines file; blank and undecodable lines (including a torn last line) are skipped. */
export function parseJsonLines<T = Record<string, unknown>>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v: unknown = JSON.parse(line);
      if (v !== null && typeof v === "object" && !Array.isArray(v)) out.push(v as T);
    } catch {
      // torn or foreign line: skipped by contract
    }
  }
  return out;
}

/** How many UTF-16 units {@link writeChunksViaTemp} gathers before it encodes and writes them. */
const CHUNK_UNITS = 64 * 1024;

/**
 * {@link atomicWriteText} of a document given as pieces: they are encoded and written about 64 KiB at a time into one
 * reused buffer, so a large document is never held as one string nor as one encoded copy (a 40 MB `JSON.stringify`
 * plus its bytes would double a process's peak memory). Same temp, fsync, failpoint and rename steps.
 */
export async function atomicWriteChunks(path: string, pieces: Iterable<string>, opts: AtomicOpts = {}): Promise<void> {
  await fillViaTemp(tempSibling(path), path, opts, async (file) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a piece longer than the gathering size gets a buffer of its own.
    let buf = new Uint8Array(3 * CHUNK_UNITS);
    const encoder = new TextEncoder();
    let batch: string[] = [];
    let units = 0;
    const drain = async () => {
      const text = batch.length === 1 ? batch[0]! : batch.join("");
      batch = [];
      units = 0;
      if (3 * text.length > buf.length) buf = new Uint8Array(3 * text.length);
      const { written } = encoder.encodeInto(text, buf);
      let off = 0;
      while (off < written) off += await file.write(buf.subarray(off, written));
    };
    for (const piece of pieces) {
      batch.push(piece);
      units += piece.length;
      if (units >= CHUNK_UNITS) await drain();
    }
    if (units > 0) await drain();
  });
}

/**
 * The bytes of a regular file, at most `limit` of them: null when it holds more (it may grow after its `stat`, or be a
 * device swapped in since). `sizeHint` is the size its `stat` gave.
 */
export async function readCapped(path: string, limit: number, sizeHint: number): Promise<Uint8Array | null> {
  const file = await Deno.open(path, { read: true });
  try {
    let buf = new Uint8Array(Math.min(Math.max(sizeHint, 0), limit) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > limit) return null;
        const next = new Uint8Array(Math.min(buf.length * 2, limit + 1));
        next.set(buf);
        buf = next;
      }
      const got = await file.read(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    return n > limit ? null : buf.subarray(0, n);
  } finally {
    file.close();
  }
}
