/**
 * The run pipeline (docs/reference/runner.md §1): plan, dry-run, preflight, select, lease, run record, control plane, the prompt
 * loop with dependency blocking, fail-fast or keep-going, signals, and closing. Returns the exit code.
 */
import { editRefusal, editSinceInterrupt, editStanding, recordEdit, settleEdits } from "./contract_guard.ts";
import { acquireLease, type Lease, type ServiceMode } from "../store/lease.ts";
import { ensureStoreRoot } from "../store/layout.ts";
import { assertStoreIntact } from "../store/guard.ts";
import { RunFailedError, UsageError } from "../errors.ts";
import { inspectPacket, packetOf } from "../packet/load.ts";
import { selectPrompts } from "../packet/select.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { newRunId } from "../util/time.ts";
import { closeHelperShell, openHelperShell } from "../util/helper_shell.ts";
import { closeHeldAppends, openHeldAppends } from "../util/held_append.ts";
import { loadFullWidth } from "../render/mod.ts";
import { failpoint } from "../util/failpoint.ts";
import type { RunContext } from "./context.ts";
import { printDryRun } from "./dry_run.ts";
import { keepGoingSummary, NOTHING_TO_RUN, preservedLines } from "./output.ts";
import { runPermissionChecks, runPreflightChecks } from "./preflight_checks.ts";
import { refuseDirtyRepos } from "./prompt_guard.ts";
import { readProgress } from "../store/progress.ts";
import { closeRunRecord } from "../store/run_record.ts";
import { lintGate } from "./lint_gate.ts";
import { vacuousSummaryLine } from "./vacuous.ts";
import { emptyState, StateStore } from "./state.ts";
import { buildRunSummary, streamRunSummary, summaryRunOf, writeSummaryJson } from "./summary.ts";
import { readRunRecord } from "../store/run_record_read.ts";
import { writeSummaryTable } from "../render/summary_table.ts";
import type { RunSummaryStream } from "../events/mod.ts";
import type { RecoveryTarget } from "./crash_recovery.ts";
import { recoverAtStart, recoveryPending } from "./recover_at_start.ts";
import { pendingIn } from "./commit_pending.ts";
import { runExitCode, runOrder, runVerdict } from "./run_decide.ts";
import { holdSignals, listenForSignals, NO_CONTEXT, openContext, openRun, type RunOpening } from "./run_open.ts";
import { INTERRUPTED_EXIT } from "./interrupts.ts";
import { runPrompts, type RunTally } from "./run_loop.ts";
import { type RunRequest, writesStoreRoot } from "./run_request.ts";
import { ProgressDisplay } from "./progress_display.ts";
import { trackPlane } from "./run_progress.ts";
import type { RunnerPlane } from "../control/runner_api.ts";
import { settleIntents } from "../control/runner_api.ts";
import { CiLog } from "./ci.ts";
import { closeSpareFiles, openSpareFiles } from "./spare_files.ts";
import { abortedSummary, runAudit, writeReports } from "./reports.ts";
import { escapeControlKeepLines } from "../util/escape.ts";

/** A whole line of the runner's for stderr: text from the packet, the store or a provider shown escaped. */
function shown(line: string): string {
  return escapeControlKeepLines(line) + "\n";
}

export { type RunRequest, type RuntimeStore, writesStoreRoot } from "./run_request.ts";

/**
 * Agent control needs the store: directives are authenticated against per-iteration files and audited in the control
 * log (docs/agent-control.md). Without a store root it would be silently off, so the run is refused (exit 2) instead.
 */
function refuseAgentControlWithoutStore(packet: Packet, store: RunRequest["runtimeStore"]): void {
  if (writesStoreRoot(store)) return;
  const uses = packet.agentControl !== null
    ? "agent_control"
    : packet.execution.completion === "agent_owned"
    ? "execution: {completion: agent_owned}"
    : null;
  if (uses === null) return;
  throw new UsageError(
    "conflicting_flags",
    `--runtime-store ${store} conflicts with ${uses} in ${packet.dir}/prompt_runner_packet.md: agent directives are ` +
      "authenticated and audited through the store",
    { hints: ["run with the default --runtime-store file"] },
  );
}

