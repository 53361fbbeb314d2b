/**
 * The run pipeline (docs/reference/runner.md §1): plan, dry-run, preflight, select, lease, run record, control plane, the prompt
 * loop with dependency blocking, fail-fast or keep-going, signals, and closing. Returns the exit code.
 */
import { acquireLease, type Lease } from "../store/lease.ts";
import { ensureStoreRoot } from "../store/layout.ts";
import { assertStoreIntact } from "../store/guard.ts";
import { nullPlane, openPlane } from "../control/plane.ts";
import { steerCountsForRun } from "../control/interventions.ts";
import type { PlaneHooks } from "../control/plane_types.ts";
import { RunFailedError } from "../errors.ts";
import type { Envelope, View } from "../events/types.ts";
import { encodeEnvelope } from "../events/json.ts";
import { loadPacket } from "../packet/load.ts";
import { packetFingerprint } from "../packet/fingerprint.ts";
import { type Selection, selectPrompts } from "../packet/select.ts";
import type { OptionOverrides, Packet, Prompt } from "../packet/types.ts";
import { newRunId } from "../util/time.ts";
import { failpoint } from "../util/failpoint.ts";
import { newRenderer } from "./attempt.ts";
import { type CommitPolicy, RunContext, type RunIo } from "./context.ts";
import { printDryRun } from "./dry_run.ts";
import { keepGoingSummary, NOTHING_TO_RUN, preservedLines } from "./output.ts";
import { runPermissionChecks, runPreflightChecks } from "./preflight_checks.ts";
import { beginPrompt, endPrompt, refuseDirtyRepos } from "./prompt_guard.ts";
import type { PreservedWork } from "./preserve.ts";
import { preflight, type PromptOutcome, runPromptChain } from "./prompt_chain.ts";
import { readProgress } from "../store/progress.ts";
import { closeRunRecord, openRunRecord } from "../store/run_record.ts";
import { appendJournal } from "../store/journal.ts";
import { lintGate } from "./lint_gate.ts";
import { probeVacuous, vacuousSummaryLine } from "./vacuous.ts";
import { amendedFingerprint, recordAmendedFingerprint } from "./amended_fingerprint.ts";
import { StateStore } from "./state.ts";
import type { RecoveryTarget } from "./crash_recovery.ts";
import { recoverAtStart, recoveryPending } from "./recover_at_start.ts";
import { hardStop, INTERRUPTED_EXIT } from "./interrupts.ts";
import { SteerDesk } from "./steering.ts";

/** Everything `run` (and `repair`) decide from the command line. */
export interface RunRequest {
  packetDir: string;
  storeRoot: string;
  label: string;
  kind: "packet" | "workspace";
  selection: Selection;
  overrides: OptionOverrides;
  newRun: boolean;
  /** `--verify-first` (true), `--no-verify-first` (false), or default (null). */
  verifyFirst: boolean | null;
  keepGoing: boolean;
  commit: CommitPolicy;
  skipPreflight: boolean;
  /** `--allow-dirty`: run on target repos with uncommitted changes, keeping those paths out of every prompt. */
  allowDirty?: boolean;
  dryRun: boolean;
  /** The `repair` command: the first attempt is a repair built from the last recorded verification. */
  repairFirst?: boolean;
  io: RunIo;
  argv: string[];
  /** Random source for retry jitter (tests). */
  random?: () => number;
  /**
   * `--runtime-store` (docs/reference/runner.md §1, docs/reference/cli.md §3.1): `file` (default) keeps state under the store root; `memory`
   * and `noop` write no store root at all — no control directory, lease, logs, progress or state.
   */
  runtimeStore?: RuntimeStore;
  /** `--strict` (docs/lint.md): every lint finding refuses the run, and a vacuous verdict fails its prompt. */
  strict?: boolean;
}

/** Where a run keeps its state (`--runtime-store`). */
export type RuntimeStore = "file" | "memory" | "noop";

