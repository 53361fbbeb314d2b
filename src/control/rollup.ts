/**
 * The status rollup (docs/reference/workspace.md §8, packet kind): one reconciliation of the run record, the snapshot,
 * `progress.log`, `state.json`, the verification history, steering and amendment records and the lease. Reading is
 * tolerant: a damaged file, or one that exists but cannot be read, becomes `progress.error`, never a crash (an absent
 * file is simply empty). {@link readRollupInputs} performs every read; {@link summarizeRollup} is the pure summary.
 */
import { parseJsonLines } from "../util/fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { nowIso } from "../util/time.ts";
import { latestVerification } from "../contract/history.ts";
import { type LenientProgress, parseProgressLenient } from "../store/progress.ts";
import { readCurrentRunRecord, type RunRecord } from "../store/run_record_read.ts";
import { storePaths } from "../store/paths.ts";
import { mergeStatePending } from "../store/state_pending.ts";
import { type LeaseState, leaseUnit, readLease } from "../store/lease.ts";
import { type Leftovers, readLeftovers } from "./leftovers.ts";
import { effectiveStatus, readSnapshotOrNull, type SnapshotRead } from "./snapshot.ts";
import { steerCountsForRun } from "./interventions.ts";
import { errorMessage, isRecord, jsonRecordOrNull } from "../util/common.ts";
import { Wakeup } from "./tail.ts";
import { timelineOf, type TimelinePrompt } from "./timeline.ts";

export type { TimelineAttempt, TimelinePrompt } from "./timeline.ts";

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
  /** Why the run needs attention when neither the state nor the stop reason says it (docs/status.md), else null. */
  attention: string | null;
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
    /** The current (or last) attempt's tokens. */
    input_tokens: number;
    output_tokens: number;
    /** Every attempt's tokens in this run. */
    run_input_tokens: number;
    run_output_tokens: number;
  } | null;
  steering: { prompt_id: string; used: number; max: number; pending: number; delivered_this_run: number } | null;
  amendments: { prompt_id: string; count: number; phases: string[] }[];
  /** Failed work kept under a ref until the prompt's next run restores it (docs/keep_going.md). */
  preserved: { prompt_id: string; ref: string; repos: string[] }[];
  /** Verified work whose commit failed, kept for the prompt's next run to commit (docs/crash_recovery.md). */
  commit_pending: { prompt_id: string; run_id: string; repos: { repo: string; paths: number }[] }[];
  /** Each selected prompt's attempts in this run, in selection order (prompts without one are left out). */
  timeline: TimelinePrompt[];
  /** Selected prompts whose result in this run is flagged `vacuous` (docs/lint.md), in selection order. */
  vacuous: string[];
  lease: { state: "up" | "down" | "unknown"; pid: number | null; hostname: string | null };
  /** How the live runner was started; `unit` names the systemd user unit of a `systemd` one. */
  service: { mode: "attached" | "detached" | "systemd" | "none"; unit?: string };
  control: (SnapshotRead & { status: string }) | null;
  /** Processes of a run that may have outlived it (docs/processes.md), or null. */
  leftovers: Leftovers | null;
  last_progress_at: string | null;
}

/** Everything a rollup is made of, as read from a store root by {@link readRollupInputs}. */
export interface RollupInputs {
  storeRoot: string;
  record: RunRecord | null;
  snap: SnapshotRead | null;
  lease: LeaseState;
  progressText: string | null;
  stateDoc: Record<string, unknown> | null;
  verification: { status: "pass" | "fail" | "fault"; at: string } | null;
  /** Steers delivered in this run, by prompt. */
  delivered: Map<string, number>;
  /** The amendment records file of each prompt that has one. */
  amendmentTexts: Map<string, string>;
  leftovers: Leftovers | null;
  /** Store files that exist but could not be read (`<why>`, naming the file): reported, never skipped. */
  readErrors: string[];
}

/** Which run the rollup describes: the record's (or else the snapshot's) id, and the snapshot when it is that run's. */
function runIdentity(record: RunRecord | null, snap: SnapshotRead | null) {
  const runId = record?.run_id ?? snap?.run_id ?? null;
  const agrees = runId !== null && snap !== null && snap.run_id === runId;
  const live = agrees ? snap : (!record && snap ? snap : null);
  return { runId, agrees, live };
}

