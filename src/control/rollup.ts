/**
 * The status rollup (docs/reference/workspace.md §8, packet kind): one reconciliation of the run record, the snapshot,
 * `progress.log`, `state.json`, the verification history, steering and amendment records and the lease. Reading is
 * tolerant: a damaged file becomes `progress.error`, never a crash.
 */
import { parseJsonLines } from "../util/fs.ts";
import { readStoreTextOrNull } from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";
import { latestVerification } from "../contract/history.ts";
import { type LenientProgress, parseProgressLenient } from "../store/progress.ts";
import { readCurrentRunRecord } from "../store/run_record_read.ts";
import { storePaths } from "../store/paths.ts";
import { readLease } from "../store/lease.ts";
import { type Leftovers, readLeftovers } from "./leftovers.ts";
import { effectiveStatus, readSnapshotOrNull, type SnapshotRead } from "./snapshot.ts";
import { steerCountsForRun } from "./interventions.ts";
import { isRecord } from "../util/common.ts";
import { Wakeup } from "./tail.ts";

/** Rollup states. */
export type RollupState = "not_started" | "running" | "completed" | "failed" | "abandoned";

/** The `prompt_runner.status/v1` document. */
export interface StatusRollup {
  schema: "prompt_runner.status/v1";
  kind: "packet" | "workspace";
  target: string;
  packet_dir: string;
  store_root: string;
  checked_at: string;
  state: RollupState;
  healthy: boolean | null;
  health: "not started" | "healthy" | "needs attention" | "stopped";
  run_id: string | null;
  run_id_agrees: boolean;
  selection: { ids: string[]; selectors: Record<string, unknown> } | null;
  progress: {
    selected: number;
    completed: number;
    running: number;
    failed: number;
    blocked: number;
    pending: number;
    current_position: number | null;
    last_verification: "passed" | "failed" | "faulted" | null;
    reason: string | null;
    error: string | null;
  };
  current: {
    prompt_id: string;
    prompt_name: string | null;
    attempt: number | null;
    mode: string | null;
    stream: string | null;
    stage: string;
    provider: string | null;
    model: string | null;
  } | null;
  activity: {
    prompt_elapsed_ms: number;
    updated_at: string | null;
    tool_count: number;
    event_count: number;
    input_tokens: number;
    output_tokens: number;
  } | null;
  steering: { prompt_id: string; used: number; max: number; pending: number; delivered_this_run: number } | null;
  amendments: { prompt_id: string; count: number; phases: string[] }[];
  /** Failed work kept under a ref until the prompt's next run restores it (docs/keep_going.md). */
  preserved: { prompt_id: string; ref: string; repos: string[] }[];
  /** Selected prompts whose result in this run is flagged `vacuous` (docs/lint.md), in selection order. */
  vacuous: string[];
  lease: { state: "up" | "down" | "unknown"; pid: number | null; hostname: string | null };
  service: { mode: "attached" | "detached" | "systemd" | "none" };
  control: (SnapshotRead & { status: string }) | null;
  /** Processes of a run that may have outlived it (docs/processes.md), or null. */
  leftovers: Leftovers | null;
  last_progress_at: string | null;
}

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    const text = await readStoreTextOrNull(path);
    if (text === null) return null;
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** Prompts of state.json with preserved work, as `{prompt_id, ref, repos}` (malformed entries are skipped). */
function preservedWork(prompts: Record<string, unknown>): StatusRollup["preserved"] {
  const out: StatusRollup["preserved"] = [];
  for (const [id, entry] of Object.entries(prompts)) {
    const p = isRecord(entry) && isRecord(entry.preserved) ? entry.preserved : null;
    if (!p || typeof p.ref !== "string") continue;
    const repos = Array.isArray(p.repos) ? p.repos.filter(isRecord).map((r) => String(r.repo)) : [];
    out.push({ prompt_id: id, ref: p.ref, repos });
  }
  return out;
}