/** Execute a packet run; returns the exit code (docs/reference/cli.md §3.1). */
export async function runPacket(req: RunRequest): Promise<number> {
  const { io } = req;
  // Agent text can hold any character: measure it exactly from the first line on (src/render/text_width.ts).
  await loadFullWidth();
  // Inspected once: the lint gate below lints this inspection rather than reading the packet a second time (a second
  // copy of a 10,000-prompt packet was most of a run's peak memory, docs/bench.md `scale`).
  const inspection = await inspectPacket(req.packetDir, { overrides: req.overrides });
  const packet = packetOf(inspection);
  refuseAgentControlWithoutStore(packet, req.runtimeStore);
  assertStoreIntact(req.storeRoot); // planted links and special files are refused before anything reads them
  const progress = await readProgress(req.storeRoot);
  const prompts = selectPrompts(packet, req.selection, progress);
  // No vacuous verdicts: refuse (exit 3) what would make a selected prompt's check silently not happen.
  await lintGate(req.packetDir, {
    overrides: req.overrides,
    ids: prompts.map((p) => p.id),
    strict: req.strict === true,
    inspection,
  });
  // A prompt whose own session changed its contract runs again only once that is undone or accepted.
  const edits = writesStoreRoot(req.runtimeStore) ? await editStanding(req.storeRoot, prompts) : null;
  const editRefused = edits ? editRefusal(edits) : null;
  if (editRefused && !req.acceptContractEdits) throw editRefused;
  if (edits && !req.dryRun) {
    for (const line of await settleEdits(req.storeRoot, edits, req.acceptContractEdits ?? null)) {
      if (!io.json) io.stdout.write(line + "\n");
    }
  }
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
    else {
      const run = { runId: "", status: "completed", reason: null, exitCode: 0, startedAt: null, finishedAt: null };
      const empty = buildRunSummary({ run, packet, selected: [], state: emptyState(), storeRoot: null });
      io.stdout.write(JSON.stringify({ ...empty, run_id: null }) + "\n");
    }
    await quietReports(req, packet);
    return 0;
  }
  if (!writesStoreRoot(req.runtimeStore)) {
    // No store root: in-memory state, no lease, no run record, a null plane.
    await refuseDirtyRepos(packet, prompts, req.storeRoot, req.allowDirty === true, null);
    return await runLeased(req, packet, prompts, StateStore.memory(), null);
  }
  return await runWithLease(req, packet, prompts);
}

/** Take the lease, recover from a crash, refuse dirty repos, then run (the store-root path of {@link runPacket}). */
async function runWithLease(req: RunRequest, packet: Packet, prompts: Prompt[]): Promise<number> {
  const { io } = req;
  const state = await StateStore.open(req.storeRoot);
  ensureStoreRoot(req.storeRoot, { kind: req.kind, packetDir: packet.dir });
  const lease = await acquireLease(req.storeRoot, {
    runId: newRunId(),
    packetDir: packet.dir,
    argv: req.argv,
    label: req.label, // the target as every command names it (docs/status.md)
    ...serviceMode(),
  });
  try {
    await state.reload(); // read under the lease: nobody else writes it from here on
    // An amendment a stopped `control amend` / `relax` left half-written is recorded (or refused) before anything
    // reads the contract (src/control/amend_intent.ts).
    for (const line of await settleIntents(req.storeRoot)) io.stderr.write(shown(line));
    // Crash recovery (docs/crash_recovery.md): reconcile progress.log, state.json and git before anything runs.
    const plan = await recoverAtStart(packet, state, (l) => io.stderr.write(shown(l)));
    // A contract the session of an attempt whose runner died may have changed: recorded and refused as after a session.
    await refuseEditsSinceInterrupt(req, packet.prompts, state);
    // Select again under the lease: the selection before it read progress.log while another runner may have held
    // the lease, and that runner (dead or finished while this one waited for it) may have completed prompts since.
    // Without recovery appends, only prompts the lint gate and preflight checked stay selected; with them (a refused
    // completion is remaining again) the new selection stands, as before.
    const fresh = selectPrompts(packet, req.selection, await readProgress(req.storeRoot));
    const keep = new Set(fresh);
    const selected = plan.appends.length > 0 ? fresh : prompts.filter((p) => keep.has(p));
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
    // A run that stopped on an error still leaves state.json whole; its pending entries are on disk either way.
    await state.flush().catch(() => {});
    await lease.release();
  }
}

