/**
 * Reading the run record (docs/reference/runner.md §10.5) and the pure resume decision shared by `plan` and `run`:
 * `runs/current.json` → `runs/<id>/run.json`.
 */
import { storePaths } from "./paths.ts";
import { exists } from "../util/fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";

/** Run record states. */
export type RunState = "running" | "completed" | "failed" | "abandoned" | "superseded";

/** `runs/<run_id>/run.json`. */
export interface RunRecord {
  schema: "prompt_runner.run/v1";
  run_id: string;
  state: RunState;
  packet_fingerprint: string;
  selection: { ids: string[]; selectors: Record<string, unknown> };
  created_at: string;
  updated_at: string;
  resumed_at: string[];
  reason: string | null;
  /** The exit code of the invocation that closed the run (docs/run-summary.md); absent while running and in older records. */
  exit_code?: number;
}

const STATES = new Set(["running", "completed", "failed", "abandoned", "superseded"]);

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Validate a decoded run.json; null when it does not have the expected shape. */
function parseRunRecord(value: unknown): RunRecord | null {
  if (!isMap(value) || typeof value.run_id !== "string" || typeof value.state !== "string") return null;
  if (!STATES.has(value.state)) return null;
  const sel = isMap(value.selection) ? value.selection : {};
  return {
    schema: "prompt_runner.run/v1",
    run_id: value.run_id,
    state: value.state as RunState,
    packet_fingerprint: typeof value.packet_fingerprint === "string" ? value.packet_fingerprint : "",
    selection: {
      ids: Array.isArray(sel.ids) ? sel.ids.filter((x): x is string => typeof x === "string") : [],
      selectors: isMap(sel.selectors) ? sel.selectors : {},
    },
    created_at: typeof value.created_at === "string" ? value.created_at : "",
    updated_at: typeof value.updated_at === "string" ? value.updated_at : "",
    resumed_at: Array.isArray(value.resumed_at)
      ? value.resumed_at.filter((x): x is string => typeof x === "string")
      : [],
    reason: typeof value.reason === "string" ? value.reason : null,
    ...(typeof value.exit_code === "number" && Number.isInteger(value.exit_code) ? { exit_code: value.exit_code } : {}),
  };
}

async function readJson(path: string): Promise<unknown> {
  // Through the store reader: a link or special file there, or a store root that is not a directory, is refused by
  // name (store_integrity) instead of ending in a bare OS error.
  const text = await readStoreTextOrNull(path);
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * The run record `runs/current.json` points at, or null when there is none or it cannot be read (a reader never
 * fails on it; the runner then simply mints a new run).
 */
export async function readCurrentRunRecord(storeRoot: string): Promise<RunRecord | null> {
  const paths = storePaths(storeRoot);
  const pointer = await readJson(paths.currentRun);
  if (!isMap(pointer) || typeof pointer.run_id !== "string" || !/^[\w.-]+$/.test(pointer.run_id)) return null;
  return parseRunRecord(await readJson(`${paths.runDir(pointer.run_id)}/run.json`));
}

/** The record of run `runId` (`runs/<run_id>/run.json`), or null when there is none or it cannot be read. */
export async function readRunRecord(storeRoot: string, runId: string): Promise<RunRecord | null> {
  if (!/^[\w.-]+$/.test(runId)) return null;
  return parseRunRecord(await readJson(`${storePaths(storeRoot).runDir(runId)}/run.json`));
}

/** Whether `run.pid` exists in the store root (a `running` record without it was abandoned). */
export async function runPidPresent(storeRoot: string): Promise<boolean> {
  return await exists(storePaths(storeRoot).runPid);
}

/** Inputs of {@link resumeDecision}. */
export interface ResumeInput {
  record: RunRecord | null;
  /** `--remaining` was given. */
  remaining: boolean;
  /** `--new-run` was given. */
  newRun: boolean;
  /** Fingerprint of the packet as loaded now. */
  fingerprint: string;
  /** Ids selected now. */
  selectedIds: readonly string[];
  /** Whether the lease of a `running` record is held by a live runner. */
  leaseLive: boolean;
}

/** What {@link resumeDecision} decided. */
export interface ResumeDecision {
  action: "new" | "resume";
  /** The run id kept when resuming; null for a new run. */
  runId: string | null;
  /** The resumable predecessor a `--new-run` supersedes, if any. */
  supersedes: string | null;
  /** Set when a predecessor would have been resumed but the packet changed since. */
  changedSince: string | null;
}

/**
 * The resume rule of docs/reference/runner.md §10.5: `--remaining` resumes when the current record is `failed` or `abandoned`
 * (or `running` with a dead lease), the fingerprint is unchanged and the selection is a subset of that run's.
 */
export function resumeDecision(i: ResumeInput): ResumeDecision {
  const r = i.record;
  const resumable = r !== null &&
    (r.state === "failed" || r.state === "abandoned" || (r.state === "running" && !i.leaseLive));
  if (!resumable || !r) return { action: "new", runId: null, supersedes: null, changedSince: null };
  if (i.newRun) return { action: "new", runId: null, supersedes: r.run_id, changedSince: null };
  if (!i.remaining) return { action: "new", runId: null, supersedes: null, changedSince: null };
  if (r.packet_fingerprint !== i.fingerprint) {
    return { action: "new", runId: null, supersedes: null, changedSince: r.run_id };
  }
  const prior = new Set(r.selection.ids);
  if (!i.selectedIds.every((id) => prior.has(id))) {
    return { action: "new", runId: null, supersedes: null, changedSince: null };
  }
  return { action: "resume", runId: r.run_id, supersedes: null, changedSince: null };
}
