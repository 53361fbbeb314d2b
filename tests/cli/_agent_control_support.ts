/**
 * Shared by the agent-control black-box tests: one builder of their packets (the manifest's `agent_control:` block
 * and the prompts) and the readers of the audit log's agent entries and a prompt's attempts.
 */
import { makePacket, promptFile, readPrompts } from "../run/support.ts";

/** The manifest's `agent_control:` block a test needs (defaults: repeat, 5 iterations, completion on done.txt). */
export interface ControlOptions {
  defaultAction?: "continue" | "repeat" | null;
  maxIterations?: number | null;
  /** completion_verify's `files_exist` paths. */
  completion?: string[];
}

/** The `agent_control:` manifest block as YAML; a `null` option leaves its key out (the packet default applies). */
export function agentControlYaml(o: ControlOptions = {}): string {
  const lines = ["agent_control:"];
  const action = o.defaultAction === undefined ? "repeat" : o.defaultAction;
  const max = o.maxIterations === undefined ? 5 : o.maxIterations;
  if (action !== null) lines.push(`  default_action: ${action}`);
  if (max !== null) lines.push(`  max_iterations: ${max}`);
  const paths = (o.completion ?? ["done.txt"]).map((p) => JSON.stringify(p)).join(", ");
  lines.push("  completion_verify:", `    files_exist: [${paths}]`);
  return lines.join("\n") + "\n";
}

/**
 * A simulated packet under `<root>/pkt` whose prompts are given as front matter (YAML, id from the file name's
 * leading digits: `01_a` → `1`), under the given agent control — or any other manifest text (`execution:` …).
 */
export function controlledPacket(
  root: string,
  prompts: Record<string, string>,
  control: ControlOptions | string = {},
): Promise<string> {
  const files = Object.fromEntries(
    Object.entries(prompts).map(([stem, yaml]) => [`${stem}.prompt.md`, promptFile(String(parseInt(stem, 10)), yaml)]),
  );
  return makePacket(root, files, typeof control === "string" ? control : agentControlYaml(control));
}

/** One agent entry of `control/log.jsonl`. */
export interface Entry {
  run_id: string;
  command: string;
  author: string;
  outcome: string;
  reason: string | null;
  params: Record<string, unknown>;
}

/** The audit log's `agent_directive` and `agent_progress` entries, oldest first (empty when there is no log). */
export async function auditLog(pkt: string): Promise<Entry[]> {
  const text = await Deno.readTextFile(`${pkt}/.prompt_runner/control/log.jsonl`).catch(() => "");
  return text.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l) as Entry).filter((e) =>
    e.command === "agent_directive" || e.command === "agent_progress"
  );
}

/** The fields of an attempt record these tests read. */
export interface AttemptView {
  iteration?: number;
  mode: string;
  status: string;
  directive?: { action: string; reason: string | null; default?: boolean };
}

/** The attempts of prompt `id` (default `01`) in state.json. */
export async function attemptsOf(pkt: string, id = "01"): Promise<AttemptView[]> {
  return (await readPrompts(pkt))[id]!.attempts as unknown as AttemptView[];
}
