/** Runner chrome (docs/reference/events-and-rendering.md §9, docs/reference/runner.md §10.4): attempt headers, steer notices, log header lines. */
import type { AttemptMode, View } from "../events/mod.ts";
import { painter } from "./ansi.ts";
import { oneLine, padEnd } from "./text.ts";
import { escapeControl } from "../util/escape.ts";
import { shownLine } from "./shown.ts";

/** What the attempt header shows. Null fields are left out. */
export interface HeaderInfo {
  promptId: string;
  name: string;
  attempt: number;
  mode: AttemptMode;
  /** The prompt file, as the user should see it (relative to the packet when possible). */
  promptFile: string | null;
  /** The working directory of the session. */
  project: string | null;
  provider: string;
  model: string | null;
  /** The attempt log file, or null when no store root is written. */
  logFile: string | null;
  /** The prompt body; its first 10 lines are previewed (non-studio). Null: no preview. */
  body: string | null;
}

const BAR_WIDTH = 60;

/**
 * The header printed before each attempt: the `=` block, or the studio `━` block. Ends with a newline. Every field
 * (the prompt's name, file, the body's lines …) is shown with its control characters escaped.
 */
export function renderHeader(raw: HeaderInfo, mode: View["log_mode"], color: boolean): string {
  const info = shownHeader(raw);
  const p = painter(color);
  const llm = info.model ? `${info.provider} / ${info.model}` : info.provider;
  const attempt = `attempt ${info.attempt} (${info.mode})`;
  if (mode === "studio") {
    const bar = p("dim", "━".repeat(BAR_WIDTH));
    const rows: string[] = [bar, p("bold", `  Prompt ${info.promptId}: ${info.name}  · ${attempt}`), bar];
    if (info.promptFile !== null) rows.push(`  Prompt   ${info.promptFile}`);
    if (info.project !== null) rows.push(`  Project  ${info.project}`);
    rows.push(`  LLM      ${llm}`);
    if (info.logFile !== null) rows.push(`  Log      ${info.logFile}`);
    return rows.join("\n") + "\n";
  }
  const bar = "=".repeat(BAR_WIDTH);
  const title = `Prompt ${info.promptId}: ${info.name}`;
  const rows: string[] = [bar, p("bold", padEnd(title, 48) + (title.length >= 48 ? "  " : "") + attempt), bar];
  if (info.promptFile !== null) rows.push(`Prompt:   ${info.promptFile}`);
  if (info.project !== null) rows.push(`Project:  ${info.project}`);
  rows.push(`Provider: ${llm}`);
  if (info.logFile !== null) rows.push(`Log:      ${info.logFile}`);
  if (info.body !== null) {
    const { original, repair } = splitRepairSection(info.body);
    const lines = original.replace(/^\n+/, "").split("\n");
    rows.push("", "Prompt preview (first 10 lines):");
    for (const l of lines.slice(0, 10)) rows.push(l === "" ? "" : `  ${shownLine(l)}`);
    if (lines.length > 10) rows.push("  …");
    if (repair !== null) rows.push(...repairPreview(repair));
  }
  rows.push("", `Starting ${info.provider} session…`);
  return rows.join("\n") + "\n";
}

/** {@link HeaderInfo} with its one-line fields' control characters escaped (the body is escaped line by line). */
function shownHeader(info: HeaderInfo): HeaderInfo {
  const one = (s: string | null) => (s === null ? null : escapeControl(s));
  return {
    ...info,
    promptId: escapeControl(info.promptId),
    name: escapeControl(info.name),
    promptFile: one(info.promptFile),
    project: one(info.project),
    provider: escapeControl(info.provider),
    model: one(info.model),
    logFile: one(info.logFile),
  };
}

/** The heading that opens the repair section of a repair prompt (src/run/repair_prompt.ts). */
const REPAIR_HEADING = /\n## Repair pass \d+ of \d+\n/;

/** A prompt body split into the original text and the repair section appended to it (null when there is none). */
function splitRepairSection(body: string): { original: string; repair: string | null } {
  const m = REPAIR_HEADING.exec(body);
  if (m === null) return { original: body, repair: null };
  return { original: body.slice(0, m.index).replace(/\n+$/, ""), repair: body.slice(m.index + 1) };
}

/** Most lines of the repair section previewed. */
const REPAIR_PREVIEW_LINES = 12;

/**
 * The preview of a repair section: the `## Repair pass` heading, the `### Last error` part, and the `### Unmet checks`
 * part's ids with their path or command (the orientation paragraph, the checks' output and the satisfied checks left
 * out), at most {@link REPAIR_PREVIEW_LINES} lines.
 */
