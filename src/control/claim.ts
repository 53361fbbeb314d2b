/**
 * Claiming request entries (docs/control-protocol.md): Deno's `open` has no O_NONBLOCK/O_NOFOLLOW, so nothing in
 * `control/requests/` is ever opened where it lies. Each entry is first moved by `rename` into a claim directory
 * private to one consumer (`control/.claims/<owner>/`, 0700) — the rename is the single point that decides which
 * consumer owns it, so an entry gets exactly one outcome — then `lstat`ed there, and only a regular file whose
 * descriptor's inode matches is read (at most 64 KiB + 1 bytes). FIFOs, sockets, devices and symlinks are never
 * opened; they are unlinked (directories moved to `rejected/`).
 */
import { ensureStoreDirSync } from "../util/safe_fs.ts";
import { failpoint } from "../util/failpoint.ts";
import { MAX_REQUEST_BYTES } from "./request.ts";
import type { StorePaths } from "../store/mod.ts";

/** Longest accepted request file name in bytes (the CLI's names are about 46). */
const MAX_REQUEST_NAME_BYTES = 100;

/** Claim directories older than this whose owner is not a runner are adopted by the next runner (a crashed sweep). */
const ORPHAN_CLAIM_AGE_MS = 30_000;

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Why a request file name is refused, or null when it is usable (bounded length, portable characters). */
export function requestNameProblem(name: string): string | null {
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_REQUEST_NAME_BYTES) return `file name longer than ${MAX_REQUEST_NAME_BYTES} bytes (${bytes})`;
  if (name.startsWith(".")) return "hidden file name (starts with '.')";
  if (!SAFE_NAME.test(name)) return "file name has characters outside [A-Za-z0-9._-]";
  return null;
}

/** The claim directory root of a store. */
function claimsRoot(paths: StorePaths): string {
  return `${paths.control}/.claims`;
}

function fileType(st: Deno.FileInfo): string {
  if (st.isSymlink) return "symlink";
  if (st.isDirectory) return "directory";
  if (st.isFifo) return "fifo";
  if (st.isSocket) return "socket";
  if (st.isCharDevice) return "character device";
  if (st.isBlockDevice) return "block device";
  return st.isFile ? "file" : "unknown";
}

/** What a claimed entry turned out to be. */
export type ClaimedContent =
  | { kind: "gone" }
  | { kind: "not_file"; fileType: string; size: number; isDirectory: boolean }
  | { kind: "oversized"; size: number }
  | { kind: "bytes"; bytes: Uint8Array };

let claimSeq = 0;

/**
 * One read buffer for every claimed entry this process reads (the reads are synchronous, so two never interleave;
 * each result is a copy of exactly its bytes): a fresh 64 KiB buffer per request was an allocation the size of the
 * largest request on every request's path.
 */
let readBuffer: Uint8Array | null = null;

/** One consumer's claim directory. */
export class Claimer {
  readonly dir: string;
  readonly #paths: StorePaths;

  /** `owner` names the consumer (`runner-<pid>`, `sweep-<pid>-<rand>`); the directory is created 0700. */
  constructor(paths: StorePaths, owner: string) {
    this.#paths = paths;
    this.dir = `${claimsRoot(paths)}/${owner}`;
    // One level at a time, never through a link planted at `.claims/` (src/util/safe_fs.ts); modes tightened.
    ensureStoreDirSync(paths.root, this.dir);
  }

  /**
   * Move `requests/<name>` into this claim directory under `as` (default: the same name). Returns the claimed
   * path, or null when another consumer took it first (or it vanished).
   */
  claim(name: string, as: string = name): string | null {
    const to = `${this.dir}/${as}`;
    try {
      Deno.renameSync(`${this.#paths.requests}/${name}`, to);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
    failpoint("control.after_claim");
    return to;
  }

  /** A fresh safe name for an entry whose own name is refused. */
  static safeName(): string {
    claimSeq += 1;
    const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, "0");
    return `bad-${Deno.pid}-${claimSeq}-${rand}`;
  }

  /** Names currently in this claim directory (left by a failed or crashed pass), in byte order. */
  pending(): string[] {
    const out: string[] = [];
    try {
      for (const e of Deno.readDirSync(this.dir)) out.push(e.name);
    } catch { /* removed */ }
    return out.sort(byteOrder);
  }

