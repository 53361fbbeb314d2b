/** The repair prompt (docs/reference/runner.md §8): the original body followed by a repair section in a fixed format. */
import type { ReportItem, VerifyReport } from "../contract/mod.ts";

/** The orientation paragraph of every repair section. */
const REPAIR_ORIENTATION =
  "The previous session ended, and its changes are still in the workspace. Continue from the current state and fix\n" +
  "only the unmet checks below. Do not redo work that already passes, and do not edit or weaken the checks.";

const MAX_DETAIL_LINES = 40;

function detailBlock(details: string): string[] {
  let lines = details.replace(/\n+$/, "").split("\n");
  const out: string[] = [];
  if (lines.length > MAX_DETAIL_LINES) {
    const omitted = lines.length - MAX_DETAIL_LINES;
    lines = lines.slice(-MAX_DETAIL_LINES);
    out.push(`      [… ${omitted} earlier lines omitted]`);
  }
  for (const l of lines) out.push(`      ${l}`);
  return out;
}

function itemBlock(item: ReportItem): string[] {
  const out = [`- ${item.id}`];
  const field = (name: string, v: unknown) => {
    if (typeof v === "string" && v !== "") out.push(`  ${name}: ${v}`);
  };
  field("kind", item.kind);
  field("repo", item.repo ?? "");
  field("path", item.path);
  field("command", item.command);
  field("cwd", item.cwd);
  out.push("  output:", ...detailBlock(item.details ?? ""));
  return out;
}

/** Inputs of {@link repairPrompt}. */
export interface RepairPromptInput {
  /** The original prompt body (never a previously decorated one). */
  body: string;
  /** This repair's number (1-based) and the budget. */
  pass: number;
  max: number;
  /** Summary line after a nominal success, or the provider's message; null → `none recorded`. */
  lastError: string | null;
  /** The last verification report; null when none exists. */
  report: VerifyReport | null;
}

/** The repair section alone (heading, orientation, last error, unmet and satisfied checks). */
export function repairSection(input: Omit<RepairPromptInput, "body">): string {
  const items = input.report?.items ?? [];
  const unmet = items.filter((i) => i.status !== "pass");
  const met = items.filter((i) => i.status === "pass");
  const lines = [
    `## Repair pass ${input.pass} of ${input.max}`,
    "",
    REPAIR_ORIENTATION,
    "",
    "### Last error",
    input.lastError && input.lastError.trim() !== "" ? input.lastError.split("\n")[0]! : "none recorded",
    "",
    "### Unmet checks",
  ];
  if (unmet.length === 0) lines.push("none");
  for (const item of unmet) lines.push(...itemBlock(item));
  lines.push("", "### Satisfied checks", met.length ? met.map((i) => i.id).join(", ") : "none");
  return lines.join("\n") + "\n";
}

/** The full repair prompt: original body, a blank line, the repair section. */
export function repairPrompt(input: RepairPromptInput): string {
  return `${input.body.replace(/\s+$/, "")}\n\n${repairSection(input)}`;
}