/**
 * The prompts whose latest attempt a dead runner left (docs/amendments.md, "Edited during its session"): a `verify:`
 * that changed since that run loaded it is recorded as a contract edit, which refuses the prompt (exit 3) as an edit
 * seen after a session does — unless `--accept-contract-edits` keeps it, on the audit log.
 */
async function refuseEditsSinceInterrupt(
  req: RunRequest,
  prompts: readonly Prompt[],
  state: StateStore,
): Promise<void> {
  const found: Prompt[] = [];
  for (const prompt of prompts) {
    if (!state.mayHold(prompt.id, "loaded_contract")) continue;
    const edit = await editSinceInterrupt(req.storeRoot, prompt, state.entry(prompt.id));
    if (edit === null) continue;
    await recordEdit(req.storeRoot, edit);
    // From here the record stands for it (restored, changed again or accepted, as any edit record): not found twice.
    await state.updatePrompt(prompt.id, (p) => {
      delete p.loaded_contract;
    });
    found.push(prompt);
  }
  if (found.length === 0) return;
  const standing = await editStanding(req.storeRoot, found);
  const refused = editRefusal(standing);
  if (refused && !req.acceptContractEdits) throw refused;
  for (const line of await settleEdits(req.storeRoot, standing, req.acceptContractEdits ?? null)) {
    if (!req.io.json) req.io.stdout.write(line + "\n");
  }
}

/** Run the selected prompts under the lease (or without a store root): open, loop, close; returns the exit code. */
async function runLeased(
  req: RunRequest,
  packet: Packet,
  selected: Prompt[],
  state: StateStore,
  lease: Lease | null,
  leftovers: RecoveryTarget | null = null,
): Promise<number> {
  // Leftover changes of an interrupted prompt belong to it: that prompt goes first, continuing its attempt.
  const first = leftovers ? packet.prompts.find((p) => p.id === leftovers.promptId) : undefined;
  // A prompt whose commit failed commits its verified work before another prompt can touch it (commit_claim.ts).
  const claiming = selected.filter((p) => pendingIn(state, p.id) !== null);
  const prompts = runOrder(selected, first, claiming);
  // The live status line or the heartbeat (docs/status.md) sits around every line the run writes from here on.
  const display = new ProgressDisplay(req.io, req.display, prompts.length);
  const shown: RunRequest = { ...req, io: display.io };
  // Under a CI service each prompt's output is a group or section (docs/ci.md); under --json on stderr.
  const ciEnv = req.ci?.env ?? null;
  const dirs = new Map(prompts.map((p) => [p.id, { name: p.name, cwd: p.cwd }]));
  const ciLog = ciEnv ? new CiLog(ciEnv, req.io.json ? display.io.stderr : display.io.stdout, dirs) : null;
  // The run's read-only git queries go through one long-lived shell instead of a spawn of this process each.
  const shell = openHelperShell();
  // The journal, progress.log and the verification history stay open between the run's appends (each still checked).
  const appends = openHeldAppends();
  // Attempts' log files are made ahead, off the runner's thread, and named by a link at the attempt's start.
  const spares = writesStoreRoot(req.runtimeStore) ? openSpareFiles(req.storeRoot) : null;
  // From here the run writes its first lines: a signal is held until the run can close as interrupted.
  const held = holdSignals();
  try {
    const opened = await openRun(shown, packet, prompts.map((p) => p.id), lease);
    const track = (plane: RunnerPlane) => trackPlane(plane, display.progress, ...(ciLog ? [ciLog] : []));
    const { ctx, desk } = await openContext(shown, packet, prompts, state, lease, opened, track);
    display.attach(() => ctx.breakStream());
    ciLog?.attach(() => ctx.breakStream());
    // A second Ctrl-C exits from the signal handler: the reports are its last words (docs/ci.md).
    const stopListening = listenForSignals(
      ctx,
      opened,
      () => hardStopReports(ctx, shown, opened, prompts, ciLog),
      held,
    );
    let tally: RunTally;
    try {
      tally = await runPrompts(ctx, desk, prompts, {
        keepGoing: req.keepGoing,
        preflightOn: req.verifyFirst ?? (req.selection.remaining && req.selection.ids.length === 0),
        strict: req.strict === true,
        recovery: first ? leftovers : null,
        explicitIds: req.selection.ids.length > 0,
      });
    } finally {
      stopListening();
    }
    failpoint("run.before_close");
    return await closeRun(ctx, shown, opened, tally, ciLog);
  } finally {
    held.release();
    display.stop();
    closeHeldAppends(appends);
    await closeSpareFiles(spares);
    await closeHelperShell(shell);
  }
}

