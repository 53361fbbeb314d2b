/** `files_exist` and `files_absent` (docs/reference/contract.md §3). */
import { type ClauseEnv, fail, makeItem, pass, resolveEntry } from "./_common.ts";
import type { ReportItem } from "../types.ts";

/** Synchronous: a stat is cheaper than the hop to a worker thread and back that an asynchronous one costs. */
function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    throw e;
  }
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
    return makeItem(r.head, (r.ref.exists ?? pathExists(r.ref.resolved_path)) ? pass() : fail("missing"));
  });
}

/** `files_absent`: the path does not exist. Details `ok` / `present`. */
export function checkFileAbsent(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  return settled(() => {
    const r = resolveEntry("files_absent", "file_absent", entry, env, id);
    if (!r.ok) return r.item;
    return makeItem(r.head, (r.ref.exists ?? pathExists(r.ref.resolved_path)) ? fail("present") : pass());
  });
}
