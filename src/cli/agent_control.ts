/**
 * `agent-control progress|continue|repeat|finish|blocked` (docs/agent-control.md §2): run by the agent inside a
 * controlled provider session. It only creates one new file, exclusively, in the iteration's private directory the
 * runner named in the environment; the runner authenticates it and records the verdict in the audit log. Outside a
 * live controlled invocation it exits 2 and writes nothing.
 */
import type { CommandContext, CommandSpec } from "./frame.ts";
import { UsageError } from "../errors.ts";
import {
  AGENT_RECORD_SCHEMA,
  type AgentRecord,
  type AgentScope,
  closedMarker,
  parseAgentRecord,
  scopeFromEnv,
  writeAgentRecord,
} from "../store/agent_records.ts";

const ACTIONS = ["progress", "continue", "repeat", "finish", "blocked"] as const;

const flag = (ctx: CommandContext, name: string): string | null => {
  const v = ctx.flags[name];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
};

/** The command. */
export const spec: CommandSpec = {
  usage: "progress|continue|repeat|finish|blocked [--reason R] [--cursor C --summary S [--unit U]]",
  description: "Inside a controlled provider session: report progress, or ask the runner to continue to the next " +
    "prompt, repeat this one in a fresh session, finish the sequence (only if completion_verify passes) or stop " +
    "as blocked. finish and blocked need --reason. The runner decides once the iteration's contract has passed.",
  flags: {
    reason: { type: "string", value: "TEXT", description: "why (required for finish and blocked)" },
    cursor: { type: "string", value: "C", description: "progress: the project cursor (required)" },
    unit: { type: "string", value: "U", description: "progress: the unit of work" },
    summary: { type: "string", value: "TEXT", description: "progress: what is in progress now (required)" },
  },
  run(ctx: CommandContext): Promise<number> {
    const action = ctx.positionals[0];
    if (!action || !(ACTIONS as readonly string[]).includes(action) || ctx.positionals.length > 1) {
      throw new UsageError("missing_argument", `expected one of ${ACTIONS.join(", ")}`, {
        hints: [`usage: prompt_runner agent-control ${spec.usage}`],
      });
    }
    const scope = scopeFromEnv(Deno.env.toObject());
    if ("missing" in scope) {
      throw new UsageError(
        "agent_control_unavailable",
        `agent-control works only inside a live controlled provider session (${scope.missing.join(", ")} not set)`,
        { hints: ["the runner sets these for each iteration of a packet with agent_control enabled"] },
      );
    }
    if (exists(closedMarker(scope.dir))) {
      throw new UsageError(
        "agent_control_unavailable",
        `the controlled invocation of prompt ${scope.promptId}, iteration ${scope.iteration} has ended; ` +
          "the runner no longer reads its directory (nothing written)",
      );
    }
    const reason = flag(ctx, "reason");
    const cursor = flag(ctx, "cursor");
    const summary = flag(ctx, "summary");
    if (action === "progress" && (cursor === null || summary === null)) {
      throw new UsageError("missing_argument", "progress needs --cursor and --summary");
    }
    const record: AgentRecord = {
      schema: AGENT_RECORD_SCHEMA,
      kind: action as AgentRecord["kind"],
      token: scope.token,
      run_id: scope.runId,
      prompt_id: scope.promptId,
      iteration: scope.iteration,
      reason,
      cursor,
      unit: flag(ctx, "unit"),
      summary,
      at: new Date().toISOString(),
    };
    // Read before writing: the terminal directive this iteration already holds (as the runner will judge it).
    const earlier = action === "progress" ? null : earlierTerminal(scope);
    let name: string;
    try {
      name = writeAgentRecord(scope.dir, record);
    } catch (e) {
      throw new UsageError(
        "agent_control_unavailable",
        `cannot record in ${scope.dir}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const where = `prompt ${scope.promptId}, iteration ${scope.iteration}`;
    if ((action === "finish" || action === "blocked") && reason === null) {
      // Recorded so the runner audits the refusal; the agent learns now.
      ctx.stderr.write(`error: ${action} needs --reason; the runner will refuse this request (${where})\n`);
      return Promise.resolve(2);
    }
    if (earlier !== null) {
      // Recorded so the runner audits the refusal; the agent learns now that the first directive stands.
      ctx.stderr.write(
        `error: a terminal directive (${earlier}) was already requested in this iteration (${where}); the first ` +
          `wins and the runner will refuse this ${action}\n`,
      );
      return Promise.resolve(2);
    }
    if (ctx.json) ctx.stdout.write(JSON.stringify({ recorded: name, action, ...record, token: undefined }) + "\n");
    else if (action === "progress") ctx.stdout.write(`progress recorded (${where}): ${cursor} — ${summary}\n`);
    else {
      ctx.stdout.write(
        `${action} requested (${where}); the runner decides once this iteration's contract passes ` +
          `(the first accepted directive of an iteration wins)\n`,
      );
    }
    return Promise.resolve(0);
  },
};

/**
 * The action of a terminal directive already requested in this invocation's directory that the runner would accept
 * (this scope's token, run, prompt and iteration; a reason where one is needed), or null. Advisory only: the runner
 * judges every record itself. Only small regular files are read; links and anything else are skipped.
 */
function earlierTerminal(scope: AgentScope): string | null {
  try {
    for (const e of Deno.readDirSync(scope.dir)) {
      if (!e.isFile || e.name.startsWith("progress.json")) continue;
      const info = Deno.lstatSync(`${scope.dir}/${e.name}`);
      if (!info.isFile || info.size > 64 * 1024) continue;
      const r = parseAgentRecord(Deno.readTextFileSync(`${scope.dir}/${e.name}`));
      if (!r || r.kind === "progress" || r.token !== scope.token || r.run_id !== scope.runId) continue;
      if (r.prompt_id !== scope.promptId || r.iteration !== scope.iteration) continue;
      if ((r.kind === "finish" || r.kind === "blocked") && !r.reason) continue;
      return r.kind;
    }
  } catch { /* an unreadable directory: the write below reports it */ }
  return null;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
