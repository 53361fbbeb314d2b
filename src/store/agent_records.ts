/**
 * Agent-control records on disk (docs/agent-control.md §2): the environment contract a controlled provider session
 * receives, the per-iteration private directory, and the records `prompt_runner agent-control` creates there — one
 * new file per invocation, created exclusively, never overwritten. Only the runner reads them, authenticates them and
 * writes the audit log; this file holds the shared shapes, the writer and a lenient parser.
 */
import { isRecord } from "../util/common.ts";

/** Schema tag of every record. */
export const AGENT_RECORD_SCHEMA = "prompt_runner.agent_control/v1";

/** The environment variables of a controlled session (the sdk's names, plus the private directory). */
export const AGENT_ENV = {
  dir: "PROMPT_RUNNER_AGENT_CONTROL_DIR",
  token: "PROMPT_RUNNER_AGENT_CONTROL_TOKEN",
  runId: "PROMPT_RUNNER_RUN_ID",
  promptId: "PROMPT_RUNNER_PROMPT_ID",
  iteration: "PROMPT_RUNNER_PROMPT_ITERATION",
} as const;

/**
 * The sdk's two file variables (prompt_runner_sdk 0.13): the path of the iteration's terminal request (created once,
 * exclusively: the first request wins) and of its progress record (replaced atomically, refreshable). Both lie inside
 * the private directory; the runner reads the sdk's documents there as it reads the command's records.
 */
export const AGENT_SDK_FILES = {
  request: { env: "PROMPT_RUNNER_AGENT_CONTROL_FILE", name: "request.json" },
  progress: { env: "PROMPT_RUNNER_AGENT_PROGRESS_FILE", name: "progress.json" },
} as const;

/** Schema tags of the sdk's request and progress documents. */
export const SDK_SCHEMAS = {
  request: "prompt_runner.agent_control/request/v1",
  progress: "prompt_runner.agent_control/progress/v1",
} as const;

/** The terminal directives. */
export const TERMINAL_ACTIONS = ["continue", "repeat", "finish", "blocked"] as const;

/** A terminal directive. */
export type TerminalAction = typeof TERMINAL_ACTIONS[number];

/** One record as written by the agent's command (every field as the agent claims it). */
export interface AgentRecord {
  schema: string;
  /** `progress`, or a terminal action. */
  kind: "progress" | TerminalAction;
  token: string;
  run_id: string;
  prompt_id: string;
  iteration: number;
  reason: string | null;
  cursor: string | null;
  unit: string | null;
  summary: string | null;
  at: string;
}

/** The invocation an environment names (what the command writes against). */
export interface AgentScope {
  dir: string;
  token: string;
  runId: string;
  promptId: string;
  iteration: number;
}

/** The scope of a live controlled invocation from an environment, or the names of what is missing or invalid. */
export function scopeFromEnv(env: Record<string, string | undefined>): AgentScope | { missing: string[] } {
  const missing = Object.values(AGENT_ENV).filter((k) => !env[k]);
  if (missing.length) return { missing };
  const iteration = Number(env[AGENT_ENV.iteration]);
  if (!Number.isInteger(iteration) || iteration < 1) return { missing: [AGENT_ENV.iteration] };
  return {
    dir: env[AGENT_ENV.dir]!,
    token: env[AGENT_ENV.token]!,
    runId: env[AGENT_ENV.runId]!,
    promptId: env[AGENT_ENV.promptId]!,
    iteration,
  };
}

/** The environment a controlled session gets for a scope (ours and the sdk's names). */
export function envOfScope(s: AgentScope): Record<string, string> {
  return {
    [AGENT_ENV.dir]: s.dir,
    [AGENT_SDK_FILES.request.env]: `${s.dir}/${AGENT_SDK_FILES.request.name}`,
    [AGENT_SDK_FILES.progress.env]: `${s.dir}/${AGENT_SDK_FILES.progress.name}`,
    [AGENT_ENV.token]: s.token,
    [AGENT_ENV.runId]: s.runId,
    [AGENT_ENV.promptId]: s.promptId,
    [AGENT_ENV.iteration]: String(s.iteration),
  };
}

