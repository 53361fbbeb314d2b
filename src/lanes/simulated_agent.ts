/**
 * The simulated lane's agent-control steps (docs/agent-control.md §5): what an agent inside a controlled session
 * does with `prompt_runner agent-control`, scripted. An entry writes a record the way the command does (in-process,
 * with optional forged fields for refusal tests), with `via: cli` runs the `prompt_runner` the session finds
 * first on its PATH — the runner's shim — so the whole path is exercised, or with `via: file` writes the sdk's
 * request or progress document to `$PROMPT_RUNNER_AGENT_CONTROL_FILE` / `$PROMPT_RUNNER_AGENT_PROGRESS_FILE` the way
 * prompt_runner_sdk's command does (the request created exclusively, the progress replaced atomically).
 */
import {
  AGENT_RECORD_SCHEMA,
  AGENT_SDK_FILES,
  type AgentRecord,
  scopeFromEnv,
  SDK_SCHEMAS,
  writeAgentRecord,
} from "../store/agent_records.ts";

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
  if (e.via === "file") return viaSdkFile(record, env);
  writeAgentRecord(scope.dir, record);
}

let tmpSeq = 0;

/** Write the record as the sdk's document to the file its variable names; a request that exists already is kept. */
function viaSdkFile(r: AgentRecord, env: Record<string, string>): void {
  const progress = r.kind === "progress";
  const path = env[progress ? AGENT_SDK_FILES.progress.env : AGENT_SDK_FILES.request.env];
  if (!path) return;
  const common = { token: r.token, run_id: r.run_id, prompt_id: r.prompt_id, iteration: r.iteration };
  const doc = progress
    ? {
      schema: SDK_SCHEMAS.progress,
      ...common,
      cursor: r.cursor,
      unit: r.unit,
      summary: r.summary,
      updated_at: r.at,
    }
    : { schema: SDK_SCHEMAS.request, ...common, action: r.kind, reason: r.reason, requested_at: r.at };
  const text = JSON.stringify(doc, null, 2);
  if (!progress) {
    try {
      Deno.writeTextFileSync(path, text, { createNew: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e; // the sdk's agent_control_request_already_exists
    }
    return;
  }
  const tmp = `${path}.tmp.${++tmpSeq}`;
  Deno.writeTextFileSync(tmp, text);
  Deno.renameSync(tmp, path);
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
