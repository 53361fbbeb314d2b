/**
 * Opening a leased run (docs/reference/runner.md §1, docs/reference/control-plane.md §4): the run record, then the run's environment and live
 * slot, the steer desk and the plane hooks built on them, then the plane, and only then the {@link RunContext} —
 * so every hook and the desk exist before the plane can call them, and the context never lacks its plane.
 * Also the signal handlers of a run.
 */
import { nullPlane, openPlane } from "../control/plane.ts";
import { DEFAULT_RETENTION } from "../control/runner_api.ts";
import type { PlaneHooks, RunnerPlane } from "../control/runner_api.ts";
import type { Lease } from "../store/mod.ts";
import type { Envelope } from "../events/mod.ts";
import { encodeEnvelope } from "../events/json.ts";
import { packetFingerprint } from "../packet/fingerprint.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { newRunId } from "../util/time.ts";
import { amendedFingerprint, recordAmendedFingerprint } from "./amended_fingerprint.ts";
import { newRenderer } from "./attempt.ts";
import { RunContext, RunEnv, RunScope } from "./context.ts";
import { hardStop, INTERRUPTED_EXIT } from "./interrupts.ts";
import { LiveSlot } from "./live_slot.ts";
import { readProgress } from "../store/progress.ts";
import type { RunRequest } from "./run_request.ts";
import { closeRunRecord, type OpenedRun, openRunRecord } from "../store/run_record.ts";
import type { StateStore } from "./state.ts";
import { SteerDesk, steerGate } from "./steering.ts";
import { escapeControlKeepLines } from "../util/escape.ts";

/** The run record as opened (a run without a store root has none). */
export type RunOpening = OpenedRun | { runId: string; resumed: false; record: null; notice: null };

/** The envelope context of run-level events. */
export const NO_CONTEXT = { prompt_id: null, attempt: null, stream: null, provider: null, session_id: null };

/** Open (or resume) the run record; without a lease (no store root) only a fresh run id. */
export async function openRun(
  req: RunRequest,
  packet: Packet,
  ids: string[],
  lease: Lease | null,
): Promise<RunOpening> {
  const persist = lease !== null;
  const fingerprint = await packetFingerprint(packet);
  // A packet changed only by persisted amendments still resumes its run (docs/amendments.md).
  const amendedFrom = persist ? await amendedFingerprint(req.storeRoot, fingerprint) : null;
  const opened: RunOpening = persist
    ? await openRunRecord(req.storeRoot, {
      // `repair` continues a failed run that selected the prompt (same id, attempt numbering goes on).
      remaining: req.selection.remaining || req.repairFirst === true,
      newRun: req.newRun,
      fingerprint: amendedFrom?.from ?? fingerprint,
      ids,
      selectors: {
        ids: req.selection.ids,
        phase: req.selection.phase,
        remaining: req.selection.remaining,
        from: req.selection.from,
        through: req.selection.through,
      },
    })
    : { runId: newRunId(), resumed: false, record: null, notice: null };
  if (opened.record && amendedFrom) await recordAmendedFingerprint(req.storeRoot, opened, fingerprint, amendedFrom);
  if (opened.notice) req.io.stderr.write(escapeControlKeepLines(opened.notice) + "\n");
  await lease?.setRunId(opened.runId);
  return opened;
}

function maxSteersFor(packet: Packet): (id: string) => number {
  const byId = new Map(packet.prompts.map((p) => [p.id, p.options.recovery.max_steers]));
  return (id) => byId.get(id) ?? packet.options.recovery.max_steers;
}

/** The run's context and steer desk, with the plane open (and, without a store root, `run_opened` recorded). */
export async function openContext(
  req: RunRequest,
  packet: Packet,
  prompts: Prompt[],
  state: StateStore,
  lease: Lease | null,
  opened: RunOpening,
  track: (plane: RunnerPlane) => RunnerPlane = (plane) => plane,
): Promise<{ ctx: RunContext; desk: SteerDesk }> {
  const persist = lease !== null;
  const progress = await readProgress(req.storeRoot);
  const env = new RunEnv(packet, req.storeRoot, opened.runId, state, lease, req.io, {
    commit: req.commit,
    keepGoing: req.keepGoing,
    repairFirst: req.repairFirst ?? false,
    resumed: opened.resumed,
    persist,
    random: req.random ?? Math.random,
  });
  const scope = new RunScope(env, new LiveSlot(packet.options.view));
  // The desk schedules interrupts from the plane's steer ledger, so it exists only once the plane is open; the plane
  // hands over accepted steers only from a boundary after it opened (until then they wait in the ledger's queue, and
  // the desk kicks when a stream goes live).
  const deskSlot: { desk: SteerDesk | null } = { desk: null };
  const ids = prompts.map((p) => p.id);
  // `track` sees every transition and event (the live status line and heartbeat, src/run/run_progress.ts).
  const plane = track(await openRunPlane(req, scope, opened, ids, planeHooks(scope, deskSlot)));
  const desk = new SteerDesk(scope, plane.steers, plane);
  deskSlot.desk = desk;
  const ctx = new RunContext(scope, plane, progress);
  if (!persist) {
    // The null plane records nothing on its own: the runner opens (and closes) the stream itself.
    ctx.record(
      { type: "run_opened", data: { packet: packet.name, selection: ids, resumed: false, view: { ...ctx.view } } },
      NO_CONTEXT,
    );
  }
  return { ctx, desk };
}

