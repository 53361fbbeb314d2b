/**
 * Reading the store safely (docs/store.md): whole documents and follower handles, each refused by name when the path
 * is a symlink, FIFO or directory, and checked against the regular file the path names once open. The writing side is
 * safe_fs.ts.
 */
import { lstatStoreSync, StoreIntegrityError, verifyHandle } from "./safe_fs.ts";
import { concatBytes } from "./bytes.ts";

/**
 * Whether the process may write `path` now. A query never prompts: a read-only command (its write permission
 * revoked, so "prompt" in a terminal) must not ask the person at the terminal before every read.
 */
function mayWrite(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Open an existing store file for reading. Read-write when the process may write there: opening a FIFO swapped in
 * after the `lstat` then does not block, and the handle check refuses it before a read could.
 */
function openForRead(path: string): Deno.FsFile {
  if (!mayWrite(path)) return Deno.openSync(path, { read: true });
  try {
    return Deno.openSync(path, { read: true, write: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      return Deno.openSync(path, { read: true });
    }
    throw e;
  }
}

/**
 * One read buffer for every synchronous whole-file read of this process. The reads are synchronous, so two never
 * interleave; each result is a copy of exactly its bytes. (A fresh 64 KiB buffer per read call was two zeroed 64 KiB
 * allocations per small document: on the Control API's path, four documents per call.)
 */
let scratch: Uint8Array | null = null;

function readAllSync(file: Deno.FsFile): Uint8Array {
  const buf = scratch ??= new Uint8Array(65536);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const n = file.readSync(buf);
    if (n === null || n === 0) break;
    chunks.push(buf.slice(0, n));
    total += n;
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks, total);
}

/**
 * Read a store file, or null when absent. A symlink, FIFO or directory is refused by name (a FIFO would block a
 * read); the open handle must be the regular file the path names (a legitimate atomic replacement is retried).
 */
export function readStoreTextOrNullSync(path: string): string | null {
  const bytes = readStoreBytesOrNullSync(path);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** The bytes of a store file, or null when absent; checked as {@link readStoreTextOrNullSync}. */
export function readStoreBytesOrNullSync(path: string): Uint8Array | null {
  for (let tries = 0; tries < 3; tries++) {
    let file: Deno.FsFile | null;
    try {
      file = openStoreReaderSync(path);
    } catch (e) {
      if (e instanceof StoreIntegrityError && /replaced/.test(e.message)) continue; // renamed over: read again
      throw e;
    }
    if (file === null) return null;
    try {
      return readAllSync(file);
    } finally {
      file.close();
    }
  }
  throw new StoreIntegrityError(path, `refusing store path ${path}: it keeps changing while being read`);
}

/**
 * Open a store file for reading (followers), or null when absent. A FIFO, symlink or directory is refused by name
 * before any open (a read-only open of a FIFO blocks until a writer appears), and the handle must be the regular
 * file the path names. Residual: without write permission the open is read-only, so a FIFO swapped in between the
 * `lstat` and the open can still block it.
 */
export function openStoreReaderSync(path: string): Deno.FsFile | null {
  if (lstatStoreSync(path, "file") === null) return null;
  let file: Deno.FsFile;
  try {
    file = openForRead(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  try {
    verifyHandle(path, file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null; // removed between the open and the check
    throw e;
  }
  return file;
}

/** Asynchronous {@link readStoreTextOrNullSync} (store documents are small; the read is synchronous). */
export function readStoreTextOrNull(path: string): Promise<string | null> {
  try {
    return Promise.resolve(readStoreTextOrNullSync(path));
  } catch (e) {
    return Promise.reject(e);
  }
}
