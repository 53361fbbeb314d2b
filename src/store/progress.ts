/**
 * `progress.log` (docs/reference/runner.md §10.3): one `<id>:<completed|failed>:<ISO timestamp>[:<suffix>]` line per status
 * change, appended and fsynced; the latest line per id wins. The reader is strict so `--remaining` never silently
 * reruns everything.
 */
import { RunFailedError } from "../errors.ts";
import { storePaths } from "./paths.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { normalizePromptId } from "../util/ids.ts";
import { meterRead } from "../util/read_meter.ts";

/** A progress status. */
export type ProgressStatus = "completed" | "failed";

/** Latest progress record per prompt id. */
export type ProgressMap = Map<string, { status: ProgressStatus; at: string; suffix: string | null }>;

const NAMED_SUFFIXES = new Set(["no_commit", "no_changes", "noop", "no_session"]);

/** Whether a `:`-segment is a progress suffix: a named one, 7–40 hex chars, or the multi-repo `a=sha,b=sha` form. */
function isProgressSuffix(s: string): boolean {
  if (NAMED_SUFFIXES.has(s) || /^[0-9a-f]{7,40}$/i.test(s)) return true;
  return /^[^=,\s:]+=[^=,\s:]+(,[^=,\s:]+=[^=,\s:]+)*$/.test(s);
}

/** One parsed progress line (id normalised). */
export interface ProgressLine {
  id: string;
  status: ProgressStatus;
  at: string;
  suffix: string | null;
}

/** Parse one line; null when malformed. */
export function parseProgressLine(line: string): ProgressLine | null {
  const a = line.indexOf(":");
  const b = a < 0 ? -1 : line.indexOf(":", a + 1);
  if (b < 0) return null;
  const id = normalizePromptId(line.slice(0, a));
  const status = line.slice(a + 1, b);
  if (id === null || (status !== "completed" && status !== "failed")) return null;
  let rest = line.slice(b + 1);
  let suffix: string | null = null;
  const last = rest.lastIndexOf(":");
  if (last >= 0 && isProgressSuffix(rest.slice(last + 1))) {
    suffix = rest.slice(last + 1);
    rest = rest.slice(0, last);
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(rest) || Number.isNaN(Date.parse(rest))) return null;
  return { id, status, at: rest, suffix };
}

/**
 * Walk the non-blank lines of a progress file (a trailing `\r` dropped, surrounding blanks trimmed) and parse each
 * with {@link parseProgressLine}; the strict and the lenient reader share it so they cannot disagree on a line.
 * Returns how many non-blank lines there were.
 */
function walkProgress(
  text: string,
  onLine: (rec: ProgressLine | null, line: string, lineNo: number) => void,
): number {
  let seen = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") return;
    seen++;
    onLine(parseProgressLine(line.trim()), line, i + 1);
  });
  return seen;
}

function setLatest(map: ProgressMap, rec: ProgressLine): void {
  // Re-insert so iteration order follows the latest line per id.
  map.delete(rec.id);
  map.set(rec.id, { status: rec.status, at: rec.at, suffix: rec.suffix });
}

/** Parse the whole file text (strict). `path` is used in error messages. */
export function parseProgress(text: string, path: string): ProgressMap {
  const map: ProgressMap = new Map();
  const seen = walkProgress(text, (rec, line, lineNo) => {
    if (!rec) {
      throw new RunFailedError(
        "progress_store_invalid",
        `${path} line ${lineNo} is malformed: ${JSON.stringify(line.length > 120 ? line.slice(0, 120) + "…" : line)}`,
        { hints: [`expected <id>:<completed|failed>:<ISO timestamp>[:<suffix>]; fix the line or move ${path} aside`] },
      );
    }
    setLatest(map, rec);
  });
  if (seen === 0) {
    throw new RunFailedError("progress_store_invalid", `${path} is empty`, {
      hints: [`an existing progress file must hold at least one line; move ${path} aside to start over`],
    });
  }
  return map;
}

/** What {@link parseProgressLenient} read: the latest record per id and the first problem found, if any. */
export interface LenientProgress {
  latest: ProgressMap;
  /** `progress.log line N is malformed` (the first such line) or `progress.log is empty`; null when clean. */
  error: string | null;
}

/**
 * Parse the whole file text for readers that must never fail (`status`): the grammar and id normalisation of
 * {@link parseProgress}, but a malformed line is skipped and reported in `error` instead of thrown, so every record
 * it returns reads exactly as `run --remaining` and `list` read it.
 */
export function parseProgressLenient(text: string): LenientProgress {
  const latest: ProgressMap = new Map();
  let error: string | null = null;
  const seen = walkProgress(text, (rec, _line, lineNo) => {
    if (rec) setLatest(latest, rec);
    else error ??= `progress.log line ${lineNo} is malformed`;
  });
  if (seen === 0) error = "progress.log is empty";
  return { latest, error };
}

/** Whether a progress suffix names commits (`<sha>` or `app=<sha>,lib=<sha>`) rather than an outcome like `no_changes`. */
export function suffixNamesCommits(suffix: string | null): boolean {
  if (!suffix) return false;
  return /^[0-9a-f]{7,40}$/i.test(suffix) || suffix.split(",").every((p) => /^[^=,]+=[0-9a-f]{7,40}$/i.test(p));
}

/**
 * The latest commit-naming suffix of each id's `completed` lines, from the whole progress file text (`list` shows the
 * commit of a prompt whose rerun changed nothing; docs/status.md). Malformed lines are skipped.
 */
export function lastCommits(text: string): Map<string, string> {
  const out = new Map<string, string>();
  walkProgress(text, (rec) => {
    if (rec?.status === "completed" && suffixNamesCommits(rec.suffix)) out.set(rec.id, rec.suffix!);
  });
  return out;
}

/** Read `<store>/progress.log`: missing file → empty map; empty or malformed → `progress_store_invalid` (exit 1). */
export async function readProgress(storeRoot: string): Promise<ProgressMap> {
  return (await readProgressAndCommits(storeRoot)).latest;
}

/** {@link readProgress} plus {@link lastCommits} of the same read. */
export async function readProgressAndCommits(
  storeRoot: string,
): Promise<{ latest: ProgressMap; commits: Map<string, string> }> {
  const path = storePaths(storeRoot).progress;
  const text = await readStoreTextOrNull(path);
  meterRead("progress", text?.length ?? 0);
  if (text === null) return { latest: new Map(), commits: new Map() };
  return { latest: parseProgress(text, path), commits: lastCommits(text) };
}

/** Format one progress line (without newline). */
export function formatProgressLine(id: string, status: ProgressStatus, at: string, suffix: string | null): string {
  return `${id}:${status}:${at}${suffix ? `:${suffix}` : ""}`;
}
