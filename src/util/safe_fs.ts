/**
 * Store integrity (docs/store.md): every file and directory the runner writes, appends or reads under a store root
 * is checked with `lstat` first and a symlink or a non-regular file is refused with an error naming the path. New
 * files are created with `createNew` (O_CREAT|O_EXCL never follows a final symlink); an existing file opened for
 * append is compared by `fstat` of the handle against `lstat` of the path (dev and inode) before a byte is written.
 * The store root must be owned by the runner's user and is tightened to 0700. Reading is safe_read.ts.
 */
import { EXIT, PromptRunnerError } from "../errors.ts";
import {
  type AtomicOpts,
  atomicWriteChunks,
  atomicWriteText,
  atomicWriteTextSync,
  DIR_MODE,
  FILE_MODE,
  prettyJson,
} from "./fs.ts";

/** A store path that is a symlink or of the wrong kind, or a store root owned by another user (exit 1). */
export class StoreIntegrityError extends PromptRunnerError {
  /** The offending path. */
  readonly path: string;
  constructor(path: string, message: string) {
    super("store_integrity", message, EXIT.store_integrity, {
      details: { path },
      hints: ["the store root and everything in it must be plain files and directories owned by this user"],
    });
    this.path = path;
  }
}

type Kind = "file" | "dir";

function describe(info: Deno.FileInfo): string {
  if (info.isSymlink) return "a symbolic link";
  if (info.isDirectory) return "a directory";
  if (info.isFile) return "a regular file";
  return "a special file (FIFO, socket or device)";
}

function refuse(path: string, info: Deno.FileInfo, want: Kind): StoreIntegrityError {
  const expected = want === "dir" ? "a directory" : "a regular file";
  return new StoreIntegrityError(
    path,
    `refusing store path ${path}: it is ${describe(info)}, expected ${expected} (the runner never follows a link ` +
      `or writes through a special file in its store)`,
  );
}

function kindOk(info: Deno.FileInfo, want: Kind): boolean {
  return !info.isSymlink && (want === "dir" ? info.isDirectory : info.isFile);
}

/**
 * The refusal for a store path under something that is not a directory (the store root itself a regular file, say):
 * names the first component on the way that is not a directory.
 */
function notUnderDirectory(path: string): StoreIntegrityError {
  let dir = path;
  for (;;) {
    const up = dir.slice(0, dir.lastIndexOf("/"));
    if (up === "" || up === dir) break;
    dir = up;
    try {
      const info = Deno.lstatSync(dir);
      if (!info.isDirectory) {
        return new StoreIntegrityError(
          path,
          `refusing store path ${path}: ${dir} is ${describe(info)}, expected a directory`,
        );
      }
      break;
    } catch { /* keep going up */ }
  }
  return new StoreIntegrityError(path, `refusing store path ${path}: a component on its way is not a directory`);
}

/** `lstat` a store path: null when absent; throws {@link StoreIntegrityError} when it is a symlink or another kind. */
export function lstatStoreSync(path: string, want: Kind): Deno.FileInfo | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    if (e instanceof Deno.errors.NotADirectory) throw notUnderDirectory(path);
    throw e;
  }
  if (!kindOk(info, want)) throw refuse(path, info, want);
  return info;
}

/** Asynchronous {@link lstatStoreSync}. */
export async function lstatStore(path: string, want: Kind): Promise<Deno.FileInfo | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    if (e instanceof Deno.errors.NotADirectory) throw notUnderDirectory(path);
    throw e;
  }
  if (!kindOk(info, want)) throw refuse(path, info, want);
  return info;
}

const warned = new Set<string>();
let warnSink: (line: string) => void = (line) => {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
  } catch { /* stderr closed */ }
};

/** Redirect store warnings (tests, renderers); returns the previous sink. */
export function setStoreWarningSink(sink: (line: string) => void): (line: string) => void {
  const prev = warnSink;
  warnSink = sink;
  return prev;
}

let uid: number | null | undefined;

/** This process's user id (asked once: it does not change), or null where there is none. */
function uidOf(): number | null {
  if (uid === undefined) {
    try {
      uid = Deno.uid();
    } catch {
      uid = null;
    }
  }
  return uid;
}

/**
 * Create (or accept) a store root: it must be a real directory (not a symlink) owned by this user; a looser mode
 * than 0700 is tightened with one warning per process. Throws {@link StoreIntegrityError} otherwise.
 */
