/**
 * The agent-control keys of a packet (docs/agent-control.md §1): `agent_control` (the agent may continue, repeat,
 * finish or report blocked; `completion_verify` decides a finish) and `execution` (who owns completion). Validated
 * here with errors naming the file, the field and what was expected; the normalised values take part in the packet
 * fingerprint through the manifest layer (./fingerprint.ts).
 */
import type { FindingSink } from "./findings.ts";
import type { AgentControlConfig, ExecutionPolicy, Prompt } from "./types.ts";

export type { AgentAction, AgentControlConfig, ExecutionPolicy } from "./types.ts";

/** The default completion owner. */
export const VERIFIER_OWNED: ExecutionPolicy = { completion: "verifier_owned", incomplete: "fail" };

/** `max_iterations` when unset. */
export const DEFAULT_MAX_ITERATIONS = 20;

/** Clauses an agent-owned prompt may not rely on for structural evidence (they are executable or repo-wide). */
const NON_STRUCTURAL = new Set(["commands", "changed_paths_only", "repos_clean"]);

const AGENT_CONTROL_KEYS = ["enabled", "default_action", "max_iterations", "completion_verify"];

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function show(v: unknown): string {
  return typeof v === "string" ? `"${v}"` : JSON.stringify(v) ?? String(v);
}

/** A contract map with every clause's entries as a list (single values wrapped, nulls dropped). */
function contractOf(raw: Record<string, unknown>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [k, v] of Object.entries(raw)) {
    const list = (Array.isArray(v) ? v : [v]).filter((e) => e !== null && e !== undefined);
    out[k] = list;
  }
  return out;
}

/** How many items a contract has. */
export function contractItems(contract: Record<string, unknown[]>): number {
  return Object.values(contract).reduce((n, l) => n + l.length, 0);
}

/** Reports one bad value as `invalid_option_value`, naming the file, the field, what it is and what was expected. */
function badOption(file: string, sink: FindingSink, promptId: string | null) {
  return (key: string, v: unknown, expected: string): void =>
    sink.error("invalid_option_value", `${file}: ${key} is ${show(v)}; expected ${expected}`, {
      file,
      key,
      prompt_id: promptId,
    });
}

/**
 * Normalise an `agent_control` value, reporting each problem as `invalid_option_value` naming `file` and the field.
 * Returns null (the key is left out) when the block is invalid.
 */
export function normalizeAgentControl(
  value: unknown,
  file: string,
  sink: FindingSink,
  promptId: string | null = null,
): AgentControlConfig | null {
  const bad = badOption(file, sink, promptId);
  if (!isMap(value)) {
    bad("agent_control", value, "a map {enabled, default_action, max_iterations, completion_verify}");
    return null;
  }
  let ok = true;
  for (const k of Object.keys(value)) {
    if (!AGENT_CONTROL_KEYS.includes(k)) {
      bad(`agent_control.${k}`, value[k], `no such key (known: ${AGENT_CONTROL_KEYS.join(", ")})`);
      ok = false;
    }
  }
  const enabled = value.enabled ?? true;
  if (typeof enabled !== "boolean") {
    bad("agent_control.enabled", enabled, "true or false");
    ok = false;
  }
  const action = value.default_action ?? "continue";
  if (action !== "continue" && action !== "repeat") {
    bad("agent_control.default_action", action, "one of continue, repeat");
    ok = false;
  }
  const max = value.max_iterations ?? DEFAULT_MAX_ITERATIONS;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1) {
    bad("agent_control.max_iterations", max, "a positive integer");
    ok = false;
  }
  const cv = value.completion_verify ?? {};
  let completion: Record<string, unknown[]> = {};
  if (!isMap(cv)) {
    bad("agent_control.completion_verify", cv, "a contract map (the clauses of a prompt's verify:)");
    ok = false;
  } else {
    completion = contractOf(cv);
    if (enabled === true && contractItems(completion) === 0) {
      bad("agent_control.completion_verify", cv, "a contract with at least one item (a finish needs evidence)");
      ok = false;
    }
  }
  if (!ok) return null;
  return {
    enabled: enabled as boolean,
    default_action: action as "continue" | "repeat",
    max_iterations: max as number,
    completion_verify: completion,
  };
}

/** Normalise an `execution` value: exactly the two valid pairs; anything else is an error naming the field. */
export function normalizeExecution(
  value: unknown,
  file: string,
  sink: FindingSink,
  promptId: string | null = null,
): ExecutionPolicy | null {
  const bad = badOption(file, sink, promptId);
  if (!isMap(value)) {
    bad("execution", value, "a map {completion, incomplete}");
    return null;
  }
  for (const k of Object.keys(value)) {
    if (k !== "completion" && k !== "incomplete") {
      bad(`execution.${k}`, value[k], "no such key (known: completion, incomplete)");
      return null;
    }
  }
  const completion = value.completion ?? "verifier_owned";
  const incomplete = value.incomplete;
  if (completion !== "verifier_owned" && completion !== "agent_owned") {
    bad("execution.completion", completion, "one of verifier_owned, agent_owned");
    return null;
  }
  if (completion === "verifier_owned") {
    if (incomplete !== undefined && incomplete !== null && incomplete !== "fail") {
      bad("execution.incomplete", incomplete, "fail with completion verifier_owned");
      return null;
    }
    return VERIFIER_OWNED;
  }
  if (incomplete !== "repeat") {
    bad("execution.incomplete", incomplete ?? null, "repeat with completion agent_owned");
    return null;
  }
  return { completion: "agent_owned", incomplete: "repeat" };
}

/**
 * The rules agent-owned completion puts on every prompt: no `verify.commands` (nor legacy validation commands) —
 * the agent owns executable checks — and at least one prompt-specific structural clause.
 */
export function agentOwnedFindings(prompts: readonly Prompt[], sink: FindingSink): void {
  for (const p of prompts) {
    const at = { file: p.relFile, key: "verify.commands", prompt_id: p.id };
    if ((p.verify.commands ?? []).length > 0 || p.legacyCommands.length > 0) {
      sink.error(
        "agent_owned_commands",
        `${p.relFile}: verify.commands is set; expected no commands under execution.completion agent_owned ` +
          `(the agent runs executable checks itself)`,
        at,
      );
    }
    const structural = Object.entries(p.verify).some(([k, l]) => !NON_STRUCTURAL.has(k) && l.length > 0);
    if (!structural) {
      sink.error(
        "agent_owned_structural",
        `${p.relFile}: verify has no structural clause; expected at least one of files_exist, files_absent, ` +
          `contains, matches, doc, yaml, json, glob, source_absent under execution.completion agent_owned`,
        { ...at, key: "verify" },
      );
    }
  }
}
