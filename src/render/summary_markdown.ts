/**
 * The `summary` report of a run (docs/ci.md): the run-summary document (docs/run-summary.md) as GitHub-flavoured
 * Markdown — the verdict, the per-prompt table (prompt, attempts, result, commit, time, steered/amended), the failing
 * checks of each prompt that did not pass in `<details>`, and the steering and amendment audit. Appended to
 * `$GITHUB_STEP_SUMMARY` under GitHub Actions. Pure.
 */
import type { RunSummary, RunSummaryStream, SummaryPrompt } from "../events/mod.ts";
import { formatDuration } from "../util/time.ts";
import { caseName, checksText, junitOutcome, wholeSummaryStream } from "./junit.ts";
import { promptCounts } from "./summary_table.ts";

/** One steer or contract amendment of the run, from the audit records (src/run/reports.ts `runAudit()`). */
export interface AuditEntry {
  prompt: string;
  kind: "steer" | "amendment";
  at: string;
  author: string;
  /** The steer's text (its first line), or the amendment's `relax commands drop: <reason>`. */
  what: string;
}

/** Longest audit text shown in a cell. */
const AUDIT_TEXT_MAX = 100;

/**
 * Text from a packet, an agent or an operator, inline (a table cell, the heading): pipes escaped and line breaks folded
 * so it cannot break the table; `<`, `>` and `&` as entities so it cannot open HTML (a `<!--` would hide the rest of
 * the summary, a `</details>` would end a section); brackets escaped so it cannot make a link or an image.
 */
function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r\n|\r|\n/g, " ")
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/([[\]])/g, "\\$1");
}