  /**
   * Adopt the entries of other claim directories whose owners are gone: every `runner-*` directory (the caller
   * holds the run lease, so no other runner lives) and any other directory untouched for
   * {@link ORPHAN_CLAIM_AGE_MS}. Each entry is renamed into this directory (one winner) and the empty directory
   * removed. Returns the adopted names.
   */
  adoptOrphans(nowMs: number): string[] {
    const adopted: string[] = [];
    let dirs: Deno.DirEntry[];
    try {
      dirs = [...Deno.readDirSync(claimsRoot(this.#paths))];
    } catch {
      return adopted;
    }
    for (const d of dirs) {
      const dir = `${claimsRoot(this.#paths)}/${d.name}`;
      if (dir === this.dir || !d.isDirectory) continue;
      if (!d.name.startsWith("runner-")) {
        const m = safeLstat(dir)?.mtime?.getTime();
        if (m === undefined || nowMs - m < ORPHAN_CLAIM_AGE_MS) continue;
      }
      try {
        for (const e of Deno.readDirSync(dir)) {
          try {
            Deno.renameSync(`${dir}/${e.name}`, `${this.dir}/${e.name}`);
            adopted.push(e.name);
          } catch { /* taken by another adopter, or a name clash: left for later */ }
        }
        Deno.removeSync(dir);
      } catch { /* not empty or gone */ }
    }
    return adopted;
  }

  /** Read a claimed entry defensively: lstat, regular files only, inode match after open, bounded read. */
  read(path: string): ClaimedContent {
    const st = safeLstat(path);
    if (st === null) return { kind: "gone" };
    if (st.isSymlink || !st.isFile) {
      return { kind: "not_file", fileType: fileType(st), size: st.size, isDirectory: st.isDirectory };
    }
    if (st.size > MAX_REQUEST_BYTES) return { kind: "oversized", size: st.size };
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return { kind: "gone" };
      throw e;
    }
    try {
      const info = file.statSync();
      if (!info.isFile || (st.ino !== null && info.ino !== st.ino)) {
        return {
          kind: "not_file",
          fileType: `${fileType(info)} swapped in after lstat`,
          size: info.size,
          isDirectory: false,
        };
      }
      const buf = readBuffer ??= new Uint8Array(MAX_REQUEST_BYTES + 1);
      let off = 0;
      while (off < buf.length) {
        const n = file.readSync(buf.subarray(off));
        if (n === null || n === 0) break;
        off += n;
      }
      if (off > MAX_REQUEST_BYTES) return { kind: "oversized", size: off };
      return { kind: "bytes", bytes: buf.slice(0, off) };
    } finally {
      file.close();
    }
  }

  /**
   * Dispose of a claimed entry: unlink it (never following it), or move a directory to `rejected/` as
   * `<name>-<ms>` (a safe name when `name` is null).
   */
  discard(path: string, name: string | null = null): void {
    const st = safeLstat(path);
    if (st === null) return;
    if (st.isDirectory) {
      Deno.renameSync(path, `${this.#paths.rejected}/${name === null ? Claimer.safeName() : `${name}-${Date.now()}`}`);
      return;
    }
    if (st.isFifo || st.isSymlink) releaseFifoOpeners(path);
    try {
      Deno.removeSync(path);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }

  /** Remove the claim directory when it is empty (end of a sweep). */
  release(): void {
    try {
      Deno.removeSync(this.dir);
    } catch { /* not empty: adopted later */ }
  }
}

/**
 * Release any thread blocked opening the FIFO at `path` (or behind the symlink at `path`): `Deno.watchFs` on
 * `requests/` opens new entries from its own thread, and an open of a FIFO blocks until a writer appears — after
 * which closing the watcher (at the end of the run) would wait forever. Opening read+write never blocks on Linux
 * and counts as the missing partner; nothing is read or written. Only done when the path resolves to a FIFO.
 */
export function releaseFifoOpeners(path: string): void {
  try {
    if (!Deno.statSync(path).isFifo) return;
    Deno.openSync(path, { read: true, write: true }).close();
  } catch { /* gone, dangling, or not openable: nothing can be blocked on it by us */ }
}

function safeLstat(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

/** Byte order of two names (code units of ASCII names). */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
