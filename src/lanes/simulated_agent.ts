/**
 * The simulated lane's agent-control steps (docs/agent-control.md §5): what an agent inside a controlled session
 * does with `prompt_runner agent-control`, scripted. An entry writes a record the way the command does (in-process,
 * with optional forged fields for refusal tests), or with `via: cli` runs the `prompt_runner` the session finds
 * first on its PATH — the runner's shim — so the whole path is exercised.
 */
import { AGENT_RECORD_SCHEMA, type AgentRecord, scopeFromEnv, writeAgentRecord } from "../store/agent_records.ts";

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Play one `agent_control` entry: `{action, reason?, cursor?, unit?, summary?, token?, iteration?, via?}`. */
export async function agentControlStep(e: Record<string, unknown>, env: Record<string, string>): Promise<void> {
  const action = str(e.action) ?? "continue";
  if (e.via === "cli") return await viaCli(e, action, env);
  const scope = scopeFromEnv(env);
  if ("missing" in scope) return; // not a controlled session: the command would write nothing
  const record: AgentRecord = {
    schema: AGENT_RECORD_SCHEMA,
    kind: action as AgentRecord["kind"],
    token: str(e.token) ?? scope.token,
    run_id: str(e.run_id) ?? scope.runId,
    prompt_id: str(e.prompt_id) ?? scope.promptId,
    iteration: typeof e.iteration === "number" ? e.iteration : scope.iteration,
    reason: str(e.reason),
    cursor: str(e.cursor),
    unit: str(e.unit),
    summary: str(e.summary),
    at: new Date().toISOString(),
  };
  writeAgentRecord(scope.dir, record);
}

async function viaCli(e: Record<string, unknown>, action: string, env: Record<string, string>): Promise<void> {
  const dirs = (env.PATH ?? "").split(":");
  let exe: string | null = null;
  for (const d of dirs) {
    try {
      if (Deno.statSync(`${d}/prompt_runner`).isFile) {
        exe = `${d}/prompt_runner`;
        break;
      }
    } catch { /* not here */ }
  }
  if (exe === null) return;
  const args = ["agent-control", action];
  for (const k of ["reason", "cursor", "unit", "summary"]) {
    const v = str(e[k]);
    if (v !== null) args.push(`--${k}`, v);
  }
  await new Deno.Command(exe, { args, env, stdin: "null", stdout: "null", stderr: "null" }).output();
}