/** Inline code that holds any backtick run safely. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** HTML text (for `<summary>`). */
function html(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

const MARK: Record<ReturnType<typeof junitOutcome>, string> = {
  passed: "✅",
  failure: "❌",
  error: "⛔",
  skipped: "⏭️",
};

function resultOf(p: SummaryPrompt): string {
  const words = p.preflight && p.status === "completed" ? "completed (pre-flight)" : p.status.replaceAll("_", " ");
  return `${MARK[junitOutcome(p)]} ${words}`;
}

function commitOf(p: SummaryPrompt): string {
  if (p.commits.length === 0) return "—";
  return p.commits.map((c) => (p.commits.length > 1 ? `${cell(c.repo)} ${code(c.short)}` : code(c.short))).join(", ");
}

function marksOf(p: SummaryPrompt): string {
  const marks: string[] = [];
  if (p.steered) marks.push(`steered ×${p.steer_count}`);
  if (p.amended) marks.push(`amended ×${p.amendment_count}`);
  if (p.vacuous) marks.push("vacuous");
  return marks.length > 0 ? marks.join(", ") : "—";
}

type Head = RunSummaryStream["head"];

function verdictOf(s: Head): string {
  if (s.status === "completed") return `✅ ${s.status}`;
  return `❌ ${s.status}${s.reason ? `: ${cell(s.reason)}` : ""}`;
}

function countsLine(s: Head): string {
  const c = s.counts;
  const words = promptCounts(s);
  const n = c.prompts;
  const prompts = `${n} ${n === 1 ? "prompt" : "prompts"}${words.length > 0 ? `: ${words}` : ""}`;
  return `${prompts} · ${c.attempts} ${c.attempts === 1 ? "attempt" : "attempts"}`;
}

/** The failing checks of the prompt's last verification, else its reason. */
function failureDetails(p: SummaryPrompt): string[] {
  const last = [...p.history].reverse().find((a) => a.verification !== null || a.checks.length > 0);
  const checks = last?.checks ?? [];
  const reason = p.reason ?? p.status.replaceAll("_", " ");
  const title = checks.length > 0
    ? `${caseName(p)} — ${p.status.replaceAll("_", " ")}: ${checks.length} ${checks.length === 1 ? "check" : "checks"}`
    : `${caseName(p)} — ${p.status.replaceAll("_", " ")}`;
  const body = checks.length > 0 ? checksText(checks) : reason;
  const fence = "`".repeat(Math.max(3, ...[...body.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)));
  return [`<details><summary>${html(title)}</summary>`, "", fence + "text", body, fence, "", "</details>", ""];
}

/** The steering and amendment audit: each record when the run's records were read, else the counts per prompt. */
function* auditSection(prompts: Iterable<SummaryPrompt>, audit: readonly AuditEntry[] | null): Generator<string> {
  yield "### Steering and amendments";
  yield "";
  if (audit !== null && audit.length > 0) {
    yield "| Prompt | When | Who | What |";
    yield "| --- | --- | --- | --- |";
    for (const a of audit) {
      const line = a.what.split(/\r?\n/)[0] ?? "";
      const text = line.length > AUDIT_TEXT_MAX ? `${line.slice(0, AUDIT_TEXT_MAX - 1)}…` : line;
      yield `| ${cell(a.prompt)} | ${cell(a.at)} | ${cell(a.author)} | ${a.kind}: ${cell(text)} |`;
    }
  } else {
    let touched = 0;
    for (const p of prompts) {
      if (!p.steered && !p.amended) continue;
      if (touched++ === 0) {
        yield "| Prompt | Steers delivered | Contract amendments |";
        yield "| --- | --- | --- |";
      }
      yield `| ${cell(caseName(p))} | ${p.steer_count} | ${p.amendment_count} |`;
    }
    if (touched === 0) {
      yield "No steers and no contract amendments in this run.";
      yield "";
      return;
    }
  }
  yield "";
  yield "Each steer and amendment is on the run's audit log (`prompt_runner control log`).";
  yield "";
}

/**
 * The Markdown's lines (joined with newlines, the last one empty: the text ends with a newline), in three passes over
 * the prompts — the table, the failing checks, the audit — each line made when it is reached, so a long run's
 * Markdown is never held whole. `keep` leaves prompts out of every part (the head's counts stay the run's).
 */
function* summaryMarkdownLines(
  s: RunSummaryStream,
  audit: readonly AuditEntry[] | null = null,
  keep: (p: SummaryPrompt) => boolean = () => true,
): Generator<string> {
  const head = s.head;
  function* prompts(): Generator<SummaryPrompt> {
    for (const p of s.prompts()) if (keep(p)) yield p;
  }
  const time = head.duration_ms === null ? "" : ` · ${formatDuration(head.duration_ms)}`;
  const exit = head.exit_code === null ? "" : ` · exit ${head.exit_code}`;
  yield `## prompt_runner: ${cell(head.packet)} — ${verdictOf(head)}`;
  yield "";
  yield `Run ${code(head.run_id ?? "—")}${exit}${time} · ${countsLine(head)}`;
  yield "";
  let rows = 0;
  for (const p of prompts()) {
    if (rows++ === 0) {
      yield "| Prompt | Attempts | Result | Commit | Time | Steered / amended |";
      yield "| --- | --- | --- | --- | --- | --- |";
    }
    const time = p.duration_ms === null ? "—" : formatDuration(p.duration_ms);
    const attempts = p.path === "" ? "—" : p.path; // the modes of the attempts, as the summary table shows them
    yield `| ${cell(caseName(p))} | ${cell(attempts)} | ${resultOf(p)} | ${commitOf(p)} | ${time} | ${marksOf(p)} |`;
  }
  if (rows > 0) yield "";
  let failing = 0;
  for (const p of prompts()) {
    const outcome = junitOutcome(p);
    if (outcome !== "failure" && outcome !== "error") continue;
    if (failing++ === 0) {
      yield "### Failing checks";
      yield "";
    }
    yield* failureDetails(p);
  }
  yield* auditSection(prompts(), audit);
}

/** The Markdown's text in pieces (each line with its newline but the last): {@link summaryMarkdownLines}. */
export function* summaryMarkdownPieces(
  s: RunSummaryStream,
  audit: readonly AuditEntry[] | null = null,
  keep?: (p: SummaryPrompt) => boolean,
): Generator<string> {
  let before: string | null = null;
  for (const line of summaryMarkdownLines(s, audit, keep)) {
    if (before !== null) yield before + "\n";
    before = line;
  }
  if (before !== null) yield before;
}

/** The Markdown, ending with a newline; `audit` lists the run's steers and amendments (null: counts only). */
export function summaryMarkdown(s: RunSummary, audit: readonly AuditEntry[] | null = null): string {
  return [...summaryMarkdownPieces(wholeSummaryStream(s), audit)].join("");
}
