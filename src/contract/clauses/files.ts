/** `files_exist` and `files_absent` (docs/reference/contract.md §3). */
import { type ClauseEnv, fail, makeItem, pass, resolveEntry } from "./_common.ts";
import type { ReportItem } from "../types.ts";

/**
 * Whether `path` is there, following links as `stat` does; a string (the reason) when that cannot be told — a symlink
 * loop, a permission error. Synchronous: a stat is cheaper than the hop to a worker thread and back that an
 * asynchronous one costs.
 */
function pathExists(path: string): boolean | string {
  try {
    Deno.statSync(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    return statReason(e);
  }
}

/** Whether an entry of any kind — a dangling or looping symlink included — is at `path` itself (not followed). */
function entryAt(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (e) {
    return !(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory);
  }
}

function statReason(e: unknown): string {
  if (e instanceof Deno.errors.FilesystemLoop) return "a symlink loop";
  if (e instanceof Deno.errors.PermissionDenied) return "permission denied";
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\(os error \d+\)/, "").replace(/: stat .*$/, "");
}

/** A synchronous check as a promise: a throw becomes a rejection, as in an `async` function. */
function settled<T>(check: () => T): Promise<T> {
  try {
    return Promise.resolve(check());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** `files_exist`: the path exists (file or directory). Details `ok` / `missing`. */
export function checkFileExists(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  return settled(() => {
    const r = resolveEntry("files_exist", "file_exists", entry, env, id);
    if (!r.ok) return r.item;
    // The realpath that resolved the path already told whether it is there: no second call (docs/bench.md).
    const there = r.ref.exists ?? pathExists(r.ref.resolved_path);
    if (typeof there === "string") return makeItem(r.head, fail(`missing (${there})`));
    return makeItem(r.head, there ? pass() : fail("missing"));
  });
}

/** `files_absent`: the path does not exist. Details `ok` / `present`. */
export function checkFileAbsent(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  return settled(() => {
    const r = resolveEntry("files_absent", "file_absent", entry, env, id);
    if (!r.ok) return r.item;
    const there = r.ref.exists ?? pathExists(r.ref.resolved_path);
    if (there === true) return makeItem(r.head, fail("present"));
    if (typeof there === "string") return makeItem(r.head, fail(`present (${there})`));
    // Nothing to follow to, but a dangling symlink is still an entry the prompt left there.
    return makeItem(r.head, entryAt(r.ref.resolved_path) ? fail("present (a dangling symlink)") : pass());
  });
}
