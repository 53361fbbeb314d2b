/**
 * What an operator is shown about the checks that did not pass (docs/reference/contract.md §7, docs/run-summary.md):
 * per check its clause, its subject (path, command or repo), the verdict's first line (expected vs found), and for
 * multi-line details — a failing command's output — the last lines, bounded and with control characters escaped.
 * Pure: the retry/repair lines of `run`, the human form of `verify` and the `verification_finished` event use it.
 */
import { escapeControl } from "../util/escape.ts";
import type { ReportItem, VerifyReport } from "./types.ts";
import type { CheckNote } from "../events/mod.ts";

export { checkHeadline, type CheckNote, checkNoteLines } from "../events/mod.ts";

/** Lines of a failing check's output shown by default (`verify --verbose` shows {@link VERBOSE_TAIL_LINES}). */
export const TAIL_LINES = 8;
/** Lines of a failing check's output shown by `verify --verbose`. */
export const VERBOSE_TAIL_LINES = 40;
/** Longest line shown (longer ones end in `…`). */
const LINE_MAX = 200;

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;
const TRUNCATED = /^\[output truncated: \d+ earlier bytes dropped\]$/;

/** One line of untrusted output made safe for a terminal: escapes removed, tabs expanded, controls shown escaped. */
export function sanitizeLine(line: string): string {
  const clean = escapeControl(line.replace(ANSI, "").replaceAll("\t", "  ").replace(/\r$/, ""));
  return clean.length > LINE_MAX ? `${clean.slice(0, LINE_MAX - 1)}…` : clean;
}

/** The subject of an item: its path, else its command, else its repo. */
function subjectOf(item: ReportItem): string {
  if (typeof item.path === "string" && item.path !== "" && item.kind !== "repos_clean") return item.path;
  if (typeof item.command === "string" && item.command !== "") return item.command;
  return item.repo ?? "";
}

/** A verdict that names only what was found gets what was expected: `exit 3 (expected 0)`, `present (expected absent)`. */
function withExpectation(clause: string, detail: string): string {
  if (clause === "commands" && /^exit \d+$/.test(detail)) return `${detail} (expected 0)`;
  if (clause === "files_absent" && detail === "present") return "present (expected absent)";
  return detail;
}

/** The note of one non-passing item; `tailLines` bounds its output tail. */
export function checkNote(item: ReportItem, tailLines = TAIL_LINES): CheckNote {
  const lines = item.details.replace(/\s+$/, "").split("\n");
  let truncated = false;
  if (lines.length > 1 && TRUNCATED.test(lines[0]!)) {
    lines.shift();
    truncated = true;
  }
  const rest = lines.slice(1);
  while (rest.length > 0 && rest[0]!.trim() === "") rest.shift();
  const tail = rest.slice(-Math.max(0, tailLines));
  return {
    id: item.id,
    clause: item.clause,
    subject: sanitizeLine(subjectOf(item)),
    status: item.status === "fault" ? "fault" : "fail",
    detail: withExpectation(item.clause, sanitizeLine(lines[0] ?? "")),
    tail: tail.map(sanitizeLine),
    omitted: rest.length - tail.length + (truncated ? 1 : 0),
  };
}

/** Notes for every check of a report that did not pass, in report order. */
export function checkNotes(report: VerifyReport, tailLines = TAIL_LINES): CheckNote[] {
  return report.items.filter((i) => i.status !== "pass").map((i) => checkNote(i, tailLines));
}