/** A reader's status as a rollup state; foreign (`unknown`) and `superseded` statuses read as `abandoned`. */
function rollupState(status: string): RollupState {
  return status === "running" || status === "completed" || status === "failed" ? status : "abandoned";
}

function maxIso(...values: (string | null | undefined)[]): string | null {
  let best: string | null = null;
  let bestT = -Infinity;
  for (const v of values) {
    if (!v) continue;
    const t = Date.parse(v);
    if (Number.isFinite(t) && t > bestT) {
      best = v;
      bestT = t;
    }
  }
  return best;
}

/** Build the rollup of a packet store root. */
export async function statusRollup(opts: {
  target: string;
  packetDir: string;
  storeRoot: string;
  kind?: "packet" | "workspace";
}): Promise<StatusRollup> {
  const p = storePaths(opts.storeRoot);
  // The canonical readers, so `status` follows exactly the run record and snapshot the runner and the Control API do.
  const record = await readCurrentRunRecord(opts.storeRoot).catch(() => null);
  let snap = await readSnapshotOrNull(opts.storeRoot);
  const lease = await readLease(opts.storeRoot);
  // The runner writes its final snapshot before it drops the lease: a `running` snapshot read just before a clean
  // close must not turn into `abandoned`, so read it again once the lease is seen down.
  if (snap?.status === "running" && lease.state === "down") snap = await readSnapshotOrNull(opts.storeRoot);
  const runId = record?.run_id ?? snap?.run_id ?? null;
  const agrees = runId !== null && snap !== null && snap.run_id === runId;
  const live = agrees ? snap : (!record && snap ? snap : null);
  const state: RollupState = live
    ? rollupState(effectiveStatus(live.status, lease.state))
    : record
    ? rollupState(effectiveStatus(record.state, lease.state))
    : "not_started";
  const selection = record ? { ids: record.selection.ids, selectors: record.selection.selectors } : null;
  const progressText = await readStoreTextOrNull(p.progress).catch(() => null);
  const prog: LenientProgress = progressText === null
    ? { latest: new Map(), error: null }
    : parseProgressLenient(progressText);
  const stateDoc = await readJson(p.state);
  const prompts = isRecord(stateDoc?.prompts) ? stateDoc.prompts : {};
  const resultStatus = (id: string): string | null => {
    const entry = prompts[id];
    if (!isRecord(entry)) return null;
    return isRecord(entry.result) && typeof entry.result.status === "string" ? entry.result.status : null;
  };
  const ids = selection?.ids ?? [];
  const counts = { completed: 0, running: 0, failed: 0, blocked: 0, pending: 0 };
  for (const id of ids) {
    const result = resultStatus(id);
    const latest = prog.latest.get(id);
    if (state === "running" && live?.prompt_id === id) counts.running++;
    else if (latest?.status === "completed") counts.completed++;
    else if (result === "blocked_by_dependency") counts.blocked++;
    else if (
      latest?.status === "failed" ||
      ["failed", "verification_failed", "verifier_fault", "commit_failed"].includes(result ?? "")
    ) counts.failed++;
    else counts.pending++;
  }
  const currentId = live?.prompt_id ?? null;
  const verification = currentId ? await latestVerification(opts.storeRoot, currentId).catch(() => null) : null;
  const delivered = runId ? steerCountsForRun(opts.storeRoot, runId) : new Map<string, number>();
  const amendments: StatusRollup["amendments"] = [];
  const amendIds = ids.length ? ids : currentId ? [currentId] : [];
  for (const id of amendIds) {
    const text = await readStoreTextOrNull(p.amendmentsFile(id)).catch(() => null);
    if (text === null) continue;
    const mine = parseJsonLines(text).filter((r) => runId !== null && r.run_id === runId);
    if (mine.length) {
      amendments.push({ prompt_id: id, count: mine.length, phases: [...new Set(mine.map((r) => String(r.phase)))] });
    }
  }
  const preserved = preservedWork(prompts);
  const vacuous = ids.filter((id) => {
    const entry = prompts[id];
    const result = isRecord(entry) && isRecord(entry.result) ? entry.result : null;
    return result !== null && result.vacuous === true && runId !== null && result.run_id === runId;
  });
  const reason = live?.reason ?? record?.reason ?? null;
  let health: StatusRollup["health"];
  let healthy: boolean | null;
  if (state === "not_started") [health, healthy] = ["not started", null];
  else if (state === "running") {
    healthy = lease.state !== "down" && agrees;
    health = healthy ? "healthy" : "needs attention";
  } else if (state === "completed") {
    healthy = lease.state === "down";
    health = healthy ? "healthy" : "needs attention";
  } else if (reason === "interrupted") [health, healthy] = ["stopped", true];
  else [health, healthy] = ["needs attention", false];
  const progressTimes = [...prog.latest.values()].map((v) => v.at);
  const leaseOut = { state: lease.state, pid: lease.pid, hostname: lease.hostname };
  return {
    schema: "prompt_runner.status/v1",
    kind: opts.kind ?? "packet",
    target: opts.target,
    packet_dir: opts.packetDir,
    store_root: p.root,
    checked_at: nowIso(),
    state,
    healthy,
    health,
    run_id: runId,
    run_id_agrees: agrees,
    selection,
    progress: {
      selected: ids.length || live?.selected_count || 0,
      ...counts,
      current_position: live && live.prompt_position > 0 ? live.prompt_position : null,
      last_verification: verification
        ? verification.status === "pass" ? "passed" : verification.status === "fail" ? "failed" : "faulted"
        : null,
      reason,
      error: prog.error,
    },
    current: live && currentId
      ? {
        prompt_id: currentId,
        prompt_name: live.prompt_name,
        attempt: live.attempt,
        mode: live.mode,
        stream: live.stream,
        stage: live.stage,
        provider: live.provider,
        model: live.model,
      }
      : null,
    activity: live
      ? {
        prompt_elapsed_ms: live.prompt_elapsed_ms,
        updated_at: live.updated_at,
        tool_count: live.tool_count,
        event_count: live.event_count,
        input_tokens: live.input_tokens,
        output_tokens: live.output_tokens,
      }
      : null,
    steering: live && currentId
      ? {
        prompt_id: currentId,
        used: live.steer_count + live.steers_pending,
        max: live.max_steers,
        pending: live.steers_pending,
        delivered_this_run: [...delivered.values()].reduce((a, b) => a + b, 0),
      }
      : null,
    amendments,
    preserved,
    vacuous,
    lease: leaseOut,
    service: { mode: lease.state === "up" ? (lease.info?.service === "detached" ? "detached" : "attached") : "none" },
    control: snap ? { ...snap, status: effectiveStatus(snap.status, lease.state) } : null,
    leftovers: await readLeftovers(opts.storeRoot, lease),
    last_progress_at: maxIso(
      record?.updated_at,
      snap?.updated_at,
      ...progressTimes,
    ),
  };
}

/**
 * Rollups on every change (`status --watch`): yields the first rollup at once, then one per change of the
 * snapshot, run record or progress (woken by `Deno.watchFs` on the control directory plus `intervalMs` polling),
 * and ends after the rollup that shows the run no longer running, or when the signal aborts.
 */
export async function* watchStatus(
  opts: { target: string; packetDir: string; storeRoot: string; kind?: "packet" | "workspace" },
  watch: { intervalMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<StatusRollup> {
  const wake = new Wakeup(storePaths(opts.storeRoot).control);
  let last = "";
  try {
    for (;;) {
      const r = await statusRollup(opts);
      const { checked_at: _c, ...rest } = r;
      const key = JSON.stringify({ ...rest, activity: null, control: r.control?.updated_at ?? null });
      if (key !== last) {
        last = key;
        yield r;
      }
      if (r.state !== "running" || watch.signal?.aborted) return;
      await wake.wait(watch.intervalMs ?? 1000, watch.signal);
      if (watch.signal?.aborted) return;
    }
  } finally {
    await wake.close();
  }
}