/** The control plane of a run: files under the store root, or the null plane without one. */
async function openRunPlane(
  req: RunRequest,
  scope: RunScope,
  opened: RunOpening,
  ids: string[],
  hooks: PlaneHooks,
): Promise<RunnerPlane> {
  const { packet, io } = scope;
  // `run --json`: every envelope the plane records, in seq order, the moment it is recorded.
  const onRecord = io.json ? (env: Envelope) => io.stdout.write(encodeEnvelope(env) + "\n") : undefined;
  if (!scope.persist) return nullPlane(opened.runId, scope.view, hooks, onRecord);
  return await openPlane({
    storeRoot: req.storeRoot,
    runId: opened.runId,
    resumed: opened.resumed,
    packet: { name: packet.name, dir: packet.dir },
    workspace: req.kind === "workspace" ? req.label : null,
    view: scope.view,
    selectedCount: ids.length,
    maxSteers: packet.options.recovery.max_steers,
    maxSteersFor: maxSteersFor(packet),
    hooks,
    selection: ids,
    ...(onRecord ? { onRecord } : {}),
    ...(req.events?.segmentBytes !== undefined ? { segmentBytes: req.events.segmentBytes } : {}),
    ...(req.snapshotCoalesceMs !== undefined ? { snapshotCoalesceMs: req.snapshotCoalesceMs } : {}),
    retention: {
      keepRuns: req.events?.keepRuns ?? DEFAULT_RETENTION.keepRuns,
      keepBytes: req.events?.keepBytes ?? DEFAULT_RETENTION.keepBytes,
    },
  });
}

/** What the plane asks of the runner, answered from the scope and the desk (never from the plane itself). */
function planeHooks(scope: RunScope, deskSlot: { readonly desk: SteerDesk | null }): PlaneHooks {
  return {
    applyView(view, changed) {
      const before = scope.view.log_mode;
      scope.slot.setView(view);
      const live = scope.live;
      if (!live) return;
      const prompt = scope.packet.prompts.find((p) => p.id === live.promptId);
      if (changed.log_mode !== undefined && changed.log_mode !== before && prompt) {
        // The outgoing renderer ends its open line; the new one continues the same stream (open tools, counters).
        scope.breakStream();
        scope.slot.replaceRenderer(newRenderer(scope, prompt, live.renderer.streamState()));
      } else {
        const { log_mode: _m, ...rest } = changed;
        live.renderer.setView(rest);
      }
    },
    steerGate: () => steerGate(scope),
    steerAccepted: () => deskSlot.desk?.accepted(),
    notice(text, level) {
      scope.say(text, level === "error" ? "red" : level === "warning" ? "yellow" : undefined);
    },
  };
}

/** Signals that arrived while the run was opening, before its context existed ({@link holdSignals}). */
export interface HeldSignals {
  /** How many arrived. */
  count: number;
  /** Remove the listeners (once {@link listenForSignals} has its own, or when the run never opened). */
  release(): void;
}

/**
 * Listen for SIGINT and SIGTERM from the run's first step: a signal that arrives while the run opens (its first
 * `--json` lines are out by then) is counted and handled as soon as the run's context exists, by
 * {@link listenForSignals} — the run closes as interrupted (exit 130) instead of dying by the signal and being found
 * abandoned. A second one before then exits at once with 130, as a second Ctrl-C does.
 */
export function holdSignals(): HeldSignals {
  const held: HeldSignals = { count: 0, release: () => {} };
  held.release = onStopSignals(() => {
    held.count++;
    if (held.count >= 2) Deno.exit(INTERRUPTED_EXIT);
  });
  return held;
}

/** Call `handler` on SIGINT and SIGTERM; returns the function that removes it. */
function onStopSignals(handler: () => void): () => void {
  const sigs: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of sigs) {
    try {
      Deno.addSignalListener(s, handler);
    } catch { /* signals unsupported */ }
  }
  return () => {
    for (const s of sigs) {
      try {
        Deno.removeSignalListener(s, handler);
      } catch { /* ignore */ }
    }
  };
}

/**
 * Signals: the first interrupts the live provider and closes the run as interrupted (exit 130); a second kills the
 * provider at once, then still closes the plane and the run record and releases the lease before exiting 130.
 * Signals `held` while the run opened are handled now, in order. Returns the function that removes the listeners.
 */
export function listenForSignals(
  ctx: RunContext,
  opened: RunOpening,
  lastWords: (() => Promise<unknown>) | null = null,
  held: HeldSignals | null = null,
): () => void {
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      ctx.slot.interrupt();
      const live = ctx.live;
      if (live) {
        const prompt = ctx.packet.prompts.find((p) => p.id === live.promptId);
        void live.session.interrupt("operator_stop", prompt?.options.recovery.interrupt_grace_ms ?? 5000);
      }
    } else if (signals === 2) {
      ctx.live?.session.kill();
      const record = opened.record;
      void hardStop(
        ctx.plane,
        ctx.lease,
        record ? () => closeRunRecord(ctx.storeRoot, record, "failed", "interrupted", INTERRUPTED_EXIT) : null,
        lastWords,
      );
    }
  };
  const stop = onStopSignals(onSignal);
  // Installed before the held listeners go: no signal falls between the two.
  if (held) {
    held.release();
    for (let i = 0; i < held.count; i++) onSignal();
  }
  return stop;
}