/** Close the plane and the run record, print the summaries, and return the exit code. */
async function closeRun(
  ctx: RunContext,
  req: RunRequest,
  opened: RunOpening,
  tally: RunTally,
  ciLog: CiLog | null,
): Promise<number> {
  const { io } = req;
  ciLog?.end();
  const { ok, reason, keepGoingSummary: summarize } = runVerdict(tally.failed.length, tally.haltReason, req.keepGoing);
  if (summarize) {
    for (const l of keepGoingSummary(tally.failed)) io.stderr.write(shown(l));
    for (const l of preservedLines([...tally.preserved.values()])) io.stderr.write(shown(l));
  }
  const status = ok ? "completed" : "failed";
  // The judged repos' hiding state: kept for the next run where it changed during this one (src/run/hiding_run.ts).
  await ctx.runHiding.settle((l) => io.stderr.write(shown(l)));
  // state.json is complete on its own before anyone can see the run closed (docs/reference/runner.md §10.2).
  await ctx.state.flush();
  if (!ctx.persist) ctx.record({ type: "run_finished", data: { status, reason } }, NO_CONTEXT);
  await ctx.plane.close(status, reason);
  const exitCode = runExitCode(ok, ctx.interrupted, tally.haltReason);
  if (opened.record) await closeRunRecord(req.storeRoot, opened.record, status, reason, exitCode);
  // Everything is on the record by now: a summary that cannot be built is a warning, never another exit code.
  try {
    // Built and written prompt by prompt: a long run's summary is never held whole (docs/bench.md, `scale`).
    const summary = await closedRunSummary(ctx, opened, { status, reason, exitCode }, tally);
    // The --report files first (docs/ci.md): a CI job reads them even when printing the table fails. The reports and
    // the CI log read the stream too, entry by entry: the whole document is never collected (docs/bench.md, `scale`).
    const forCi = (req.ci?.reports.length ?? 0) > 0 || ciLog !== null;
    const audit = forCi && ctx.persist ? await runAudit(ctx.storeRoot, summary).catch(() => null) : null;
    for (const w of await writeReports(req.ci?.reports ?? [], summary, audit)) io.stderr.write(shown(w));
    if (req.ci) req.ci.written = true;
    const write = (text: string) => io.stdout.write(text);
    if (io.json) writeSummaryJson(summary, write);
    else {
      write("\n");
      writeSummaryTable(summary, io.color, write);
    }
    // The annotations and the step summary of a CI service: a write that fails is a warning too.
    for (const w of await ciLog?.finish(summary, audit) ?? []) io.stderr.write(shown(w));
  } catch (e) {
    const why = `no run summary: ${e instanceof Error ? e.message : String(e)}`;
    io.stderr.write(shown(`warning: ${why}`));
    // A report is still written, so a CI job never reads a stale one: the run's verdict without its prompts.
    const bare = { ...abortedSummary(ctx.packet.name, `${reason ?? status} (${why})`, exitCode), status };
    if (req.ci && !req.ci.written) {
      for (const w of await writeReports(req.ci.reports, { ...bare, run_id: ctx.runId })) io.stderr.write(shown(w));
      req.ci.written = true;
    }
  }
  if (ctx.vacuous.size > 0) io.stderr.write(shown(vacuousSummaryLine([...ctx.vacuous])));
  if (!ok) io.stderr.write(shown(`error: run failed: ${reason}`));
  return exitCode;
}