export function secureStoreRootSync(root: string): void {
  // The `lstat` first: a root already there (every verification of a run) costs no `mkdir` (docs/bench.md).
  let info = lstatStoreSync(root, "dir");
  if (info === null) {
    try {
      Deno.mkdirSync(root, { recursive: true, mode: DIR_MODE });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    info = Deno.lstatSync(root);
  }
  if (!kindOk(info, "dir")) throw refuse(root, info, "dir");
  const me = uidOf();
  if (me !== null && info.uid !== null && info.uid !== me) {
    throw new StoreIntegrityError(
      root,
      `refusing store root ${root}: it is owned by uid ${info.uid}, not by this user (uid ${me})`,
    );
  }
  const mode = (info.mode ?? 0) & 0o7777;
  if (info.mode !== null && mode !== DIR_MODE) {
    Deno.chmodSync(root, DIR_MODE);
    if (mode & 0o077 && !warned.has(root)) {
      warned.add(root);
      warnSink(`warning: store root ${root} had mode ${mode.toString(8).padStart(4, "0")}; tightened to 0700`);
    }
  }
}

/** Asynchronous {@link secureStoreRootSync} (the work is a few syscalls). */
export function secureStoreRoot(root: string): Promise<void> {
  try {
    secureStoreRootSync(root);
    return Promise.resolve();
  } catch (e) {
    return Promise.reject(e);
  }
}

function relativeParts(root: string, dir: string): string[] {
  const r = root.replace(/\/+$/, "");
  const d = dir.replace(/\/+$/, "");
  if (d === r) return [];
  if (!d.startsWith(r + "/")) throw new Error(`internal: ${dir} is not under the store root ${root}`);
  return d.slice(r.length + 1).split("/").filter((s) => s !== "" && s !== ".");
}

/**
 * Create `dir` under the store `root` one component at a time (0700), refusing any component that is a symlink or
 * not a directory, and tightening a looser mode. The root itself is checked too (not a symlink, a directory).
 */
export function ensureStoreDirSync(root: string, dir: string): void {
  const parts = relativeParts(root, dir);
  let cur = root.replace(/\/+$/, "");
  const rootInfo = lstatStoreSync(cur, "dir");
  if (rootInfo === null) Deno.mkdirSync(cur, { recursive: true, mode: DIR_MODE });
  for (const part of parts) {
    cur = `${cur}/${part}`;
    // The `lstat` first: a directory already there (every attempt's `logs/`) costs no `mkdir` and no thrown error.
    let info = lstatStoreSync(cur, "dir");
    if (info === null) {
      try {
        Deno.mkdirSync(cur, { mode: DIR_MODE });
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      }
      info = lstatStoreSync(cur, "dir");
    }
    if (info && info.mode !== null && info.mode & 0o077) Deno.chmodSync(cur, DIR_MODE);
  }
}

/** Asynchronous {@link ensureStoreDirSync}. */
export function ensureStoreDir(root: string, dir: string): Promise<void> {
  try {
    ensureStoreDirSync(root, dir);
    return Promise.resolve();
  } catch (e) {
    return Promise.reject(e);
  }
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * Open a store file read-write for appending without following a link: absent → created with `createNew` (0600);
 * present → it must be a regular file, and after opening the handle's `fstat` must match the path's `lstat`.
 * `fresh`: the path is expected not to exist yet (an attempt's new log), so the `createNew` is tried first — it never
 * follows a link nor opens anything already there — and the `lstat` before it, which would fail, is not made; when
 * something is there after all, the ordinary checks run.
 */
export function openStoreFileSync(path: string, opts: { fresh?: boolean } = {}): Deno.FsFile {
  if (opts.fresh) {
    let file: Deno.FsFile | null = null;
    try {
      file = Deno.openSync(path, { read: true, append: true, createNew: true, mode: FILE_MODE });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
    if (file !== null) {
      verifyHandle(path, file);
      return file;
    }
  }
  for (let tries = 0; tries < 3; tries++) {
    const before = lstatStoreSync(path, "file");
    let file: Deno.FsFile;
    if (before === null) {
      try {
        file = Deno.openSync(path, { read: true, append: true, createNew: true, mode: FILE_MODE });
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists) continue; // appeared meanwhile: check what it is
        throw e;
      }
    } else {
      // O_RDWR: opening a FIFO swapped in after the lstat does not block (write-only would wait for a reader).
      file = Deno.openSync(path, { read: true, append: true });
    }
    verifyHandle(path, file);
    return file;
  }
  throw new StoreIntegrityError(path, `refusing store path ${path}: it keeps changing while being opened`);
}

/**
 * Create a new store file for appending (`createNew`, 0600: never follows a link nor opens anything already there),
 * checked like {@link openStoreFileSync}; null when something is already at `path` (the caller picks another name).
 */
export function createStoreFileSync(path: string): Deno.FsFile | null {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true, append: true, createNew: true, mode: FILE_MODE });
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return null;
    throw e;
  }
  verifyHandle(path, file);
  return file;
}

/** Asynchronous {@link openStoreFileSync}. */
export async function openStoreFile(path: string): Promise<Deno.FsFile> {
  for (let tries = 0; tries < 3; tries++) {
    const before = await lstatStore(path, "file");
    let file: Deno.FsFile;
    if (before === null) {
      try {
        file = await Deno.open(path, { read: true, append: true, createNew: true, mode: FILE_MODE });
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists) continue;
        throw e;
      }
    } else {
      file = await Deno.open(path, { read: true, append: true });
    }
    verifyHandle(path, file);
    return file;
  }
  throw new StoreIntegrityError(path, `refusing store path ${path}: it keeps changing while being opened`);
}

