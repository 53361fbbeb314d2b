/**
 * `snapshot.json` (docs/reference/control-plane.md §4): the document the runner writes, and a total reader that never fails on a
 * partial or foreign document — missing fields take defaults and unknown enum values read as `unknown`/`null` — plus
 * the shared file readers and the `abandoned` rule every reader of the run status uses.
 */
import type { AttemptMode, StreamKind, View } from "../events/mod.ts";
import type { AgentControlSnap, Stage } from "./plane_types.ts";
import type { LeaseState } from "../store/mod.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { errorMessage, isRecord } from "../util/common.ts";
import { readViewTotal } from "./view.ts";
import { storePaths } from "../store/paths.ts";

/** Schema tag of the snapshot. */
const SNAPSHOT_SCHEMA = "prompt_runner.snapshot/v1";

/** The snapshot as the runner writes it (every field present). */
export interface SnapshotDoc {
  schema: typeof SNAPSHOT_SCHEMA;
  run_id: string;
  packet: string;
  packet_dir: string;
  store_root: string;
  workspace: string | null;
  status: "running" | "completed" | "failed";
  stage: Stage;
  reason: string | null;
  prompt_id: string | null;
  prompt_name: string | null;
  prompt_position: number;
  selected_count: number;
  completed_count: number;
  attempt: number | null;
  mode: AttemptMode | null;
  stream: StreamKind | null;
  provider: string | null;
  model: string | null;
  session_id: string | null;
  session_live: boolean;
  run_started_at: string | null;
  prompt_started_at: string | null;
  attempt_started_at: string | null;
  updated_at: string | null;
  elapsed_ms: number;
  prompt_elapsed_ms: number;
  attempt_elapsed_ms: number;
  tool_count: number;
  /** Tokens of the current (or last) attempt. */
  input_tokens: number;
  output_tokens: number;
  /** Tokens of every attempt of the run so far (a resumed run continues its earlier total). */
  run_input_tokens: number;
  run_output_tokens: number;
  event_count: number;
  last_seq: number;
  steer_count: number;
  steers_pending: number;
  max_steers: number;
  last_verification: { status: string; failures: string[]; at: string } | null;
  agent_control: AgentControlSnap | null;
  view: View;
  writer: { pid: number; hostname: string | null };
}

/** Status as read: the written status, `unknown` for foreign values, or the derived `abandoned`. */
export type ReadStatus = "running" | "completed" | "failed" | "abandoned" | "unknown";

/** A snapshot as read (docs/reference/control-plane.md §4.3): total, with `status` possibly `unknown`. */
export interface SnapshotRead extends Omit<SnapshotDoc, "status" | "schema" | "stage"> {
  schema: string;
  status: ReadStatus;
  stage: Stage | "unknown";
}

const STAGES: readonly string[] = [
  "starting",
  "session",
  "verifying",
  "committing",
  "waiting_retry",
  "between_prompts",
  "closed",
];
const MODES: readonly string[] = ["run", "retry", "repair", "resume"];
const STREAMS: readonly string[] = ["initial", "resume", "steer", "restart_with_steer"];

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? Math.max(0, Math.trunc(v)) : 0);
const intOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null);

/** Read a decoded snapshot object totally (docs/reference/control-plane.md §4.3). Returns null when `run_id` is not a string. */
export function readSnapshotTotal(v: Record<string, unknown>): SnapshotRead | null {
  const runId = str(v.run_id);
  if (runId === null) return null;
  const status = v.status === "running" || v.status === "completed" || v.status === "failed" ? v.status : "unknown";
  const lv = v.last_verification;
  const writer = isRecord(v.writer) ? v.writer : {};
  return {
    schema: str(v.schema) ?? SNAPSHOT_SCHEMA,
    run_id: runId,
    packet: str(v.packet) ?? "",
    packet_dir: str(v.packet_dir) ?? "",
    store_root: str(v.store_root) ?? "",
    workspace: str(v.workspace),
    status,
    stage: typeof v.stage === "string" && STAGES.includes(v.stage) ? v.stage as Stage : "unknown",
    reason: str(v.reason),
    prompt_id: str(v.prompt_id),
    prompt_name: str(v.prompt_name),
    prompt_position: int(v.prompt_position),
    selected_count: int(v.selected_count),
    completed_count: int(v.completed_count),
    attempt: intOrNull(v.attempt),
    mode: typeof v.mode === "string" && MODES.includes(v.mode) ? v.mode as AttemptMode : null,
    stream: typeof v.stream === "string" && STREAMS.includes(v.stream) ? v.stream as StreamKind : null,
    provider: str(v.provider),
    model: str(v.model),
    session_id: str(v.session_id),
    session_live: v.session_live === true,
    run_started_at: str(v.run_started_at),
    prompt_started_at: str(v.prompt_started_at),
    attempt_started_at: str(v.attempt_started_at),
    updated_at: str(v.updated_at),
    elapsed_ms: int(v.elapsed_ms),
    prompt_elapsed_ms: int(v.prompt_elapsed_ms),
    attempt_elapsed_ms: int(v.attempt_elapsed_ms),
    tool_count: int(v.tool_count),
    input_tokens: int(v.input_tokens),
    output_tokens: int(v.output_tokens),
    run_input_tokens: int(v.run_input_tokens),
    run_output_tokens: int(v.run_output_tokens),
    event_count: int(v.event_count),
    last_seq: int(v.last_seq),
    steer_count: int(v.steer_count),
    steers_pending: int(v.steers_pending),
    max_steers: int(v.max_steers),
    last_verification: isRecord(lv) && typeof lv.status === "string"
      ? {
        status: lv.status,
        failures: Array.isArray(lv.failures) ? lv.failures.filter((x): x is string => typeof x === "string") : [],
        at: str(lv.at) ?? "",
      }
      : null,
    agent_control: readAgentControl(v.agent_control),
    view: readViewTotal(v.view),
    writer: { pid: int(writer.pid), hostname: str(writer.hostname) },
  };
}

