/**
 * The words every status surface shares (`status`, `control status`, `list`, `watch`, the live status line and the
 * heartbeat): how an attempt, tokens, counts and an attempt timeline are written. The vocabulary is docs/status.md.
 */
import { formatAge, formatDuration } from "../util/time.ts";
import { escapeControl } from "../util/escape.ts";

/** What {@link timelineLine} reads of a prompt's attempts (the status rollup's `timeline` entries). */
export interface TimelineInput {
  prompt_id: string;
  attempts: { mode: string; status: string; failure_class: string | null; duration_ms: number | null }[];
}

/** `1 tool`, `2 tools`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `1200 in / 85 out this attempt · 3600 in / 225 out this run` (docs/status.md), or null when there are none. */
export function tokenPhrase(t: {
  input_tokens: number;
  output_tokens: number;
  run_input_tokens: number;
  run_output_tokens: number;
}): string | null {
  if (t.run_input_tokens + t.run_output_tokens + t.input_tokens + t.output_tokens === 0) return null;
  return `${t.input_tokens} in / ${t.output_tokens} out this attempt · ` +
    `${t.run_input_tokens} in / ${t.run_output_tokens} out this run`;
}

/** `2 (retry)`: an attempt and its kind, as every status surface writes it (docs/status.md). */
export function attemptPhrase(attempt: number, mode: string | null): string {
  return `${attempt} (${mode ?? "run"})`;
}

const ATTEMPT_MARK: Record<string, string> = { completed: "✓", running: "◐", interrupted: "◌" };

/** One prompt's attempts: `03  run ✗ provider_capacity 0.4s → retry ✓ 0.6s` (docs/status.md). */
export function timelineLine(t: TimelineInput): string {
  const steps = t.attempts.map((a) => {
    const mark = ATTEMPT_MARK[a.status] ?? "✗";
    const why = mark === "✗" && a.failure_class ? ` ${a.failure_class}` : "";
    const time = a.status === "running"
      ? " running"
      : a.duration_ms !== null
      ? ` ${formatDuration(a.duration_ms)}`
      : "";
    return `${a.mode} ${mark}${why}${time}`;
  });
  return escapeControl(`${t.prompt_id}  ${steps.join(" → ")}`);
}

/** The facts of one live status line or heartbeat (src/run/run_progress.ts folds them). */
export interface ProgressFacts {
  promptId: string | null;
  /** 1-based position of the prompt in the run's order (0 before the first). */
  position: number;
  selected: number;
  attempt: number | null;
  /** `run`, `retry`, `repair` or `resume`. */
  mode: string | null;
  /** What the runner is doing (docs/reference/control-plane.md §4.1 stages). */
  stage: string;
  /** When the current prompt started (epoch ms), or null. */
  promptStartedMs: number | null;
  /** When the last event was recorded (epoch ms), or null before the first. */
  lastEventMs: number | null;
  /** The last event's type. */
  lastEvent: string | null;
  /** Tool calls started in this attempt. */
  tools: number;
  /** The latest tool call still running, and since when (epoch ms), or null. */
  runningTool: { name: string; sinceMs: number } | null;
  tokens: { attempt: { input: number; output: number }; run: { input: number; output: number } };
}

const STAGE_WORDS: Record<string, string> = {
  waiting_retry: "waiting to retry",
  between_prompts: "between prompts",
};

/**
 * `prompt 2/3 02 · attempt 2 (retry) · session · 12s · Bash running 8s · last event 3s ago · run tokens 3600 in /
 * 225 out · 4 tools`: the live status line and the heartbeat (docs/status.md); the tools are this attempt's.
 */
export function progressLine(f: ProgressFacts, nowMs: number): string {
  const parts = [`prompt ${f.position > 0 ? f.position : "-"}/${f.selected}${f.promptId ? ` ${f.promptId}` : ""}`];
  if (f.attempt !== null) parts.push(`attempt ${attemptPhrase(f.attempt, f.mode)}`);
  parts.push(STAGE_WORDS[f.stage] ?? f.stage);
  if (f.promptStartedMs !== null) parts.push(formatDuration(Math.max(0, nowMs - f.promptStartedMs)));
  const tool = f.runningTool;
  if (tool) parts.push(`${tool.name} running ${formatAge(Math.max(0, nowMs - tool.sinceMs))}`);
  parts.push(
    f.lastEventMs === null ? "no events yet" : `last event ${formatAge(Math.max(0, nowMs - f.lastEventMs))} ago`,
  );
  const t = f.tokens.run;
  if (t.input + t.output > 0) parts.push(`run tokens ${t.input} in / ${t.output} out`);
  if (f.tools > 0) parts.push(plural(f.tools, "tool"));
  // The prompt id, stage and tool name come from the packet and the agent: shown escaped, on one line.
  return escapeControl(parts.join(" · "));
}