/** Read everything a rollup needs; a file that exists but cannot be read lands in `readErrors` instead of failing. */
export async function readRollupInputs(storeRoot: string): Promise<RollupInputs> {
  const p = storePaths(storeRoot);
  const readErrors: string[] = [];
  const tolerant = async <T>(what: string, read: () => T | Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (e) {
      readErrors.push(`${what} not read: ${errorMessage(e)}`);
      return null;
    }
  };
  // The canonical readers, so `status` follows exactly the run record and snapshot the runner and the Control API do.
  const record = await tolerant("run record", () => readCurrentRunRecord(storeRoot));
  let snap = await readSnapshotOrNull(storeRoot);
  let lease = await readLease(storeRoot);
  // The runner writes its final snapshot before it drops the lease: a `running` snapshot read just before a clean
  // close must not turn into `abandoned`, so read it again once the lease is seen down.
  if (snap?.status === "running" && lease.state === "down") snap = await readSnapshotOrNull(storeRoot);
  // A run that just completed still holds the lease until its runner exits (milliseconds): read the lease again for
  // a moment before calling a completed run's live runner a problem.
  if ((snap?.status ?? record?.state) === "completed" && lease.state === "up") {
    lease = await leaseOnceReleased(storeRoot, lease);
  }
  const { runId, live } = runIdentity(record, snap);
  const progressText = await tolerant(p.progress, () => readStoreTextOrNull(p.progress));
  const stateText = await tolerant(p.state, () => readStoreTextOrNull(p.state));
  const pendingText = await tolerant(p.statePending, () => readStoreTextOrNull(p.statePending));
  const currentId = live?.prompt_id ?? null;
  const verification = currentId
    ? await tolerant("verification history", () => latestVerification(storeRoot, currentId))
    : null;
  const delivered = runId ? await tolerant(p.interventions, () => steerCountsForRun(storeRoot, runId)) : null;
  const amendmentTexts = new Map<string, string>();
  const ids = amendmentPromptIds(record, currentId);
  // One listing instead of a failed lookup per prompt without amendments (most of them; a NotFound error per prompt
  // was ~40 µs each, 0.4 s at 10,000 prompts); a directory that cannot be listed is read file by file.
  const present = ids.length > 1 ? listedNames(p.amendments) : null;
  for (const id of ids) {
    const file = p.amendmentsFile(id);
    if (present !== null && !present.has(file.slice(file.lastIndexOf("/") + 1))) continue;
    const text = await tolerant(file, () => readStoreTextOrNull(file));
    if (text !== null) amendmentTexts.set(id, text);
  }
  return {
    storeRoot: p.root,
    record,
    snap,
    lease,
    progressText,
    stateDoc: withPending(jsonRecordOrNull(stateText), pendingText), // state.json is read leniently
    verification,
    delivered: delivered ?? new Map(),
    amendmentTexts,
    leftovers: await readLeftovers(storeRoot, lease),
    readErrors,
  };
}

/** The entry names of a store directory (empty when it does not exist), or null when it cannot be listed. */
function listedNames(dir: string): Set<string> | null {
  try {
    const names = new Set<string>();
    for (const e of Deno.readDirSync(dir)) names.add(e.name);
    return names;
  } catch (e) {
    return e instanceof Deno.errors.NotFound ? new Set() : null;
  }
}

/** state.json with the entries a live (or dead) runner has not rewritten into it yet (docs/reference/runner.md §10.2). */
function withPending(doc: Record<string, unknown> | null, pending: string | null): Record<string, unknown> | null {
  if (!pending) return doc;
  return mergeStatePending(doc ?? {}, pending);
}

/** How long a completed run's lease is given to be released before the runner is reported as lingering. */
const RELEASE_GRACE_MS = 1000;

/** The lease, read again until it is no longer up or {@link RELEASE_GRACE_MS} passed. */
async function leaseOnceReleased(storeRoot: string, lease: LeaseState): Promise<LeaseState> {
  const until = Date.now() + RELEASE_GRACE_MS;
  while (lease.state === "up" && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    lease = await readLease(storeRoot);
  }
  return lease;
}