function readAgentControl(v: unknown): AgentControlSnap | null {
  if (!isRecord(v)) return null;
  const p = isRecord(v.progress) ? v.progress : null;
  const d = isRecord(v.last_directive) ? v.last_directive : null;
  return {
    iteration: int(v.iteration),
    max_iterations: int(v.max_iterations),
    loop: v.loop === true,
    progress: p && typeof p.cursor === "string" && typeof p.summary === "string"
      ? {
        run_id: str(p.run_id) ?? "",
        prompt_id: str(p.prompt_id) ?? "",
        iteration: int(p.iteration),
        cursor: p.cursor,
        unit: str(p.unit),
        summary: p.summary,
        updated_at: str(p.updated_at) ?? "",
        stale: p.stale === true,
      }
      : null,
    last_directive: d && typeof d.action === "string"
      ? { action: d.action, outcome: str(d.outcome) ?? "", reason: str(d.reason) }
      : null,
  };
}

/**
 * The status readers report for a written run status (docs/reference/control-plane.md §4.3): `abandoned` when it says `running` but the lease is
 * `down` (the runner died without closing the run); otherwise the status unchanged. The one place this rule lives:
 * the Control API, `status` and `workspace list` all derive it here.
 */
export function effectiveStatus<S extends string>(status: S, lease: LeaseState["state"]): S | "abandoned" {
  return status === "running" && lease === "down" ? "abandoned" : status;
}

/** What reading a store root's `control/snapshot.json` found. */
export type SnapshotFile =
  | { kind: "none" }
  | { kind: "invalid"; message: string }
  | { kind: "ok"; value: SnapshotRead };

/**
 * Read `control/snapshot.json` of a store root totally (docs/reference/control-plane.md §4.3): `none` when it is missing or has no string `run_id`,
 * `invalid` when it is not a JSON object. I/O errors other than a missing file propagate.
 */
export async function readSnapshotFile(storeRoot: string): Promise<SnapshotFile> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).snapshot);
  if (text === null) return { kind: "none" };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { kind: "invalid", message: errorMessage(e) };
  }
  if (!isRecord(v)) return { kind: "invalid", message: "not a JSON object" };
  const read = readSnapshotTotal(v);
  return read ? { kind: "ok", value: read } : { kind: "none" };
}

/** The snapshot of a store root, or null when it is missing, unreadable or invalid — for readers that never fail. */
export async function readSnapshotOrNull(storeRoot: string): Promise<SnapshotRead | null> {
  // Deliberately tolerant: its callers poll (followers, `stop`, refusal messages) or fall back to the run record, and
  // a path refused by name (a planted FIFO, symlink or directory) is reported by the checked readers that need it.
  const file = await readSnapshotFile(storeRoot).catch(() => null);
  return file?.kind === "ok" ? file.value : null;
}

/** The snapshot a plane writes when it opens (status `running`, stage `starting`). */
export function initialSnapshot(o: {
  runId: string;
  packet: { name: string; dir: string };
  storeRoot: string;
  workspace: string | null;
  selectedCount: number;
  maxSteers: number;
  view: View;
  startedAt: string;
  lastSeq: number;
  eventCount: number;
  /** The run's token totals so far (a resumed run's earlier total). */
  runTokens?: { input: number; output: number };
  hostname: string | null;
}): SnapshotDoc {
  return {
    schema: SNAPSHOT_SCHEMA,
    run_id: o.runId,
    packet: o.packet.name,
    packet_dir: o.packet.dir,
    store_root: o.storeRoot,
    workspace: o.workspace,
    status: "running",
    stage: "starting",
    reason: null,
    prompt_id: null,
    prompt_name: null,
    prompt_position: 0,
    selected_count: o.selectedCount,
    completed_count: 0,
    attempt: null,
    mode: null,
    stream: null,
    provider: null,
    model: null,
    session_id: null,
    session_live: false,
    run_started_at: o.startedAt,
    prompt_started_at: null,
    attempt_started_at: null,
    updated_at: o.startedAt,
    elapsed_ms: 0,
    prompt_elapsed_ms: 0,
    attempt_elapsed_ms: 0,
    tool_count: 0,
    input_tokens: 0,
    output_tokens: 0,
    run_input_tokens: o.runTokens?.input ?? 0,
    run_output_tokens: o.runTokens?.output ?? 0,
    event_count: o.eventCount,
    last_seq: o.lastSeq,
    steer_count: 0,
    steers_pending: 0,
    max_steers: o.maxSteers,
    last_verification: null,
    agent_control: null,
    view: { ...o.view },
    writer: { pid: Deno.pid, hostname: o.hostname },
  };
}