/** Whether a runtime store writes the store root (pure). */
export function writesStoreRoot(store: RuntimeStore | undefined): boolean {
  return (store ?? "file") === "file";
}

/** Per-prompt line of the final `run_summary`. */
interface SummaryPrompt {
  id: string;
  status: string;
  attempts: number;
  reason: string | null;
  failure_class: string | null;
  commit: unknown;
  /** The prompt's verdict was vacuous (src/run/vacuous.ts). */
  vacuous?: boolean;
  /** The failed prompt's preserved work (docs/keep_going.md). */
  preserved?: PreservedWork;
}

function maxSteersFor(packet: Packet): (id: string) => number {
  const byId = new Map(packet.prompts.map((p) => [p.id, p.options.recovery.max_steers]));
  return (id) => byId.get(id) ?? packet.options.recovery.max_steers;
}

/** Journal a prompt's final state in this run (docs/reference/runner.md §10.5). */
function journalPromptFinished(storeRoot: string, runId: string, o: PromptOutcome): Promise<unknown> {
  return appendJournal(storeRoot, runId, "prompt_finished", {
    prompt: o.id,
    status: o.status,
    attempts: o.attempts,
    reason: o.reason,
    failure_class: o.failureClass,
    commit: o.commit,
  });
}

/** Execute a packet run; returns the exit code (docs/reference/cli.md §3.1). */
export async function runPacket(req: RunRequest): Promise<number> {
  const { io } = req;
  const packet = await loadPacket(req.packetDir, { overrides: req.overrides });
  assertStoreIntact(req.storeRoot); // planted links and special files are refused before anything reads them
  const progress = await readProgress(req.storeRoot);
  const prompts = selectPrompts(packet, req.selection, progress);
  // No vacuous verdicts: refuse (exit 3) what would make a selected prompt's check silently not happen.
  await lintGate(req.packetDir, {
    overrides: req.overrides,
    ids: prompts.map((p) => p.id),
    strict: req.strict === true,
  });
  if (req.dryRun) {
    await printDryRun(packet, prompts, req.storeRoot, req.commit, io);
    return 0;
  }
  // `--skip-preflight` skips the repo and lane probes, never the run-permission check: that one spawns nothing.
  const problems = req.skipPreflight
    ? await runPermissionChecks(packet, prompts, req.storeRoot)
    : await runPreflightChecks(packet, prompts, req.storeRoot);
  if (problems.length) {
    throw new RunFailedError("preflight_failed", "preflight failed", { hints: problems });
  }
  // Nothing remains — unless recovery has work (a dead run to close, a completion to correct): then it goes on.
  const quiet = req.selection.remaining && prompts.length === 0 &&
    !(writesStoreRoot(req.runtimeStore) && await recoveryPending(packet, req.storeRoot));
  if (quiet) {
    if (!io.json) io.stdout.write(NOTHING_TO_RUN + "\n");
    else {io.stdout.write(
        JSON.stringify({ type: "run_summary", run_id: null, status: "completed", prompts: [] }) + "\n",
      );}
    return 0;
  }
  if (!writesStoreRoot(req.runtimeStore)) {
    // No store root: in-memory state, no lease, no run record, a null plane.
    await refuseDirtyRepos(packet, prompts, req.storeRoot, req.allowDirty === true, null);
    return await runLeased(req, packet, prompts, StateStore.memory(), null);
  }
  const state = await StateStore.open(req.storeRoot);
  ensureStoreRoot(req.storeRoot, { kind: req.kind, packetDir: packet.dir });
  const lease = await acquireLease(req.storeRoot, {
    runId: newRunId(),
    packetDir: packet.dir,
    argv: req.argv,
    label: packet.name,
    service: serviceMode(),
  });
  try {
    // Crash recovery (docs/crash_recovery.md): reconcile progress.log, state.json and git before anything runs.
    const plan = await recoverAtStart(packet, state, (l) => io.stderr.write(l + "\n"));
    let selected = prompts;
    if (plan.appends.length > 0) selected = selectPrompts(packet, req.selection, await readProgress(req.storeRoot));
    if (req.selection.remaining && selected.length === 0 && !plan.leftovers && !io.json) {
      io.stdout.write(NOTHING_TO_RUN + "\n");
    }
    // After the lease (a live runner's own work is not the user's: exit 5 wins) and after crash recovery, which
    // gives an interrupted prompt's leftovers to that prompt (docs/keep_going.md).
    const owner = plan.leftovers ? packet.prompts.find((p) => p.id === plan.leftovers!.promptId) : undefined;
    const guarded = owner && !selected.includes(owner) ? [owner, ...selected] : selected;
    await refuseDirtyRepos(packet, guarded, req.storeRoot, req.allowDirty === true, state);
    return await runLeased(req, packet, selected, state, lease, plan.leftovers);
  } finally {
    await lease.release();
  }
}

