/**
 * Steering decisions and texts (docs/reference/control-plane.md §8): the acceptance checks with their exact reasons, and the exact
 * prompts used to deliver steers by resuming the session or restarting it.
 */
import { escapeControl } from "../util/escape.ts";
import { utf8Length } from "../util/common.ts";

/** Largest steer text in UTF-8 bytes (docs/reference/control-plane.md §6.6). */
export const MAX_STEER_BYTES = 8192;

/** Outcome of {@link checkSteerText}: the trimmed text, or why it is refused. */
export type SteerTextCheck =
  | { ok: true; text: string }
  | {
    ok: false;
    /** The Control API's error code (exit 2). */
    code: "empty_steer" | "steer_too_long";
    /** The runner's refusal reason in the log (docs/reference/control-plane.md §8.4, exact). */
    reason: string;
    /** The Control API's error message. */
    message: string;
  };

/**
 * The one steer text validator (docs/reference/control-plane.md §6.6, §8.4 checks 1–2), used by the Control API, the CLI and the
 * runner's acceptance checks: the text is trimmed; blank or missing text and text over {@link MAX_STEER_BYTES} UTF-8
 * bytes are refused.
 */
export function checkSteerText(text: unknown): SteerTextCheck {
  const trimmed = typeof text === "string" ? text.trim() : "";
  if (trimmed === "") {
    return { ok: false, code: "empty_steer", reason: "steer has no text", message: "steer text is empty" };
  }
  if (utf8Length(trimmed) > MAX_STEER_BYTES) {
    const reason = `steer text exceeds ${MAX_STEER_BYTES} bytes`;
    return { ok: false, code: "steer_too_long", reason, message: reason };
  }
  return { ok: true, text: trimmed };
}

/** What the acceptance check needs to know about the run. */
export interface SteerGateState {
  promptRunning: boolean;
  sessionLive: boolean;
  used: number;
  max: number;
}

/** Outcome of {@link steerAcceptance}. */
export type SteerAcceptance = { ok: true; text: string } | { ok: false; reason: string };

/** The acceptance checks of docs/reference/control-plane.md §8.4, in order, with exact refusal reasons. */
export function steerAcceptance(text: unknown, gate: SteerGateState): SteerAcceptance {
  const checked = checkSteerText(text);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  if (!gate.promptRunning) return { ok: false, reason: "no prompt is running" };
  if (!gate.sessionLive) return { ok: false, reason: "no provider session is live; nothing to steer" };
  if (gate.used >= gate.max) {
    return {
      ok: false,
      reason: `steer budget spent (${gate.used}/${gate.max} for this prompt); raise recovery.max_steers to allow more`,
    };
  }
  return { ok: true, text: checked.text };
}

/** The first line of a steer, cut to `max` characters, control characters escaped (for notices). */
export function steerFirstLine(text: string, max = 100): string {
  const line = text.split("\n", 1)[0] ?? "";
  return escapeControl(line.length > max ? line.slice(0, max - 1) + "…" : line);
}

/** The resume prompt that delivers queued steers into the same session (docs/reference/control-plane.md §8.6, exact). */
export function steerResumePrompt(texts: string[]): string {
  return [
    "Guidance from the operator, received while you were working:",
    "",
    ...texts.flatMap((t) => [t, ""]),
    "Take this guidance into account and continue the same task from where you stopped. The task and its completion",
    "criteria are unchanged: do not start over, and do not stop to acknowledge this message.",
  ].join("\n");
}

/**
 * The user message that delivers steers into a running turn (docs/reference/control-plane.md §8.6, exact): the agent
 * reads it at its next model request, with its tool calls intact.
 */
export function steerInTurnPrompt(texts: string[]): string {
  return [
    "Guidance from the operator, received while you were working:",
    "",
    ...texts.flatMap((t) => [t, ""]),
    "Take this guidance into account as you continue the same task. The task and its completion criteria are",
    "unchanged: do not start over, and do not stop to acknowledge this message.",
  ].join("\n");
}

/** The prompt of a fresh session when the old one is gone: original prompt plus the steer block (docs/reference/control-plane.md §8.6, exact). */
export function restartWithSteerPrompt(original: string, texts: string[]): string {
  return [
    original,
    "",
    "## Operator guidance",
    "",
    ...texts.flatMap((t) => [t, ""]),
    "Take this guidance into account while you do the task above.",
  ].join("\n");
}