/** The prompts whose amendments are counted: the selection, else the current prompt. */
function amendmentPromptIds(record: RunRecord | null, currentId: string | null): string[] {
  const ids = record?.selection.ids ?? [];
  return ids.length ? ids : currentId ? [currentId] : [];
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

/** Prompts of state.json whose commit failed, their verified work kept (`commit_pending`); malformed ones skipped. */
function pendingCommits(prompts: Record<string, unknown>): StatusRollup["commit_pending"] {
  const out: StatusRollup["commit_pending"] = [];
  for (const [id, entry] of Object.entries(prompts)) {
    if (!isRecord(entry) || entry.status !== "commit_failed" || !isRecord(entry.commit_pending)) continue;
    const c = entry.commit_pending;
    if (typeof c.run_id !== "string" || !isRecord(c.repos)) continue;
    const repos = Object.entries(c.repos).map(([repo, f]) => ({
      repo,
      paths: isRecord(f) ? Object.keys(f).length : 0,
    }));
    out.push({ prompt_id: id, run_id: c.run_id, repos });
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

const FAILED_RESULTS = ["failed", "verification_failed", "verifier_fault", "commit_failed"];

/** The `state.json` result status of a prompt, or null. */
function resultOf(prompts: Record<string, unknown>, id: string): Record<string, unknown> | null {
  const entry = prompts[id];
  return isRecord(entry) && isRecord(entry.result) ? entry.result : null;
}

/**
 * How many selected prompts are completed, running, failed, blocked and pending. A prompt's result in this run decides
 * (a rerun that failed is failed, whatever an earlier run completed); a prompt this run has not finished counts by its
 * latest `progress.log` line.
 */
function promptCounts(
  ids: string[],
  running: string | null,
  prog: LenientProgress,
  prompts: Record<string, unknown>,
  runId: string | null,
): Pick<StatusRollup["progress"], "completed" | "running" | "failed" | "blocked" | "pending"> {
  const counts = { completed: 0, running: 0, failed: 0, blocked: 0, pending: 0 };
  for (const id of ids) {
    const result = resultOf(prompts, id);
    const status = typeof result?.status === "string" ? result.status : null;
    const mine = runId !== null && result?.run_id === runId ? status : null;
    const latest = prog.latest.get(id);
    if (running === id) counts.running++;
    else if (mine === "completed") counts.completed++;
    else if (mine === "blocked_by_dependency") counts.blocked++;
    else if (mine !== null && (FAILED_RESULTS.includes(mine) || mine === "interrupted")) counts.failed++;
    else if (latest?.status === "completed") counts.completed++;
    else if (status === "blocked_by_dependency") counts.blocked++;
    else if (latest?.status === "failed" || FAILED_RESULTS.includes(status ?? "")) counts.failed++;
    else counts.pending++;
  }
  return counts;
}

/** The amendments of this run, per prompt (in selection order). */
function amendmentsOf(texts: Map<string, string>, runId: string | null): StatusRollup["amendments"] {
  const out: StatusRollup["amendments"] = [];
  for (const [id, text] of texts) {
    const mine = parseJsonLines(text).filter((r) => runId !== null && r.run_id === runId);
    if (mine.length) {
      out.push({
        prompt_id: id,
        count: mine.length,
        phases: [...new Set(mine.map((r) => String(r.phase)))],
      });
    }
  }
  return out;
}

/**
 * Health from the state, the lease, whether the record and snapshot agree, and the stop reason (docs/status.md):
 * `health` is the header word and `attention` says why a run needs attention when the state alone does not.
 */
function healthOf(
  state: RollupState,
  lease: LeaseState,
  agrees: boolean,
  reason: string | null,
  runId: string | null,
): Pick<StatusRollup, "health" | "healthy" | "attention"> {
  if (state === "not_started") return { health: "not started", healthy: null, attention: null };
  const attention = (why: string) => ({ health: "needs attention" as const, healthy: false, attention: why });
  const healthy = { health: "healthy" as const, healthy: true, attention: null };
  const holder = lease.pid !== null ? ` (pid ${lease.pid})` : "";
  if (state === "running") {
    if (!agrees) return attention("the run record and the snapshot name different runs");
    return lease.state === "down" ? attention("the runner is gone") : healthy;
  }
  if (state === "completed") {
    // A lease up for another run id is the next run starting, not this one lingering.
    const next = typeof lease.info?.run_id === "string" && lease.info.run_id !== runId;
    return lease.state === "down" || next
      ? healthy
      : attention(`the run completed but its runner${holder} still holds the lease: the process has not exited`);
  }
  if (state === "abandoned") {
    return attention("the runner stopped without closing the run; `run --remaining` recovers and continues it");
  }
  return reason === "interrupted"
    ? { health: "stopped", healthy: true, attention: null }
    : { health: "needs attention", healthy: false, attention: null };
}

/** The live parts of a rollup (current prompt, activity, steering): null unless the snapshot is this run's. */
function liveParts(
  live: SnapshotRead | null,
  delivered: Map<string, number>,
): Pick<StatusRollup, "current" | "activity" | "steering"> {
  const currentId = live?.prompt_id ?? null;
  return {
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
        run_input_tokens: live.run_input_tokens,
        run_output_tokens: live.run_output_tokens,
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
  };
}

const VERIFICATION_WORDS = { pass: "passed", fail: "failed", fault: "faulted" } as const;

/** The rollup of what {@link readRollupInputs} read (pure). */
export function summarizeRollup(
  opts: { target: string; packetDir: string; kind?: "packet" | "workspace" },
  inp: RollupInputs,
  checkedAt: string,
): StatusRollup {
  const { record, snap, lease } = inp;
  const { runId, agrees, live } = runIdentity(record, snap);
  const state: RollupState = live
    ? rollupState(effectiveStatus(live.status, lease.state))
    : record
    ? rollupState(effectiveStatus(record.state, lease.state))
    : "not_started";
  const selection = record ? { ids: record.selection.ids, selectors: record.selection.selectors } : null;
  const prog: LenientProgress = inp.progressText === null
    ? { latest: new Map(), error: null }
    : parseProgressLenient(inp.progressText);
  const prompts = isRecord(inp.stateDoc?.prompts) ? inp.stateDoc.prompts : {};
  const ids = selection?.ids ?? [];
  const running = state === "running" ? live?.prompt_id ?? null : null;
  const vacuous = ids.filter((id) => {
    const result = resultOf(prompts, id);
    return result !== null && result.vacuous === true && runId !== null && result.run_id === runId;
  });
  const reason = live?.reason ?? record?.reason ?? null;
  const errors = [prog.error, ...inp.readErrors].filter((e): e is string => e !== null);
  return {
    schema: "prompt_runner.status/v1",
    kind: opts.kind ?? "packet",
    target: opts.target,
    packet_dir: opts.packetDir,
    store_root: inp.storeRoot,
    checked_at: checkedAt,
    state,
    ...healthOf(state, lease, agrees, reason, runId),
    run_id: runId,
    run_id_agrees: agrees,
    selection,
    progress: {
      selected: ids.length || live?.selected_count || 0,
      ...promptCounts(ids, running, prog, prompts, runId),
      current_position: live && live.prompt_position > 0 ? live.prompt_position : null,
      last_verification: inp.verification ? VERIFICATION_WORDS[inp.verification.status] : null,
      reason,
      error: errors.length ? errors.join("; ") : null,
    },
    ...liveParts(live, inp.delivered),
    amendments: amendmentsOf(inp.amendmentTexts, runId),
    preserved: preservedWork(prompts),
    commit_pending: pendingCommits(prompts),
    timeline: timelineOf(ids, prompts, runId),
    vacuous,
    lease: { state: lease.state, pid: lease.pid, hostname: lease.hostname },
    service: serviceOf(lease),
    control: snap ? { ...snap, status: effectiveStatus(snap.status, lease.state) } : null,
    leftovers: inp.leftovers,
    last_progress_at: maxIso(record?.updated_at, snap?.updated_at, ...[...prog.latest.values()].map((v) => v.at)),
  };
}

/** The service part of the rollup: how the runner holding the lease was started (docs/reference/workspace.md §8.1). */
function serviceOf(lease: LeaseState): StatusRollup["service"] {
  if (lease.state !== "up") return { mode: "none" };
  const unit = leaseUnit(lease.info);
  if (unit !== null) return { mode: "systemd", unit };
  return { mode: lease.info?.service === "detached" ? "detached" : "attached" };
}

/** Build the rollup of a packet store root. */
export async function statusRollup(opts: {
  target: string;
  packetDir: string;
  storeRoot: string;
  kind?: "packet" | "workspace";
}): Promise<StatusRollup> {
  return summarizeRollup(opts, await readRollupInputs(opts.storeRoot), nowIso());
}

/** How long `status --watch` waits for a completed run's runner to release its lease before it reports it lingering. */
const WATCH_RELEASE_GRACE_MS = 10_000;

/**
 * Rollups on every change (`status --watch`): yields the first rollup at once, then one per change of the
 * snapshot, run record or progress (woken by `Deno.watchFs` on the control directory plus `intervalMs` polling),
 * and ends after the rollup that shows the run no longer running, or when the signal aborts. A run that completed
 * while its runner still holds the lease is not reported until the lease drops or 10 s pass (the release is under
 * way). With `ticks`, every poll yields, changed or not (a terminal redraws its clocks).
 */
export async function* watchStatus(
  opts: { target: string; packetDir: string; storeRoot: string; kind?: "packet" | "workspace" },
  watch: { intervalMs?: number; signal?: AbortSignal; ticks?: boolean } = {},
): AsyncGenerator<StatusRollup> {
  const wake = new Wakeup(storePaths(opts.storeRoot).control);
  let last = "";
  let lingerUntil: number | null = null;
  try {
    for (;;) {
      const r = await statusRollup(opts);
      // A run that completed while its runner still holds the lease is most likely releasing it right now (its
      // process sweep runs first): wait a bounded moment for the release before the last report says otherwise.
      if (r.state === "completed" && r.healthy === false && r.lease.state === "up" && !watch.signal?.aborted) {
        lingerUntil ??= Date.now() + WATCH_RELEASE_GRACE_MS;
        if (Date.now() < lingerUntil) {
          await wake.wait(Math.min(watch.intervalMs ?? 1000, 100), watch.signal);
          continue;
        }
      }
      const { checked_at: _c, ...rest } = r;
      const key = JSON.stringify({ ...rest, activity: null, control: r.control?.updated_at ?? null });
      if (key !== last || watch.ticks === true) {
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
