/**
 * The `summary` report of a run (docs/ci.md): the run-summary document (docs/run-summary.md) as GitHub-flavoured
 * Markdown — the verdict, the per-prompt table (prompt, attempts, result, commit, time, steered/amended), the failing
 * checks of each prompt that did not pass in `<details>`, and the steering and amendment audit. Appended to
 * `$GITHUB_STEP_SUMMARY` under GitHub Actions. Pure.
 */
import type { RunSummary, SummaryPrompt } from "../events/mod.ts";
import { formatDuration } from "../util/time.ts";
import { caseName, checksText, junitOutcome } from "./junit.ts";
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

/** A table cell: pipes escaped, line breaks folded, so a name cannot break the table. */
function cell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
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

function verdictOf(s: RunSummary): string {
  if (s.status === "completed") return `✅ ${s.status}`;
  return `❌ ${s.status}${s.reason ? `: ${s.reason}` : ""}`;
}

function countsLine(s: RunSummary): string {
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
function auditSection(s: RunSummary, audit: readonly AuditEntry[] | null): string[] {
  const out = ["### Steering and amendments", ""];
  const touched = s.prompts.filter((p) => p.steered || p.amended);
  if (touched.length === 0 && (audit === null || audit.length === 0)) {
    return [...out, "No steers and no contract amendments in this run.", ""];
  }
  if (audit !== null && audit.length > 0) {
    out.push("| Prompt | When | Who | What |", "| --- | --- | --- | --- |");
    for (const a of audit) {
      const line = a.what.split(/\r?\n/)[0] ?? "";
      const text = line.length > AUDIT_TEXT_MAX ? `${line.slice(0, AUDIT_TEXT_MAX - 1)}…` : line;
      out.push(`| ${cell(a.prompt)} | ${cell(a.at)} | ${cell(a.author)} | ${a.kind}: ${cell(text)} |`);
    }
  } else {
    out.push("| Prompt | Steers delivered | Contract amendments |", "| --- | --- | --- |");
    for (const p of touched) out.push(`| ${cell(caseName(p))} | ${p.steer_count} | ${p.amendment_count} |`);
  }
  out.push("", "Each steer and amendment is on the run's audit log (`prompt_runner control log`).", "");
  return out;
}

/** The Markdown, ending with a newline; `audit` lists the run's steers and amendments (null: counts only). */
export function summaryMarkdown(s: RunSummary, audit: readonly AuditEntry[] | null = null): string {
  const time = s.duration_ms === null ? "" : ` · ${formatDuration(s.duration_ms)}`;
  const exit = s.exit_code === null ? "" : ` · exit ${s.exit_code}`;
  const out = [
    `## prompt_runner: ${cell(s.packet)} — ${verdictOf(s)}`,
    "",
    `Run ${code(s.run_id ?? "—")}${exit}${time} · ${countsLine(s)}`,
    "",
  ];
  if (s.prompts.length > 0) {
    out.push("| Prompt | Attempts | Result | Commit | Time | Steered / amended |");
    out.push("| --- | --- | --- | --- | --- | --- |");
    for (const p of s.prompts) {
      const time = p.duration_ms === null ? "—" : formatDuration(p.duration_ms);
      const attempts = p.path === "" ? "—" : p.path; // the modes of the attempts, as the summary table shows them
      out.push(
        `| ${cell(caseName(p))} | ${cell(attempts)} | ${resultOf(p)} | ${commitOf(p)} | ${time} | ${marksOf(p)} |`,
      );
    }
    out.push("");
  }
  const failing = s.prompts.filter((p) => junitOutcome(p) === "failure" || junitOutcome(p) === "error");
  if (failing.length > 0) {
    out.push("### Failing checks", "");
    for (const p of failing) out.push(...failureDetails(p));
  }
  out.push(...auditSection(s, audit));
  return out.join("\n");
}
