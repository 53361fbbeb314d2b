/** `files_exist` and `files_absent` (docs/reference/contract.md §3). */
import { type ClauseEnv, fail, makeItem, pass, resolveEntry } from "./_common.ts";
import type { ReportItem } from "../types.ts";

async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    throw e;
  }
}

/** `files_exist`: the path exists (file or directory). Details `ok` / `missing`. */
export async function checkFileExists(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("files_exist", "file_exists", entry, env, id);
  if (!r.ok) return r.item;
  return makeItem(r.head, (await pathExists(r.ref.resolved_path)) ? pass() : fail("missing"));
}

/** `files_absent`: the path does not exist. Details `ok` / `present`. */
export async function checkFileAbsent(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("files_absent", "file_absent", entry, env, id);
  if (!r.ok) return r.item;
  return makeItem(r.head, (await pathExists(r.ref.resolved_path)) ? fail("present") : pass());
}
