/** Helpers private to the clause modules: the clause environment, item construction and file reading. */
import { readCapped } from "../../util/fs.ts";
import type { Clause, ItemStatus, ReportItem, VerifyContext } from "../types.ts";
import { type EntryRef, parsePathString, type RepoIndex, type ResolvedRef, resolveRef } from "../paths.ts";
import { isRecord, validateEntry } from "../entries.ts";
import type { GitCache } from "../git.ts";
import { regexDeadlineMs } from "../regex_guard.ts";

/** What every clause evaluator receives besides its entry. */
export interface ClauseEnv {
  ctx: VerifyContext;
  repos: RepoIndex;
  /** Canonical default scope. */
  scope: string;
  /** The repo whose root equals or contains the default scope. */
  scopeRepo: string | null;
  /** Memo of read-only git queries (cleared after every command item). */
  git: GitCache;
}

/** Evaluates one entry of a clause into one report item. */
export type EntryEvaluator = (entry: unknown, env: ClauseEnv, id: string) => Promise<ReportItem>;

/** Identity fields at the head of an item. */
export type ItemHead = Pick<ReportItem, "id" | "clause" | "kind" | "repo" | "path" | "resolved_path">;

/** A verdict: status, details and (for faults) the fault kind. */
export interface Verdict {
  status: ItemStatus;
  details: string;
  fault?: "verifier_fault" | "verifier_timeout";
}

/** Build a report item with the head fields first and status/pass/fault/details last. */
export function makeItem(head: ItemHead, verdict: Verdict, extra: Record<string, unknown> = {}): ReportItem {
  const item: ReportItem = {
    id: head.id,
    clause: head.clause,
    kind: head.kind,
    repo: head.repo,
    status: verdict.status,
    pass: verdict.status === "pass",
    fault: verdict.status === "fault" ? (verdict.fault ?? "verifier_fault") : null,
    details: verdict.details,
  };
  const ordered: ReportItem = {
    id: item.id,
    clause: item.clause,
    kind: item.kind,
    repo: item.repo,
    ...(head.path !== undefined ? { path: head.path } : {}),
    ...(head.resolved_path !== undefined ? { resolved_path: head.resolved_path } : {}),
    ...extra,
    status: item.status,
    pass: item.pass,
    fault: item.fault,
    details: item.details,
  };
  return ordered;
}

/** Pass / fail shorthands. */
export const pass = (details = "ok"): Verdict => ({ status: "pass", details });
/** A failure verdict. */
export const fail = (details: string): Verdict => ({ status: "fail", details });
/** A fault verdict. */
export const fault = (details: string, kind: "verifier_fault" | "verifier_timeout" = "verifier_fault"): Verdict => ({
  status: "fault",
  details,
  fault: kind,
});

/** The entry reference of a path-bearing entry (string `name:rel` or `{repo?, path}`), or null when shapeless. */
export function refOf(entry: unknown, repos: RepoIndex): EntryRef | null {
  if (typeof entry === "string") return parsePathString(entry, repos);
  if (isRecord(entry) && typeof entry.path === "string") {
    return { repo: typeof entry.repo === "string" ? entry.repo : null, path: entry.path };
  }
  return null;
}

/**
 * Validate and resolve a path-bearing entry. Returns either the resolved reference or a finished failing item
 * (`invalid entry: …` or `unknown repo: <name>`).
 */
