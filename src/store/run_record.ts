/**
 * Run ids and run records (docs/reference/runner.md §10.5): `runs/<run_id>/run.json`, the `runs/current.json` pointer, the resume
 * rule, `--new-run` superseding, the fingerprint-change notice, and the run journal's lifecycle entries.
 */
import { storePaths } from "./paths.ts";
import { atomicWriteStoreJson, ensureStoreDir } from "../util/safe_fs.ts";
import { newRunId, nowIso } from "../util/time.ts";
import { appendJournal } from "./journal.ts";
import { readCurrentRunRecord, resumeDecision, type RunRecord } from "./run_record_read.ts";

/** Schema tag of `run.json`. */
const RUN_SCHEMA = "prompt_runner.run/v1";

export type { RunRecord, RunState } from "./run_record_read.ts";

/** The run named by `runs/current.json`, or null (the same reader `plan` uses). */
export const readCurrentRun: (storeRoot: string) => Promise<RunRecord | null> = readCurrentRunRecord;

/** Write a run record atomically. */
export async function writeRunRecord(storeRoot: string, rec: RunRecord): Promise<void> {
  const dir = storePaths(storeRoot).runDir(rec.run_id);
  await ensureStoreDir(storeRoot, dir);
  rec.updated_at = nowIso();
  await atomicWriteStoreJson(`${dir}/run.json`, rec);
}

async function writeCurrent(storeRoot: string, runId: string): Promise<void> {
  const p = storePaths(storeRoot);
  await ensureStoreDir(p.root, p.runs);
  await atomicWriteStoreJson(p.currentRun, { run_id: runId, path: `runs/${runId}/run.json` });
}

/** What the resume rule needs. */
export interface RunDecisionInput {
  previous: RunRecord | null;
  remaining: boolean;
  newRun: boolean;
  fingerprint: string;
  ids: string[];
}

/** Outcome of the resume rule. */
export type RunDecision =
  | { action: "resume"; runId: string }
  | { action: "new"; supersede: string | null; fingerprintChangedFrom: string | null };

/**
 * The resume rule of docs/reference/runner.md §10.5, as the runner applies it: the caller already holds the lease, so a `running`
 * predecessor is known dead. Delegates to the one rule `plan` also uses ({@link resumeDecision}).
 */
export function decideRun(input: RunDecisionInput): RunDecision {
  const d = resumeDecision({
    record: input.previous,
    remaining: input.remaining,
    newRun: input.newRun,
    fingerprint: input.fingerprint,
    selectedIds: input.ids,
    leaseLive: false,
  });
  if (d.action === "resume" && d.runId) return { action: "resume", runId: d.runId };
  return { action: "new", supersede: d.supersedes, fingerprintChangedFrom: d.changedSince };
}

/** The run this invocation works under. */
export interface OpenedRun {
  runId: string;
  resumed: boolean;
  record: RunRecord;
  /** A line for stderr (`packet changed since run <old>; starting run <new>`), or null. */
  notice: string | null;
}

/** Apply the resume rule and write the run record and `current.json`. */
export async function openRunRecord(
  storeRoot: string,
  opts: {
    remaining: boolean;
    newRun: boolean;
    fingerprint: string;
    ids: string[];
    selectors: Record<string, unknown>;
    runId?: string;
  },
): Promise<OpenedRun> {
  const previous = await readCurrentRun(storeRoot);
  const d = decideRun({ previous, ...opts });
  const now = nowIso();
  if (d.action === "resume" && previous) {
    const { exit_code: _closed, ...kept } = previous; // the earlier close's exit code is not this invocation's
    const record: RunRecord = {
      ...kept,
      state: "running",
      resumed_at: [...previous.resumed_at, now],
      reason: null,
    };
    await writeRunRecord(storeRoot, record);
    await writeCurrent(storeRoot, record.run_id);
    await appendJournal(storeRoot, record.run_id, "run_resumed", { ids: opts.ids, resumed_at: now });
    return { runId: record.run_id, resumed: true, record, notice: null };
  }
  const runId = opts.runId ?? newRunId();
  if (d.action === "new" && d.supersede && previous) {
    await writeRunRecord(storeRoot, { ...previous, state: "superseded", reason: "superseded by --new-run" });
    await appendJournal(storeRoot, previous.run_id, "run_superseded", { by: runId, reason: "superseded by --new-run" });
  }
  const record: RunRecord = {
    schema: RUN_SCHEMA,
    run_id: runId,
    state: "running",
    packet_fingerprint: opts.fingerprint,
    selection: { ids: opts.ids, selectors: opts.selectors },
    created_at: now,
    updated_at: now,
    resumed_at: [],
    reason: null,
  };
  await writeRunRecord(storeRoot, record);
  await writeCurrent(storeRoot, runId);
  await appendJournal(storeRoot, runId, "run_created", {
    ids: opts.ids,
    selectors: opts.selectors,
    packet_fingerprint: opts.fingerprint,
    ...(d.action === "new" && d.supersede ? { supersedes: d.supersede } : {}),
  });
  const notice = d.action === "new" && d.fingerprintChangedFrom
    ? `packet changed since run ${d.fingerprintChangedFrom}; starting run ${runId}`
    : null;
  return { runId, resumed: false, record, notice };
}

/** Close a run record (`completed` or `failed` with a reason, and the exit code of the closing invocation). */
export async function closeRunRecord(
  storeRoot: string,
  record: RunRecord,
  state: "completed" | "failed",
  reason: string | null,
  exitCode: number | null = null,
): Promise<void> {
  const { exit_code: _earlier, ...rest } = record;
  await writeRunRecord(storeRoot, { ...rest, state, reason, ...(exitCode === null ? {} : { exit_code: exitCode }) });
  await appendJournal(storeRoot, record.run_id, state === "completed" ? "run_completed" : "run_failed", { reason });
}
