/** The runner's exact human output lines (docs/reference/runner.md §3, §6, docs/reference/contract.md §8–§9). Pure string builders. */
import type { VerifyReport } from "../contract/mod.ts";
import { formatDelay } from "./budgets.ts";

/** `✓ Prompt 03 completed`. */
export function completedLine(id: string): string {
  return `✓ Prompt ${id} completed`;
}

/** The override notice of the decision table. */
export const OVERRIDE_LINE = "Provider reported an error, but the contract passes.";

/** Longest provider message shown on a retry line. */
const RETRY_MESSAGE_MAX = 240;

/**
 * `Retrying prompt 03 after provider_capacity (attempt 2, in 1.8s)…`, followed by ` — <the provider's own message>`
 * (first line, shortened) when there is one.
 */
export function retryLine(id: string, cls: string, nextAttempt: number, delayMs: number, message = ""): string {
  const base = `Retrying prompt ${id} after ${cls} (attempt ${nextAttempt}, in ${formatDelay(delayMs)})…`;
  const first = message.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  if (first === "") return base;
  return `${base} — ${first.length > RETRY_MESSAGE_MAX ? `${first.slice(0, RETRY_MESSAGE_MAX - 1)}…` : first}`;
}

/**
 * `Repairing prompt 03 (repair 1 of 2)…`, followed by ` — 2 checks failed` (or `1 check failed`, `the provider
 * failed` when the contract passed) when the verification report is known; the checks are listed under it.
 */
export function repairLine(id: string, n: number, max: number, report: VerifyReport | null = null): string {
  const base = `Repairing prompt ${id} (repair ${n} of ${max})…`;
  if (report === null) return base;
  const failed = report.items.filter((i) => i.status !== "pass").length;
  if (failed === 0) return `${base} — the provider failed; the contract passes`;
  return `${base} — ${failed} ${failed === 1 ? "check" : "checks"} failed:`;
}

/** `Verification failed for prompt 03`. */
export function verificationFailedLine(id: string): string {
  return `Verification failed for prompt ${id}`;
}

/** `✓ Prompt 03 already satisfies its contract; no session was started`. */
export function preflightCompletedLine(id: string): string {
  return `✓ Prompt ${id} already satisfies its contract; no session was started`;
}

/** Nothing-to-run line of `--remaining`. */
export const NOTHING_TO_RUN = "Nothing to run: every selected prompt is already completed.";

/**
 * The stderr block of a verifier fault (docs/reference/contract.md §8); `faults` are the fault lines without
 * indentation. `infra`: a check could not run (the advice to fix its command or environment follows); otherwise the
 * runner's own fault lines say what to do.
 */
export function faultBlock(id: string, faults: string[], infra = true): string[] {
  return [
    infra ? `error: the verifier could not run for prompt ${id}` : `error: no verdict stands for prompt ${id}`,
    ...faults.map((l) => `  ${l.replace(/^\s+/, "")}`),
    ...(infra
      ? [
        "  This is an infrastructure fault, not a failed check; no repair was attempted. Fix the command or its",
        "  environment, then run again with --remaining.",
      ]
      : ["  No repair was attempted."]),
  ];
}

/** The keep-going summary (docs/reference/runner.md §3). */
export function keepGoingSummary(failed: { id: string; reason: string }[]): string[] {
  return [
    `${failed.length} selected prompt(s) failed; all others were attempted:`,
    ...failed.map((f) => `  ${f.id}: ${f.reason}`),
  ];
}

/** Ensure a verification summary starts with `verification failed: `. */
export function verificationReason(summary: string): string {
  return summary.startsWith("verification failed") ? summary : `verification failed: ${summary}`;
}

/** Where each failed prompt's work was preserved (after the keep-going summary; docs/keep_going.md). */
export function preservedLines(works: { ref: string; prompt_id: string; repos: { repo: string }[] }[]): string[] {
  if (works.length === 0) return [];
  return [
    "Failed work is preserved (the next run of each prompt restores it first):",
    ...works.map((w) => `  ${w.prompt_id}: ${w.ref} (${w.repos.map((r) => r.repo).join(", ")})`),
  ];
}
