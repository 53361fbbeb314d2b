/** Human summaries of a verifier report: the one-line summary (docs/reference/contract.md §7) and fault lines (§8). */
import type { ReportItem, VerifyReport } from "./types.ts";

/** The first line of details, skipping a leading `[output truncated: …]` marker so the headline shows. */
function firstLineOf(s: string): string {
  const lines = s.split("\n");
  const first = lines[0] ?? "";
  return /^\[output truncated: \d+ earlier bytes dropped\]$/.test(first) && lines.length > 1 ? lines[1]! : first;
}

/** The subject of an item in summaries: its path, else its command, else its repo. */
function itemSubject(item: ReportItem): string {
  if (typeof item.path === "string" && item.path !== "" && item.kind !== "repos_clean") return item.path;
  if (typeof item.command === "string" && item.command !== "") return item.command;
  return item.repo ?? "";
}

/** `<kind> <path|command|repo>: <first line of details>` for one item. */
export function itemLine(item: ReportItem): string {
  return `${item.kind} ${itemSubject(item)}: ${firstLineOf(item.details)}`;
}

/** The non-passing items of a report joined by `; ` (the part after the prefix of {@link reportSummary}). */
function failingItemsSummary(report: VerifyReport): string {
  return report.items.filter((i) => i.status !== "pass").map(itemLine).join("; ");
}

/**
 * The one-line summary: `verification failed: file_exists hello.meta.txt: missing` for a failed report,
 * `verifier fault: …` for a faulted one, `verification passed` for a pass.
 */
export function reportSummary(report: VerifyReport): string {
  if (report.status === "pass") return "verification passed";
  const prefix = report.status === "fault" ? "verifier fault" : "verification failed";
  return `${prefix}: ${failingItemsSummary(report)}`;
}

/** The fault line of one faulted item (docs/reference/contract.md §8 formats). */
function faultLine(item: ReportItem): string {
  const fault = item.fault ?? "verifier_fault";
  if (item.kind === "command") {
    const code = typeof item.exit_code === "number" ? String(item.exit_code) : "-";
    const cwd = typeof item.cwd === "string" && item.cwd !== "" ? item.cwd : "?";
    return `${fault} exit=${code} (${firstLineOf(item.details)}) cwd=${cwd} command=${
      JSON.stringify(item.command ?? "")
    }`;
  }
  return `${fault} ${item.kind} ${itemSubject(item)}: ${firstLineOf(item.details)}`;
}

/**
 * One fault line per faulted item (docs/reference/contract.md §8), then each fault the runner gave the verdict itself
 * (a contract amended during every verification, one its own session edited: `faults` entries that are no item id).
 */
export function faultLines(report: VerifyReport): string[] {
  const ids = new Set(report.items.map((i) => i.id));
  return [
    ...report.items.filter((i) => i.status === "fault").map(faultLine),
    ...report.faults.filter((f) => !ids.has(f)),
  ];
}