/**
 * The marker the runner creates beside an invocation's directory once it stopped reading it (`<dir>.closed`, outside
 * the directory, so not writable from a sandbox that can write the directory): a late command exits 2 and writes
 * nothing instead of leaving a record no one will judge.
 */
export function closedMarker(dir: string): string {
  return `${dir.replace(/\/+$/, "")}.closed`;
}

let seq = 0;

/**
 * Create a new record file in the scope's directory: exclusive creation (`createNew`), mode 0600, a name no other
 * invocation uses. The directory must already exist and be a real directory (never a link). Returns the file name.
 */
export function writeAgentRecord(dir: string, record: AgentRecord): string {
  const info = Deno.lstatSync(dir);
  if (info.isSymlink || !info.isDirectory) throw new Error(`${dir} is not a directory`);
  const rand = crypto.getRandomValues(new Uint8Array(4));
  const suffix = [...rand].map((b) => b.toString(16).padStart(2, "0")).join("");
  const stamp = String(Date.now()).padStart(15, "0");
  const name = `${stamp}-${String(seq++).padStart(4, "0")}-${suffix}.${record.kind}.json`;
  Deno.writeTextFileSync(`${dir}/${name}`, JSON.stringify(record) + "\n", { createNew: true, mode: 0o600 });
  return name;
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** The sdk's spelling of an action (`Repeat`, `stop_blocked` …) as ours, or null. */
function sdkAction(v: unknown): TerminalAction | null {
  if (typeof v !== "string") return null;
  const a = v.trim().toLowerCase().replaceAll("_", "-");
  if (a === "stop-blocked") return "blocked";
  return (TERMINAL_ACTIONS as readonly string[]).includes(a) ? a as TerminalAction : null;
}

/** An sdk request or progress document as a record (fields as the writer claims them), or null for anything else. */
function fromSdk(v: Record<string, unknown>): AgentRecord | null {
  const kind = v.schema === SDK_SCHEMAS.progress ? "progress" : sdkAction(v.action);
  if (kind === null || (v.schema === SDK_SCHEMAS.request) !== (kind !== "progress")) return null;
  const at = v.requested_at ?? v.updated_at;
  return recordOf(v, AGENT_RECORD_SCHEMA, kind, typeof at === "string" ? at : "");
}

/** The fields both record shapes share, each as the writer claims it (a wrong type reads as empty). */
function recordOf(v: Record<string, unknown>, schema: string, kind: AgentRecord["kind"], at: string): AgentRecord {
  return {
    schema,
    kind,
    token: typeof v.token === "string" ? v.token : "",
    run_id: typeof v.run_id === "string" ? v.run_id : "",
    prompt_id: typeof v.prompt_id === "string" ? v.prompt_id : "",
    iteration: typeof v.iteration === "number" ? v.iteration : -1,
    reason: text(v.reason),
    cursor: text(v.cursor),
    unit: text(v.unit),
    summary: text(v.summary),
    at,
  };
}

/**
 * Parse a record file's text leniently — the command's records and the sdk's request and progress documents
 * (`AGENT_SDK_FILES`); null when it is not a record at all.
 */
export function parseAgentRecord(raw: string): AgentRecord | null {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isRecord(v)) return null;
  if (v.schema === SDK_SCHEMAS.request || v.schema === SDK_SCHEMAS.progress) return fromSdk(v);
  const kind = v.kind;
  if (kind !== "progress" && !(TERMINAL_ACTIONS as readonly unknown[]).includes(kind)) return null;
  return recordOf(v, String(v.schema ?? ""), kind as AgentRecord["kind"], typeof v.at === "string" ? v.at : "");
}