/**
 * The run-summary document of the closed run (docs/run-summary.md), built from the records as `status --summary` reads
 * them: state.json (flushed) and the closed run record; a run without a store root has only its in-memory state.
 */
async function closedRunSummary(
  ctx: RunContext,
  opened: RunOpening,
  closed: { status: string; reason: string | null; exitCode: number },
  tally: RunTally,
): Promise<RunSummaryStream> {
  const record = opened.record ? await readRunRecord(ctx.storeRoot, opened.runId) : null;
  const run = record ? summaryRunOf(record) : {
    runId: ctx.runId,
    status: closed.status,
    reason: closed.reason,
    exitCode: closed.exitCode,
    startedAt: opened.record?.created_at ?? null,
    finishedAt: null,
  };
  return streamRunSummary({
    run,
    packet: ctx.packet,
    selected: record?.selection.ids ?? tally.outcomes.map((o) => o.id),
    state: ctx.state, // read entry by entry: never the whole document decoded at once
    storeRoot: ctx.persist ? ctx.storeRoot : null,
  });
}

/** The reports of a run ended by a second Ctrl-C: its state as it stands, closed `failed`/`interrupted`, exit 130. */
async function hardStopReports(
  ctx: RunContext,
  req: RunRequest,
  opened: RunOpening,
  prompts: Prompt[],
  ciLog: CiLog | null,
): Promise<void> {
  if ((req.ci?.reports.length ?? 0) === 0 && ciLog === null) return;
  const run = {
    runId: ctx.runId,
    status: "failed",
    reason: "interrupted",
    exitCode: INTERRUPTED_EXIT,
    startedAt: opened.record?.created_at ?? null,
    finishedAt: new Date().toISOString(),
  };
  const selected = prompts.map((p) => p.id);
  const storeRoot = ctx.persist ? ctx.storeRoot : null;
  // Whole, once, unlike every other report path (docs/ci.md, "A second Ctrl-C"): these are written from the signal
  // handler while the run loop still runs (the killed session's attempt is classified and its result stored), and a
  // streamed summary reads each state entry again at each pass, with file writes awaited in between — the runner could
  // change an entry between JUnit's totals and its testcases, or between two reports. One synchronous build is the
  // snapshot they all share.
  const summary = buildRunSummary({ run, packet: ctx.packet, selected, state: ctx.state, storeRoot });
  const warnings = [...await writeReports(req.ci?.reports ?? [], summary), ...await ciLog?.finish(summary) ?? []];
  for (const w of warnings) req.io.stderr.write(shown(w));
}

/** `--report` files of a run that had nothing left to run: the empty summary (docs/ci.md). */
async function quietReports(req: RunRequest, packet: Packet): Promise<void> {
  const reports = req.ci?.reports ?? [];
  if (reports.length === 0) return;
  const run = { runId: "", status: "completed", reason: null, exitCode: 0, startedAt: null, finishedAt: null };
  const empty = buildRunSummary({ run, packet, selected: [], state: emptyState(), storeRoot: null });
  for (const w of await writeReports(reports, { ...empty, run_id: null })) req.io.stderr.write(shown(w));
  if (req.ci) req.ci.written = true;
}

/**
 * `detached` when `start`/`run --detach` launched this runner, `systemd` with its unit when it launched it as a
 * systemd user unit (src/run/detach.ts sets the variables), else `attached`.
 */
function serviceMode(): { service: ServiceMode; unit?: string } {
  try {
    const mode = Deno.env.get("PROMPT_RUNNER_SERVICE_MODE");
    const unit = Deno.env.get("PROMPT_RUNNER_SYSTEMD_UNIT");
    if (mode === "systemd" && unit) return { service: "systemd", unit };
    return { service: mode === "detached" || mode === "systemd" ? "detached" : "attached" };
  } catch {
    return { service: "attached" };
  }
}