async function runLeased(
  req: RunRequest,
  packet: Packet,
  prompts: Prompt[],
  state: StateStore,
  lease: Lease | null,
  leftovers: RecoveryTarget | null = null,
): Promise<number> {
  const { io } = req;
  // Leftover changes of an interrupted prompt belong to it: that prompt goes first, continuing its attempt.
  const first = leftovers ? packet.prompts.find((p) => p.id === leftovers.promptId) : undefined;
  if (first) prompts = [first, ...prompts.filter((p) => p.id !== first.id)];
  const persist = lease !== null;
  const ids = prompts.map((p) => p.id);
  const fingerprint = await packetFingerprint(packet);
  // A packet changed only by persisted amendments still resumes its run (docs/amendments.md).
  const amendedFrom = persist ? await amendedFingerprint(req.storeRoot, fingerprint) : null;
  const opened = persist
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
  if (opened.notice) io.stderr.write(opened.notice + "\n");
  await lease?.setRunId(opened.runId);
  const progress = await readProgress(req.storeRoot);
  const ctx = new RunContext(packet, req.storeRoot, opened.runId, state, progress, lease, io, {
    commit: req.commit,
    keepGoing: req.keepGoing,
    repairFirst: req.repairFirst ?? false,
    resumed: opened.resumed,
    persist,
    random: req.random ?? Math.random,
  });
  const desk = new SteerDesk(ctx, maxSteersFor(packet));
  // A resumed run continues its steer counts (rebuilt from interventions/ records of the same run id).
  if (opened.resumed) {
    for (const [id, n] of steerCountsForRun(req.storeRoot, opened.runId)) {
      desk.delivered.set(id, n);
    }
  }
  const hooks: PlaneHooks = {
    applyView(view: View, changed: Partial<View>) {
      const before = ctx.view.log_mode;
      ctx.view = { ...view };
      const live = ctx.live;
      if (!live) return;
      const prompt = packet.prompts.find((p) => p.id === live.promptId);
      if (changed.log_mode !== undefined && changed.log_mode !== before && prompt) {
        live.renderer = newRenderer(ctx, prompt);
      } else {
        const { log_mode: _m, ...rest } = changed;
        live.renderer.setView(rest);
      }
    },
    steerGate: () => desk.gate(),
    steerAccepted: (steer) => desk.accepted(steer),
    notice(text, level) {
      ctx.say(text, level === "error" ? "red" : level === "warning" ? "yellow" : undefined);
    },
  };
  // `run --json`: every envelope the plane records, in seq order, the moment it is recorded.
  const onRecord = io.json ? (env: Envelope) => io.stdout.write(encodeEnvelope(env) + "\n") : undefined;
  const plane = !persist ? nullPlane(opened.runId, ctx.view, hooks, onRecord) : await openPlane({
    storeRoot: req.storeRoot,
    runId: opened.runId,
    resumed: opened.resumed,
    packet: { name: packet.name, dir: packet.dir },
    workspace: req.kind === "workspace" ? req.label : null,
    view: ctx.view,
    selectedCount: prompts.length,
    maxSteers: packet.options.recovery.max_steers,
    hooks,
    selection: ids,
    ...(onRecord ? { onRecord } : {}),
  });
  ctx.plane = plane;
  const noContext = { prompt_id: null, attempt: null, stream: null, provider: null, session_id: null };
  if (!persist) {
    // The null plane records nothing on its own: the runner opens (and below closes) the stream itself.
    ctx.record(
      { type: "run_opened", data: { packet: packet.name, selection: ids, resumed: false, view: { ...ctx.view } } },
      noContext,
    );
  }

  // Signals: the first interrupts the live provider and closes the run as interrupted (exit 130); a second kills
  // the provider at once, then still closes the plane and the run record and releases the lease before exiting 130.
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals === 1) {
      ctx.interrupted = true;
      const live = ctx.live;
      if (live) {
        const prompt = packet.prompts.find((p) => p.id === live.promptId);
        void live.session.interrupt("operator_stop", prompt?.options.recovery.interrupt_grace_ms ?? 5000);
      }
    } else if (signals === 2) {
      ctx.live?.session.kill();
      void hardStop(
        plane,
        lease,
        opened.record ? () => closeRunRecord(req.storeRoot, opened.record!, "failed", "interrupted") : null,
      );
    }
  };
  const sigs: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of sigs) {
    try {
      Deno.addSignalListener(s, onSignal);
    } catch { /* signals unsupported */ }
  }

  const outcomes: PromptOutcome[] = [];
  const failed: { id: string; reason: string }[] = [];
  let haltReason: string | null = null;
  const preserved = new Map<string, PreservedWork>();
  const preflightOn = req.verifyFirst ?? (req.selection.remaining && req.selection.ids.length === 0);
  try {
    let position = 0;
    for (const prompt of prompts) {
      position++;
      if (ctx.interrupted) {
        haltReason = "interrupted";
        break;
      }
      plane.transition({ stage: "between_prompts", prompt_position: position });
      plane.boundary();
      // Blocking check: dependencies completed earlier in this run or in progress.log.
      const latest = persist ? await readProgress(req.storeRoot) : ctx.progress;
      const blockers = prompt.dependsOn.filter((d) =>
        !ctx.completedThisRun.has(d) && latest.get(d)?.status !== "completed"
      );
      if (blockers.length) {
        const reason = `blocked by ${blockers.join(", ")}`;
        await state.updatePrompt(prompt.id, (p) => {
          p.status = "blocked_by_dependency";
          p.blocked_by = blockers;
          p.result = {
            status: "blocked_by_dependency",
            run_id: ctx.runId,
            finished_at: new Date().toISOString(),
            source: "session",
            session_ran: false,
            attempts: 0,
            commit: null,
            failure_class: null,
            reason,
            last_verifier: null,
            steered: false,
            amended: false,
            blocked_by: blockers,
          };
        });
        io.stderr.write(`error: prompt ${prompt.id} is ${reason}\n`);
        const blocked: PromptOutcome = {
          id: prompt.id,
          status: "blocked_by_dependency",
          reason,
          failureClass: null,
          attempts: 0,
          commit: null,
          halt: false,
        };
        outcomes.push(blocked);
        if (persist) await journalPromptFinished(req.storeRoot, ctx.runId, blocked);
        failed.push({ id: prompt.id, reason });
        if (!req.keepGoing) {
          haltReason = `prompt ${prompt.id} ${reason}`;
          break;
        }
        continue;
      }
      ctx.promptId = prompt.id;
      ctx.attempt = null;
      let outcome: PromptOutcome | null = null;
      const recovering = first !== undefined && prompt === first ? leftovers : null;
      const { baseline, restored } = await beginPrompt(ctx, packet, prompt);
      if (preflightOn && !req.repairFirst && !recovering) outcome = await preflight(ctx, desk, prompt);
      // A recovered prompt's leftovers and a prompt's restored preserved work are its own partial progress, not a
      // contract passing before any session.
      if (!recovering && !restored) {
        outcome ??= await probeVacuous(ctx, desk, prompt, {
          preflightRequested: preflightOn,
          completionVerifyPassed: false, // agent-control completion_verify does not exist yet
          strict: req.strict === true,
        });
      }
      outcome ??= await runPromptChain(ctx, desk, prompt, recovering, restored);
      const kept = await endPrompt(ctx, prompt, baseline, outcome);
      if (kept) preserved.set(prompt.id, kept);
      outcomes.push(outcome);
      if (persist) await journalPromptFinished(req.storeRoot, ctx.runId, outcome);
      await plane.sync();
      if (outcome.status === "completed") {
        ctx.completedThisRun.add(prompt.id);
        plane.transition({ completed_count: ctx.completedThisRun.size });
        continue;
      }
      failed.push({ id: prompt.id, reason: outcome.reason ?? outcome.status });
      if (outcome.halt) {
        haltReason = outcome.status === "interrupted" ? "interrupted" : (outcome.reason ?? outcome.status);
        break;
      }
      if (!req.keepGoing) {
        haltReason = `prompt ${prompt.id}: ${outcome.reason ?? outcome.status.replaceAll("_", " ")}`;
        break;
      }
    }
  } finally {
    for (const s of sigs) {
      try {
        Deno.removeSignalListener(s, onSignal);
      } catch { /* ignore */ }
    }
  }

  failpoint("run.before_close");
  const ok = failed.length === 0 && haltReason === null;
  let reason: string | null = null;
  if (!ok) {
    if (req.keepGoing && haltReason === null) {
      for (const l of keepGoingSummary(failed)) io.stderr.write(l + "\n");
      for (const l of preservedLines([...preserved.values()])) io.stderr.write(l + "\n");
      reason = `${failed.length} selected prompt(s) failed`;
    } else {
      reason = haltReason ?? `${failed.length} selected prompt(s) failed`;
    }
  }
  if (!persist) ctx.record({ type: "run_finished", data: { status: ok ? "completed" : "failed", reason } }, noContext);
  await plane.close(ok ? "completed" : "failed", reason);
  if (opened.record) await closeRunRecord(req.storeRoot, opened.record, ok ? "completed" : "failed", reason);
  if (io.json) {
    const summary: SummaryPrompt[] = outcomes.map((o) => ({
      id: o.id,
      status: o.status,
      attempts: o.attempts,
      reason: o.reason,
      failure_class: o.failureClass,
      commit: o.commit,
      ...(ctx.vacuous.has(o.id) ? { vacuous: true } : {}),
      ...(preserved.has(o.id) ? { preserved: preserved.get(o.id)! } : {}),
    }));
    io.stdout.write(
      JSON.stringify({
        type: "run_summary",
        run_id: ctx.runId,
        status: ok ? "completed" : "failed",
        reason,
        store_root: persist ? req.storeRoot : null,
        vacuous: [...ctx.vacuous],
        prompts: summary,
      }) + "\n",
    );
  }
  if (ctx.vacuous.size > 0) io.stderr.write(vacuousSummaryLine([...ctx.vacuous]) + "\n");
  if (!ok) io.stderr.write(`error: run failed: ${reason}\n`);
  return ok ? 0 : ctx.interrupted || haltReason === "interrupted" ? INTERRUPTED_EXIT : 1;
}

/** `detached` when `start`/`run --detach` launched this runner (src/run/detach.ts sets the variable), else `attached`. */
function serviceMode(): "attached" | "detached" {
  try {
    return Deno.env.get("PROMPT_RUNNER_SERVICE_MODE") === "detached" ? "detached" : "attached";
  } catch {
    return "attached";
  }
}