/** Throw (closing `file`) unless the open handle is the regular file the path names right now. */
export function verifyHandle(path: string, file: Deno.FsFile): void {
  try {
    const fst = file.statSync();
    const lst = Deno.lstatSync(path);
    if (!kindOk(lst, "file")) throw refuse(path, lst, "file");
    if (!fst.isFile || !sameFile(fst, lst)) {
      throw new StoreIntegrityError(path, `refusing store path ${path}: it was replaced while being opened`);
    }
  } catch (e) {
    file.close();
    throw e;
  }
}

function encodeLine(line: string, afterTornTail = false): Uint8Array {
  return new TextEncoder().encode((afterTornTail ? "\n" : "") + (line.endsWith("\n") ? line : line + "\n"));
}

/**
 * Whether the file (opened for reading and appending) ends in the middle of a line: a crash mid-append leaves a
 * torn last line, and a record appended straight after it would be glued onto it — one undecodable line that every
 * reader skips, so the new record (an amendment, a log entry) would be lost although its writer reported it written.
 */
function tornTail(file: Deno.FsFile): boolean {
  // Two system calls on each append (no fstat): seek to the last byte and read it; an empty file cannot be torn.
  try {
    file.seekSync(-1, Deno.SeekMode.End);
  } catch {
    return false; // empty: there is no byte before the end
  }
  const last = new Uint8Array(1);
  return file.readSync(last) === 1 && last[0] !== 0x0a;
}

/**
 * Append one line to a store file (one write on an O_APPEND handle; never through a link). The checks, the open and
 * the write are a few short system calls, made synchronously: each asynchronous one was a hop to a worker thread and
 * back, and a prompt makes about ten appends (docs/bench.md `scale`). Only the fsync, which can take milliseconds,
 * leaves the event loop free.
 */
export async function appendStoreLine(path: string, line: string, opts: { fsync?: boolean } = {}): Promise<void> {
  const file = openStoreFileSync(path);
  try {
    const bytes = encodeLine(line, tornTail(file));
    const n = file.writeSync(bytes);
    if (n !== bytes.length) throw new Error(`short append to ${path}: ${n} of ${bytes.length} bytes`);
    if (opts.fsync) await file.sync();
  } finally {
    file.close();
  }
}

/** Synchronous {@link appendStoreLine}. */
export function appendStoreLineSync(path: string, line: string, opts: { fsync?: boolean } = {}): void {
  const file = openStoreFileSync(path);
  try {
    const bytes = encodeLine(line, tornTail(file));
    const n = file.writeSync(bytes);
    if (n !== bytes.length) throw new Error(`short append to ${path}: ${n} of ${bytes.length} bytes`);
    if (opts.fsync) file.syncSync();
  } finally {
    file.close();
  }
}

/**
 * Replace a store document atomically (temp created with `createNew`, then rename). A symlink or a non-regular
 * file at the target is refused rather than silently replaced.
 */
export async function atomicWriteStoreText(path: string, text: string, opts: AtomicOpts = {}): Promise<void> {
  // Synchronous: one short system call, like every append's check, not a hop to the blocking pool and back.
  lstatStoreSync(path, "file");
  await atomicWriteText(path, text, opts);
}

/** {@link atomicWriteStoreText} of a document given as pieces, written as they come (`atomicWriteChunks()`). */
export async function atomicWriteStoreChunks(
  path: string,
  pieces: Iterable<string>,
  opts: AtomicOpts = {},
): Promise<void> {
  await lstatStore(path, "file");
  await atomicWriteChunks(path, pieces, opts);
}

/** Synchronous {@link atomicWriteStoreText}. */
function atomicWriteStoreTextSync(path: string, text: string, opts: AtomicOpts = {}): void {
  lstatStoreSync(path, "file");
  atomicWriteTextSync(path, text, opts);
}

/** {@link atomicWriteStoreText} of pretty JSON. */
export async function atomicWriteStoreJson(
  path: string,
  value: unknown,
  opts: AtomicOpts = {},
): Promise<void> {
  await atomicWriteStoreText(path, prettyJson(value), opts);
}

/** Synchronous {@link atomicWriteStoreJson}. */
export function atomicWriteStoreJsonSync(path: string, value: unknown, opts: AtomicOpts = {}): void {
  atomicWriteStoreTextSync(path, prettyJson(value), opts);
}

/** Create a store file with fixed content only when absent (`createNew`); an existing non-regular entry is refused. */
export function createStoreFileOnceSync(path: string, text: string): void {
  if (lstatStoreSync(path, "file") !== null) return;
  try {
    Deno.writeTextFileSync(path, text, { createNew: true, mode: FILE_MODE });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    lstatStoreSync(path, "file");
  }
}