function repairPreview(section: string): string[] {
  const lines = section.replace(/\n+$/, "").split("\n");
  const keep: string[] = [lines[0]!];
  let part = "";
  for (const l of lines.slice(1)) {
    if (l.startsWith("### ")) {
      part = l;
      if (l !== "### Satisfied checks") keep.push(l);
      continue;
    }
    if (part === "### Last error" && l.trim() !== "") keep.push(l);
    if (part === "### Unmet checks" && /^(- | {2}(path|command): )/.test(l)) keep.push(l);
  }
  const shown = keep.slice(0, REPAIR_PREVIEW_LINES).map((l) => `  ${escapeControl(l)}`);
  if (keep.length > REPAIR_PREVIEW_LINES) shown.push(`  … (${keep.length - REPAIR_PREVIEW_LINES} more lines)`);
  return ["", "Repair section (appended to the prompt):", ...shown];
}

/** Kinds of steer notice (docs/reference/events-and-rendering.md §9). */
export type SteerNoticeKind = "accepted" | "interrupting" | "resuming" | "restarting" | "refused";

/**
 * One steer notice line (with newline): yellow `↳ steer accepted: <first line ≤ 100>`, `↳ interrupting to deliver
 * <n> steers…` (`text` = the count), `↳ resuming the session with the steer`, `↳ restarting with the steer in a fresh
 * session`; red `↳ steer refused: <reason>`.
 */
export function steerNotice(kind: SteerNoticeKind, text: string, color: boolean): string {
  const p = painter(color);
  switch (kind) {
    case "accepted": {
      const first = text.split("\n").find((l) => l.trim() !== "") ?? "";
      return p("yellow", `↳ steer accepted: ${oneLine(escapeControl(first.replace(/\s+/g, " ")), 100)}`) + "\n";
    }
    case "interrupting": {
      const n = Number(text);
      return p("yellow", `↳ interrupting to deliver ${escapeControl(text)} ${n === 1 ? "steer" : "steers"}…`) + "\n";
    }
    case "resuming":
      return p("yellow", "↳ resuming the session with the steer") + "\n";
    case "restarting":
      return p("yellow", "↳ restarting with the steer in a fresh session") + "\n";
    case "refused":
      return p("red", `↳ steer refused: ${oneLine(escapeControl(text.replace(/\s+/g, " ")), 200)}`) + "\n";
  }
}

/** The outcome line of a finished prompt: green `✓ Prompt 03 completed`, otherwise red `✗ Prompt 03 <status>`. */
export function promptOutcomeLine(promptId: string, status: string, color: boolean): string {
  const p = painter(color);
  const id = escapeControl(promptId);
  if (status === "completed") return `${p("green", "✓")} Prompt ${id} completed\n`;
  return `${p("red", "✗")} Prompt ${id} ${escapeControl(status.replaceAll("_", " "))}\n`;
}

/** Header lines of an attempt log file (docs/reference/runner.md §10.4), ending with the blank line. */
export function logHeader(info: {
  provider: string;
  model: string | null;
  tools: string[] | null;
  cwd: string;
  promptFile: string;
  runId: string;
  attempt: number;
  mode: AttemptMode;
}): string {
  const tools = info.tools && info.tools.length ? info.tools.join(",") : "n/a";
  return [
    `Session: provider=${info.provider} model=${info.model ?? "n/a"} tools=${tools} cwd=${info.cwd}`,
    `Prompt: ${info.promptFile}`,
    `Run: ${info.runId} attempt ${info.attempt} (${info.mode})`,
    "",
    "",
  ].join("\n");
}

/** The prompt file a log's header ({@link logHeader}) names — its `Prompt:` line — or null when `head` is not one. */
export function logHeaderPromptFile(head: string): string | null {
  const [session, prompt, run] = head.split("\n", 3);
  if (!session?.startsWith("Session: ") || !prompt?.startsWith("Prompt: ") || !run?.startsWith("Run: ")) return null;
  return prompt.slice("Prompt: ".length) || null;
}

/** A log marker line (docs/reference/runner.md §10.4): `SESSION_RESUME action=started reason=…`, `STEER …`, `GUARDRAIL …`. */
export function logMarker(
  kind: "SESSION_RESUME" | "STEER" | "GUARDRAIL",
  fields: Record<string, string | number>,
): string {
  return `${kind} ${Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(" ")}\n`;
}
