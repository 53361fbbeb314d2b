/** Readers shared by the agent-control black-box tests: the audit log's agent entries and a prompt's attempts. */
import { readPrompts } from "../run/support.ts";

/** One agent entry of `control/log.jsonl`. */
export interface Entry {
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
