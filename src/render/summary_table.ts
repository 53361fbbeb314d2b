/**
 * The human form of the run-summary document (docs/run-summary.md): a headline and one row per prompt — attempts as
 * `run → retry → repair`, result, commit, time and markers. Printed at the end of a human `run` and by
 * `status --summary`. Pure; colour only through the painter, so non-TTY and NO_COLOR output is plain and stable.
 */
import type { RunSummary, RunSummaryStream, SummaryPrompt } from "../events/mod.ts";
import { formatDuration } from "../util/time.ts";
import { painter } from "./ansi.ts";
import { padEnd, truncate } from "./text.ts";
import { escapeControl } from "../util/escape.ts";

/** Longest prompt name shown in the table. */
const NAME_MAX = 32;

/** Longest run of one mode written out; a longer one is written `retry ×4`. */
const SAME_MODE_MAX = 3;

/** The attempts column: the modes joined by `→` (`run → retry → repair`), long runs of one mode counted. */
function attemptsOf(p: SummaryPrompt): string {
  if (p.history.length === 0) return p.path === "" ? "—" : p.path;
  const parts: string[] = [];
  let i = 0;
  while (i < p.history.length) {
    const mode = p.history[i]!.mode;
    let n = 1;
    while (p.history[i + n]?.mode === mode) n++;
    if (n > SAME_MODE_MAX) parts.push(`${mode} ×${n}`);
    else for (let k = 0; k < n; k++) parts.push(mode);
    i += n;
  }
  return parts.join(" → ");
}

/** `completed`, `verification failed`, `not run`, … */
function resultOf(p: SummaryPrompt): string {
  return p.status.replaceAll("_", " ");
}

/** The commit column: the first commit's short sha, `+<n>` for more repos, `—` for none. */
function commitOf(p: SummaryPrompt): string {
  const [first, ...more] = p.commits;
  if (!first) return "—";
  return more.length > 0 ? `${first.short} +${more.length}` : first.short;
}

/** The markers of a prompt: steered, amended, vacuous, blocked, pre-flight, preserved, needs a commit. */
function notesOf(p: SummaryPrompt): string {
  const notes: string[] = [];
  if (p.steered) notes.push(`steered ×${p.steer_count}`);
  if (p.amended) notes.push(`amended ×${p.amendment_count}`);
  if (p.vacuous) notes.push("vacuous contract");
  if (p.blocked_by) notes.push(`blocked by ${p.blocked_by.join(", ")}`);
  if (p.preserved) notes.push("work preserved");
  if (p.needs_commit) notes.push("needs a commit");
  return notes.join(", ");
}

/** `2 completed, 1 failed` over the non-zero prompt counts. */
export function promptCounts(s: Pick<RunSummaryStream["head"], "counts">): string {
  const c = s.counts;
  const parts: string[] = [];
  const add = (n: number, label: string) => n > 0 && parts.push(`${n} ${label}`);
  add(c.completed, "completed");
  add(c.failed, "failed");
  add(c.blocked, "blocked");
  add(c.interrupted, "interrupted");
  add(c.running, "running");
  add(c.not_run, "not run");
  return parts.join(", ");
}

/** `4 attempts (3 run, 1 repair)`. */
function attemptCounts(s: RunSummaryStream["head"]): string {
  const c = s.counts;
  const kinds = (["run", "retry", "repair"] as const).filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return `${c.attempts} ${c.attempts === 1 ? "attempt" : "attempts"}${kinds.length ? ` (${kinds.join(", ")})` : ""}`;
}

/** The headline: `Run <id> completed in 2.4s · 2 prompts: 2 completed · 3 attempts (2 run, 1 repair)`. */
function headline(s: RunSummaryStream["head"]): string {
  const time = s.duration_ms === null ? "" : ` in ${formatDuration(s.duration_ms)}`;
  const n = s.counts.prompts;
  const prompts = `${n} ${n === 1 ? "prompt" : "prompts"}${n > 0 ? `: ${promptCounts(s)}` : ""}`;
  const exit = s.exit_code === null ? "" : ` · exit ${s.exit_code}`;
  return escapeControl(`Run ${s.run_id ?? "—"} ${s.status}${time} · ${prompts} · ${attemptCounts(s)}${exit}`);
}

/**
 * One prompt's cells: prompt, attempts, result, commit, time, notes — read from the packet and the store, so shown
 * with their control characters escaped (before the widths are measured and the result coloured).
 */
function cellsOf(q: SummaryPrompt): string[] {
  return [
    `${escapeControl(q.id)} ${truncate(escapeControl(q.name), NAME_MAX)}`,
    attemptsOf(q),
    resultOf(q),
    commitOf(q),
    q.duration_ms === null ? "—" : formatDuration(q.duration_ms),
    notesOf(q),
  ].map((c, i) => (i === 0 ? c : escapeControl(c)));
}

const HEAD = ["prompt", "attempts", "result", "commit", "time", "notes"];

/**
 * The table's lines (no newlines): the headline, a header row and one row per prompt. Two passes over the prompts —
 * the column widths, then the rows — so a long run's rows are written as they are made, never held together.
 */
export function* summaryTableLines(s: RunSummaryStream, color: boolean): Generator<string> {
  const p = painter(color);
  const widths = HEAD.map((h) => h.length);
  for (const q of s.prompts()) {
    cellsOf(q).forEach((c, i) => widths[i] = Math.max(widths[i]!, [...c].length));
  }
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : padEnd(c, widths[i]!))).join("  ");
  yield headline(s.head);
  yield p("dim", `  ${line(HEAD).trimEnd()}`);
  for (const q of s.prompts()) {
    const colour = q.status === "completed" ? "green" : q.status === "not_run" ? "dim" : "red";
    const painted = cellsOf(q).map((c, j) => (j === 2 ? p(colour, padEnd(c, widths[j]!)) : c));
    yield `  ${line(painted).trimEnd()}`;
  }
}

/** Write the table (ending with a newline) in pieces of about `chunk` characters. */
export function writeSummaryTable(
  s: RunSummaryStream,
  color: boolean,
  write: (text: string) => void,
  chunk = 64 * 1024,
): void {
  let buf = "";
  for (const l of summaryTableLines(s, color)) {
    buf += l + "\n";
    if (buf.length >= chunk) {
      write(buf);
      buf = "";
    }
  }
  if (buf.length > 0) write(buf);
}

/** The table, ending with a newline: the headline, a header row and one row per prompt. */
export function summaryTable(s: RunSummary, color: boolean): string {
  const { prompts, ...head } = s;
  return [...summaryTableLines({ head, prompts: () => prompts }, color)].join("\n") + "\n";
}
