/**
 * The pure decisions of agent control (docs/agent-control.md §3): whether one record the agent's command created is
 * authentic and acceptable, and what a verified iteration's directive does. Plain values in and out, so every rule
 * is unit-tested without processes or files (tests/run/agent_decide_test.ts).
 */
import type { AgentControlConfig } from "../packet/mod.ts";
import { AGENT_RECORD_SCHEMA, type AgentRecord, type AgentScope, type TerminalAction } from "../store/agent_records.ts";

/** Whether a record is accepted, or why it is refused. */
export type RecordVerdict = { ok: true } | { ok: false; reason: string };

/** Judge one record against the live invocation; `held`: the terminal directive already accepted, if any. */
export function judgeRecord(record: AgentRecord | null, scope: AgentScope, held: TerminalAction | null): RecordVerdict {
  if (record === null) return { ok: false, reason: "not an agent-control record (unreadable or malformed)" };
  if (record.schema !== AGENT_RECORD_SCHEMA) return { ok: false, reason: `unknown schema "${record.schema}"` };
  if (record.token !== scope.token) return { ok: false, reason: "the token does not match this invocation" };
  if (record.run_id !== scope.runId) {
    return { ok: false, reason: `run ${record.run_id || "?"} is not the live run ${scope.runId}` };
  }
  if (record.prompt_id !== scope.promptId) {
    return { ok: false, reason: `prompt ${record.prompt_id || "?"} is not the live prompt ${scope.promptId}` };
  }
  if (record.iteration !== scope.iteration) {
    return { ok: false, reason: `iteration ${record.iteration} is not the live iteration ${scope.iteration}` };
  }
  if (record.kind === "progress") {
    return record.cursor && record.summary
      ? { ok: true }
      : { ok: false, reason: "progress needs a cursor and a summary" };
  }
  if ((record.kind === "finish" || record.kind === "blocked") && !record.reason) {
    return { ok: false, reason: `${record.kind} needs a reason` };
  }
  if (held !== null) {
    return {
      ok: false,
      reason: `a terminal directive (${held}) was already accepted in this iteration; the first wins`,
    };
  }
  return { ok: true };
}

/** What a verified iteration leads to. */
export type IterationStep =
  /** `continue`: the prompt completes and the run advances. */
  | { do: "complete" }
  /** `finish` whose completion_verify passed: the prompt completes and the selected sequence closes. */
  | { do: "finish" }
  /** A fresh session runs the next iteration (after `repeat`, or a `finish` whose completion_verify failed). */
  | { do: "next_iteration"; iteration: number; failures: string[] }
  /** `blocked`: the prompt stops non-zero with the agent's reason. */
  | { do: "blocked"; reason: string }
  /** Another iteration is wanted but the cap is reached: stop non-zero, resumable. */
  | { do: "cap"; reason: string }
  /** completion_verify could not be evaluated: an infrastructure failure. */
  | { do: "fault" };

/** Everything {@link afterIteration} reads. */
export interface IterationInput {
  /** The held directive's action, or null (the default action applies). */
  action: TerminalAction | null;
  reason: string | null;
  config: Pick<AgentControlConfig, "default_action" | "max_iterations">;
  iteration: number;
  /** completion_verify's result for a finish (null when not evaluated). */
  completion: { status: "pass" | "fail" | "fault"; failures: string[] } | null;
}

/** The action an iteration's directive (or the default) names. */
export function effectiveAction(action: TerminalAction | null, config: IterationInput["config"]): TerminalAction {
  return action ?? config.default_action;
}

/** Decide what follows a verified, committed iteration (docs/agent-control.md §3). */
export function afterIteration(input: IterationInput): IterationStep {
  const action = effectiveAction(input.action, input.config);
  const again = (failures: string[]): IterationStep =>
    input.iteration >= input.config.max_iterations
      ? {
        do: "cap",
        reason: `agent_control iteration limit reached: prompt iteration ${input.iteration} of ` +
          `${input.config.max_iterations}`,
      }
      : { do: "next_iteration", iteration: input.iteration + 1, failures };
  switch (action) {
    case "continue":
      return { do: "complete" };
    case "repeat":
      return again([]);
    case "blocked":
      return { do: "blocked", reason: input.reason ?? "blocked" };
    case "finish": {
      const c = input.completion;
      if (c === null || c.status === "fault") return { do: "fault" };
      return c.status === "pass" ? { do: "finish" } : again(c.failures);
    }
  }
}

/** The text of an iteration's prompt: the prompt's own body plus the agent-control section. */
export function iterationPrompt(o: {
  body: string;
  promptId: string;
  iteration: number;
  max: number;
  defaultAction: string;
  failures: string[];
}): string {
  const lines = [
    o.body.replace(/\s+$/, ""),
    "",
    "## Prompt Runner agent control",
    "",
    `This is iteration ${o.iteration} of at most ${o.max} for prompt ${o.promptId}. Report your project cursor with`,
    '`prompt_runner agent-control progress --cursor CURSOR --summary "work in progress"` (add `--unit UNIT`),',
    "and refresh it after milestones. When this iteration's work is done and committed, choose at most one:",
    "",
    "- `prompt_runner agent-control continue` — this prompt is done, go on to the next one",
    '- `prompt_runner agent-control repeat --reason "what is done; what comes next"` — run this prompt again',
    '- `prompt_runner agent-control finish --reason "why the whole objective is complete"`',
    '- `prompt_runner agent-control blocked --reason "the exact blocker"`',
    "",
    `\`finish\` is accepted only when the packet's completion_verify contract passes. Without a directive the runner ` +
    `uses \`${o.defaultAction}\`. The prompt's own contract is checked first in every case.`,
  ];
  if (o.failures.length) {
    lines.push(
      "",
      "Your previous `finish` was refused: completion_verify did not pass. Resolve these before finishing again:",
      "",
      ...o.failures.map((f) => `- ${f}`),
    );
  }
  return lines.join("\n") + "\n";
}