export function resolveEntry(
  clause: Clause,
  kind: string,
  entry: unknown,
  env: ClauseEnv,
  id: string,
): { ok: true; ref: ResolvedRef & { resolved_path: string }; head: ItemHead } | { ok: false; item: ReportItem } {
  const problem = validateEntry(clause, entry);
  const raw = refOf(entry, env.repos);
  if (raw === null || (problem !== null && !problemIsSemantic(problem))) {
    const repo = raw?.repo ?? env.scopeRepo;
    const head: ItemHead = { id, clause, kind, repo, ...(raw ? { path: raw.path } : {}) };
    return { ok: false, item: makeItem(head, fail(problem ?? `invalid entry for ${clause}`)) };
  }
  const ref = resolveRef(raw, env.repos, env.scope);
  const head: ItemHead = { id, clause, kind, repo: ref.repo, path: ref.path };
  if (ref.error !== undefined || ref.resolved_path === undefined) {
    return { ok: false, item: makeItem(head, fail(ref.error ?? `unknown repo: ${ref.repo}`)) };
  }
  head.resolved_path = ref.resolved_path;
  // Written inside a repo, led outside by a symlink: never evidence of the work, and never read.
  if (ref.escapes) return { ok: false, item: makeItem(head, fail(LEAVES_REPOS)) };
  return { ok: true, ref: { ...ref, resolved_path: ref.resolved_path }, head };
}

/** Details of a pattern search that passed its deadline (src/contract/regex_guard.ts). */
export function regexTimeout(pattern: string, where = ""): string {
  return `pattern /${pattern}/ did not finish within ${regexDeadlineMs()} ms${where} (catastrophic backtracking?)`;
}

/** Details of a path that a symlink leads out of every repo of the index (see `resolved_path` for where). */
export const LEAVES_REPOS = "a symlink leads this path out of the repositories";

/** Problems that the clause itself reports with its own details (not as a shape failure). */
function problemIsSemantic(problem: string): boolean {
  return problem === "source_absent requires at least one pattern";
}

/** Human reason of a read error. */
function readReason(e: unknown): string {
  if (e instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (e instanceof Deno.errors.IsADirectory) return "is a directory";
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\(os error \d+\)/, "").replace(/: (readfile|open|stat|read) .*$/, "");
}

/**
 * The largest file a content clause reads (`contains`, `matches`, `doc`, `yaml`, `json`, each file of
 * `source_absent`): a larger one, or a device that never ends, would be held in memory whole.
 */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/** `unreadable file (larger than 64 MiB)`. */
export function tooLargeReason(limit: number): string {
  return limit % (1024 * 1024) === 0 ? `larger than ${limit / (1024 * 1024)} MiB` : `larger than ${limit} bytes`;
}

/**
 * Read a file's bytes: `missing file` / `unreadable file (<reason>)` verdicts on error. Only a regular file is opened
 * (a FIFO would block the read for good, a device such as `/dev/zero` never ends), and only up to `limit` bytes.
 */
export async function readBytes(
  path: string,
  limit = MAX_READ_BYTES,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; verdict: Verdict }> {
  try {
    // The stat is synchronous (no worker-thread hop); the read stays asynchronous (a file may be large).
    const st = Deno.statSync(path);
    if (st.isDirectory) return { ok: false, verdict: fail("unreadable file (is a directory)") };
    if (!st.isFile) return { ok: false, verdict: fail("unreadable file (not a regular file)") };
    const bytes = st.size > limit ? null : await readCapped(path, limit, st.size);
    if (bytes === null) return { ok: false, verdict: fail(`unreadable file (${tooLargeReason(limit)})`) };
    return { ok: true, bytes };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { ok: false, verdict: fail("missing file") };
    return { ok: false, verdict: fail(`unreadable file (${readReason(e)})`) };
  }
}

const decoder = new TextDecoder();

/** Read a file as UTF-8 text with the same verdicts as {@link readBytes}. */
export async function readText(path: string): Promise<{ ok: true; text: string } | { ok: false; verdict: Verdict }> {
  const r = await readBytes(path);
  return r.ok ? { ok: true, text: decoder.decode(r.bytes) } : r;
}

/** The first line of an error message (parsers put code frames below it). */
export function firstLine(s: string): string {
  const i = s.indexOf("\n");
  return (i >= 0 ? s.slice(0, i) : s).trim();
}

/** Error message of an unknown thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
