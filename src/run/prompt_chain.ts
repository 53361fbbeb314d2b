/**
 * One prompt's attempt chain (docs/reference/runner.md §4, §6): attempt → verify → decide → effects (commit, progress, result,
 * output lines), looping through retries and repairs within the per-run budgets. Verifier faults halt. The
 * decisions are pure (src/run/chain_decide.ts, src/run/decide.ts); the functions here only perform effects.
 */
import type { VerifyReport } from "../contract/mod.ts";
import { packetContract, verifyDigest } from "../contract/mod.ts";
import { reportSummary } from "../contract/report.ts";
import { checkNoteLines, checkNotes } from "../contract/check_notes.ts";
import type { Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import { type AttemptRun, runAttemptStreams } from "./attempt.ts";
import type { RecoveryTarget } from "./crash_recovery.ts";
import { failpoint } from "../util/failpoint.ts";
import { type FailureEnvelope, okEnvelope } from "./classify.ts";
import type { RunContext } from "./context.ts";
import {
  type AttemptPlan,
  judgeAttempt,
  type Judgement,
  nextAttempt,
  planFirstAttempt,
  sessionResult,
} from "./chain_decide.ts";
import {
  completedLine,
  OVERRIDE_LINE,
  repairLine,
  retryLine,
  verificationFailedLine,
  verificationReason,
} from "./output.ts";
import { commitFailed, commitWork, failureRecord, finish, halted, type PromptOutcome } from "./prompt_result.ts";
import { repairPrompt } from "./repair_prompt.ts";
import { earlierCommits } from "./earlier_commits.ts";
import { recordInterruptedWork } from "./interrupted_work.ts";
import type { CommitRecord, PromptStatus } from "./state.ts";
import type { SteerDesk } from "./steering.ts";
import { verifyNow, workspaceChanged } from "./verify_step.ts";
import { AgentLoop, agentOwnedRepeat } from "./agent_chain.ts";
import { editFault, recordEdit } from "./contract_guard.ts";
import { directedStep, incompleteIteration, type Step } from "./agent_steps.ts";

export { preflight, type PromptOutcome } from "./prompt_result.ts";

/** A judged attempt, as the effect functions of its decision need it. */
interface Judged {
  prompt: Prompt;
  plan: AttemptPlan;
  run: AttemptRun;
  report: VerifyReport;
  env: FailureEnvelope;
  judgement: Judgement;
  /** Attempts run for the prompt in this chain, the current one included. */
  runAttempts: number;
  agent: AgentLoop | null;
  /** The interrupted attempt whose leftovers this chain continues (crash recovery), or null. */
  recover: RecoveryTarget | null;
}

/**
 * Run a prompt's attempt chain to a final state. `recover`: the interrupted attempt whose leftovers this prompt
 * continues (docs/crash_recovery.md). `restored`: the prompt's preserved partial progress was applied before it
 * (docs/keep_going.md), so its first attempt is a repair of the last verification, like any partial work.
 */
export async function runPromptChain(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  recover: RecoveryTarget | null = null,
  restored = false,
): Promise<PromptOutcome> {
  let plan = await openChain(ctx, prompt, recover, restored);
  const promptStartedAt = nowIso();
  const agent = AgentLoop.open(ctx, prompt);
  let runAttempts = 0;
  for (;;) {
    // After the first Ctrl-C no provider session starts: not the first attempt, nor a retry or repair.
    if (ctx.interrupted) {
      ctx.slot.endLog();
      return await endInterrupted(ctx, desk, prompt, runAttempts);
    }
    runAttempts++;
    await startAttempt(ctx, desk, prompt, plan, promptStartedAt);
    failpoint("attempt.before_session");
    const { attemptNo, mode, resumeSession, continueFrom } = plan;
    const body = agent ? await agent.begin(ctx, prompt, attemptNo, plan.body) : plan.body;
    const inv = agent?.invocation ?? null;
    if (ctx.persist) ctx.contractGuard.begin(prompt);
    const run = await runAttemptStreams(ctx, desk, prompt, attemptNo, mode, body, resumeSession, continueFrom, inv);
    failpoint("attempt.after_session");
    const step = await settleAttempt(ctx, desk, prompt, plan, run, runAttempts, agent, recover);
    if ("next" in step) {
      plan = step.next;
      continue;
    }
    ctx.slot.endLog();
    return step.outcome;
  }
}

/** Plan the first attempt; a crash resume first closes the attempt its dead or stopped runner left open. */
async function openChain(
  ctx: RunContext,
  prompt: Prompt,
  recover: RecoveryTarget | null,
  restored: boolean,
): Promise<AttemptPlan> {
  const { stale, ...plan } = planFirstAttempt({
    promptId: prompt.id,
    body: prompt.body,
    attempts: ctx.state.attempts(prompt.id),
    runId: ctx.runId,
    repairFirst: ctx.opts.repairFirst,
    restored,
    resumed: ctx.opts.resumed === true,
    repairMax: prompt.options.recovery.repair.max_attempts,
    recover,
  });
  if (stale) {
    // Left by a runner that died or stopped (we hold the lease now): it ended when its runner did.
    await ctx.state.updateAttempt(prompt.id, stale.runId, stale.attempt, (a) => {
      a.status = "interrupted";
      a.completed_at ??= nowIso();
      a.decision ??= "resume";
    });
  }
  return plan;
}

/** Begin an attempt: `prompt_started`, the `running` attempt record, the session snapshot. */
async function startAttempt(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  plan: AttemptPlan,
  promptStartedAt: string,
): Promise<void> {
  const o = prompt.options;
  const { attemptNo: attempt, mode } = plan;
  ctx.slot.beginAttempt(prompt.id, attempt);
  const startedAt = nowIso();
  ctx.record(
    {
      type: "prompt_started",
      data: { prompt_name: prompt.name, mode, attempt, provider: o.provider, model: o.model, cwd: prompt.cwd },
    },
    { prompt_id: prompt.id, attempt, stream: null, provider: o.provider, session_id: null },
  );
  // The contract this run loaded, noted before the session (docs/amendments.md, "Edited during its session"): a run
  // that continues the attempt after its runner died compares the file's verify: with it.
  const digest = ctx.persist ? await verifyDigest(prompt.verify) : null;
  await ctx.state.updatePrompt(prompt.id, (p) => {
    if (digest !== null && (p.loaded_contract?.run_id !== ctx.runId || p.loaded_contract.verify_digest !== digest)) {
      p.loaded_contract = { run_id: ctx.runId, verify_digest: digest, verify: prompt.verify };
    }
    p.status = "running";
    delete p.interrupted_work; // this attempt's work joins it: only a new interrupt may say what is the prompt's
    p.attempts.push({
      run_id: ctx.runId,
      attempt,
      mode,
      status: "running",
      started_at: startedAt,
      provider: o.provider,
      model: o.model,
      session_id: null,
      streams: [],
      log_file: null,
      events_file: null,
    });
  });
  ctx.plane.transition({
    stage: "session",
    prompt_id: prompt.id,
    prompt_name: prompt.name,
    attempt,
    mode,
    stream: "initial",
    provider: o.provider,
    model: o.model,
    session_id: null,
    session_live: false,
    prompt_started_at: promptStartedAt,
    attempt_started_at: startedAt,
    steer_count: desk.count(prompt.id),
    max_steers: o.recovery.max_steers,
  });
}

/** After an attempt's streams: stop, halt on a verifier fault, or verify, judge, record and act on the decision. */
async function settleAttempt(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  plan: AttemptPlan,
  run: AttemptRun,
  runAttempts: number,
  agent: AgentLoop | null,
  recover: RecoveryTarget | null,
): Promise<Step> {
  const attemptNo = plan.attemptNo;
  if (run.stream === "interrupted") {
    agent?.discard("the run was stopped during the iteration");
    return { outcome: await stopAttempt(ctx, desk, prompt, attemptNo, runAttempts) };
  }
  // The next prompt's baseline read may start beside this verification (docs/keep_going.md, "Read beside the
  // verification"); it is kept only for a completion whose checks ran no command, and dropped on any other way out.
  const early = readsAheadOfVerdict(ctx, prompt, agent, recover);
  if (early) ctx.baselines.start();
  let keepEarly = false;
  try {
    const ended = { ...run, stream: run.stream };
    const step = await judgeAndAct(ctx, desk, prompt, plan, ended, runAttempts, agent, recover, () => {
      keepEarly = true;
    });
    return step;
  } finally {
    if (early && !keepEarly) ctx.baselines.drop();
  }
}

/**
 * Whether the next prompt's baseline may be read while this attempt is verified: the attempt's work is already final
 * when no commit follows (`--no-commit`, `--noop-commit`), no agent iteration or crash recovery goes on from it, and
 * no check of the contract as loaded runs a command (a command may write into the repos; an amendment that adds one
 * during the verification is seen in the report, and the read is dropped).
 */
function readsAheadOfVerdict(
  ctx: RunContext,
  prompt: Prompt,
  agent: AgentLoop | null,
  recover: RecoveryTarget | null,
): boolean {
  if (ctx.interrupted || agent !== null || recover !== null) return false;
  if (ctx.opts.commit !== "none" && ctx.opts.commit !== "noop") return false;
  if (ctx.packet.execution.completion === "agent_owned") return false;
  return (packetContract(prompt).commands ?? []).length === 0;
}

/** The verdict on an attempt's work and its effects; `keepEarly` is called when an early baseline read stands. */
async function judgeAndAct(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  plan: AttemptPlan,
  run: AttemptRun & { stream: "ok" | "error" },
  runAttempts: number,
  agent: AgentLoop | null,
  recover: RecoveryTarget | null,
  keepEarly: () => void,
): Promise<Step> {
  const attemptNo = plan.attemptNo;
  const report = await verifyNow(ctx, prompt, "attempt", attemptNo);
  if (report === null) {
    // Interrupted during verification: the verdict was never reached, so the attempt ends interrupted, not failed.
    agent?.discard("the run was stopped during the iteration's verification");
    return { outcome: await stopAttempt(ctx, desk, prompt, attemptNo, runAttempts) };
  }
  if (report.status === "fault") {
    agent?.discard("the iteration's contract could not be evaluated (verifier fault)");
    await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
      a.status = "verifier_fault";
      a.completed_at = nowIso();
      a.failure = failureRecord(run.envelope);
      a.verification = report;
      a.decision = "halt";
      a.stage = "post_session";
    });
    return { outcome: await halted(ctx, desk, prompt, report, "post_session", runAttempts) };
  }
  const incomplete = agentOwnedRepeat(ctx, prompt, run.stream, report);
  if (incomplete !== null) {
    agent?.discard("the iteration is incomplete: its structural contract did not pass");
    return await incompleteIteration(ctx, { prompt, plan, report, body: incomplete });
  }
  const env = run.envelope ?? okEnvelope();
  const changed = run.stream === "error" && !report.pass ? await workspaceChanged(ctx, prompt, report) : false;
  // Under agent control a failed provider turn is never a controlled iteration, even if the contract passes; under
  // agent-owned completion it is never the agent's normal return either (no "the contract passes" override).
  const owned = agent !== null || ctx.packet.execution.completion === "agent_owned";
  const counted = owned && run.stream === "error" ? false : report.pass;
  const judgement = judgeAttempt({
    stream: run.stream,
    report: { pass: counted, items: report.counts.items },
    envelope: env,
    attempts: ctx.state.attempts(prompt.id),
    runId: ctx.runId,
    recovery: prompt.options.recovery,
    workspaceChanged: changed,
    random: ctx.opts.random,
    interrupted: ctx.interrupted,
  });
  const { decision, delay } = judgement;
  await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
    a.status = decision.attemptStatus;
    a.completed_at = nowIso();
    a.failure = failureRecord(run.envelope);
    a.verification = report;
    a.decision = decision.action;
    if (decision.action === "retry") a.retry_delay_ms = delay;
  });
  if (decision.action !== "complete" && decision.action !== "complete_override") {
    agent?.discard(
      run.stream === "error"
        ? "the provider turn failed; the iteration does not count"
        : "the iteration did not pass its contract",
    );
  }
  const completes = decision.action === "complete" || decision.action === "complete_override";
  if (completes && !report.items.some((i) => i.clause === "commands")) keepEarly();
  return await act(ctx, desk, { prompt, plan, run, report, env, judgement, runAttempts, agent, recover });
}

/** The effects of a decision (docs/reference/runner.md §6). */
async function act(ctx: RunContext, desk: SteerDesk, j: Judged): Promise<Step> {
  const action = j.judgement.decision.action;
  switch (action) {
    case "complete":
    case "complete_override":
      return await complete(ctx, desk, j, action);
    case "fail_provider":
      return { outcome: await failProvider(ctx, desk, j) };
    case "fail_verification":
      return { outcome: await failVerification(ctx, desk, j) };
    case "stop":
      return { outcome: await endInterrupted(ctx, desk, j.prompt, j.runAttempts, j.report) };
    case "retry":
      return await scheduleRetry(ctx, j);
    case "repair":
      return await scheduleRepair(ctx, j);
  }
}

/** The operator stopped the attempt: it and the prompt end `interrupted`, and the run halts. */
async function stopAttempt(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  attemptNo: number,
  runAttempts: number,
): Promise<PromptOutcome> {
  // The runner is alive: the session's edit of its own contract, if it made one, is recorded now, as after a verdict
  // (its next run refuses the prompt); a later run need not suspect this attempt of one (decision `stop`).
  const edited = ctx.persist ? await ctx.contractGuard.edited(prompt, ctx.storeRoot, ctx.runId, attemptNo) : null;
  if (edited !== null) {
    await recordEdit(ctx.storeRoot, edited);
    ctx.err(`error: ${editFault(edited)}`);
  }
  await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
    a.status = "interrupted";
    a.completed_at = nowIso();
    a.decision = "stop";
  });
  return await endInterrupted(ctx, desk, prompt, runAttempts);
}

/**
 * The prompt ends `interrupted` and the run halts: after its attempt was stopped, after a verdict that asked for a
 * retry or repair (`lastVerifier`: that verdict), or before its next attempt could start (then `runAttempts` may be 0:
 * no session ran in this chain).
 */
async function endInterrupted(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  runAttempts: number,
  lastVerifier: VerifyReport | null = null,
): Promise<PromptOutcome> {
  const facts = { attempts: runAttempts, commit: null, failureClass: null, reason: "interrupted", lastVerifier };
  await finish(ctx, desk, prompt, { ...sessionResult("interrupted", facts), session_ran: runAttempts > 0 }, "stop");
  // The runner is alive: it says which uncommitted paths are the prompt's, so its next run claims only those.
  await recordInterruptedWork(ctx, prompt);
  return outcome(prompt, "interrupted", "interrupted", "user_cancelled", runAttempts, null, true);
}

/** The contract passed (or overrode a provider error): commit per policy, then `completed` or `commit_failed`. */
async function complete(
  ctx: RunContext,
  desk: SteerDesk,
  j: Judged,
  action: "complete" | "complete_override",
): Promise<Step> {
  const { prompt, report, runAttempts: attempts } = j;
  if (action === "complete_override") ctx.say(OVERRIDE_LINE, "yellow");
  const c = await commitWork(ctx, desk, prompt, report);
  if (c.error) {
    j.agent?.discard("the iteration's commit failed");
    await commitFailed(ctx, prompt, c.error, c.record);
    const facts = { attempts, commit: c.record, failureClass: null, reason: c.error, lastVerifier: report };
    await finish(ctx, desk, prompt, sessionResult("commit_failed", facts), action);
    return { outcome: outcome(prompt, "commit_failed", c.error, null, attempts, c.record) };
  }
  // A multi-repo prompt whose runner died while committing: the repos it had committed are this commit's too
  // (never under agent control, where such a commit is a verified iteration, not the prompt's completion).
  const earlier = j.recover && !j.agent ? await earlierCommits(ctx, prompt, j.recover.runId, c) : null;
  let finished = false;
  if (j.agent) {
    const directed = await directedStep(ctx, desk, { ...j, agent: j.agent }, c.record);
    if ("next" in directed || "outcome" in directed) return directed;
    finished = directed.finished;
  }
  // The work is final (committed): the next prompt's baseline read overlaps this prompt's last records.
  if (!finished && !ctx.interrupted) ctx.baselines.start();
  await ctx.appendProgress(prompt.id, "completed", c.suffix);
  const facts = { attempts, commit: c.record, failureClass: null, reason: earlier, lastVerifier: report };
  await finish(ctx, desk, prompt, sessionResult("completed", facts), action);
  ctx.say(completedLine(prompt.id), "green");
  return {
    outcome: { ...outcome(prompt, "completed", null, null, attempts, c.record), ...(finished ? { finished } : {}) },
  };
}

/** The provider failed and nothing more is tried: `failed` with the failure class. */
async function failProvider(ctx: RunContext, desk: SteerDesk, j: Judged): Promise<PromptOutcome> {
  const { prompt, env, report, runAttempts: attempts } = j;
  await ctx.appendProgress(prompt.id, "failed", null);
  const message = env.message || "provider failed";
  ctx.err(`error: ${message}`);
  if (prompt.options.log_meta === "full" && env.stderr_tail) {
    for (const l of env.stderr_tail.replace(/\n+$/, "").split("\n")) ctx.err(`  ${l}`);
  }
  const facts = { attempts, commit: null, failureClass: env.class, reason: message, lastVerifier: report };
  await finish(ctx, desk, prompt, sessionResult("failed", facts), "fail_provider");
  return outcome(prompt, "failed", message, env.class, attempts, null);
}

/** The session ended but the contract failed and no repair is left: `verification_failed`. */
async function failVerification(ctx: RunContext, desk: SteerDesk, j: Judged): Promise<PromptOutcome> {
  const { prompt, report, runAttempts: attempts } = j;
  const summary = verificationReason(reportSummary(report));
  await ctx.appendProgress(prompt.id, "failed", null);
  ctx.say(verificationFailedLine(prompt.id), "red");
  sayChecks(ctx, report);
  ctx.err(`error: ${summary}`);
  const facts = { attempts, commit: null, failureClass: null, reason: summary, lastVerifier: report };
  await finish(ctx, desk, prompt, sessionResult("verification_failed", facts), "fail_verification");
  return outcome(prompt, "verification_failed", summary, null, attempts, null);
}

/** Retry after the delay, boundaries running meanwhile; an interrupt during the wait stops the prompt. */
async function scheduleRetry(ctx: RunContext, j: Judged): Promise<Step> {
  const { prompt, env, plan, judgement: { delay } } = j;
  await ctx.appendProgress(prompt.id, "failed", null);
  await ctx.state.updatePrompt(prompt.id, (p) => {
    p.status = "retry_scheduled";
    p.retry_delay_ms = delay;
  });
  ctx.say(retryLine(prompt.id, env.class, plan.attemptNo + 1, delay, env.message), "yellow");
  sayChecks(ctx, j.report);
  ctx.slot.endLog();
  ctx.plane.transition({ stage: "waiting_retry" });
  await waitWithBoundaries(ctx, delay);
  if (ctx.interrupted) {
    await ctx.state.updatePrompt(prompt.id, (p) => {
      p.status = "interrupted";
    });
    return { outcome: outcome(prompt, "interrupted", "interrupted", null, j.runAttempts, null, true) };
  }
  return { next: nextAttempt(plan, "retry", prompt.body) };
}

/** Repair: the next attempt gets the repair prompt built from this verification (or the provider's error). */
async function scheduleRepair(ctx: RunContext, j: Judged): Promise<Step> {
  const { prompt, env, plan, run, report, judgement: { counts } } = j;
  await ctx.appendProgress(prompt.id, "failed", null);
  await ctx.state.updatePrompt(prompt.id, (p) => {
    p.status = "repairing";
  });
  const n = counts.repair + 1;
  const max = prompt.options.recovery.repair.max_attempts;
  ctx.say(repairLine(prompt.id, n, max, report), "yellow");
  sayChecks(ctx, report);
  ctx.slot.endLog();
  const summary = verificationReason(reportSummary(report));
  const lastError = run.stream === "ok" ? summary : (env.message || null);
  return { next: nextAttempt(plan, "repair", repairPrompt({ body: prompt.body, pass: n, max, lastError, report })) };
}

/** Name every check that did not pass under the line just said: clause, subject, verdict, a command's output tail. */
function sayChecks(ctx: RunContext, report: VerifyReport): void {
  for (const note of checkNotes(report)) {
    const [head, ...tail] = checkNoteLines(note);
    ctx.say(head!, "red");
    for (const l of tail) ctx.say(l, "dim");
  }
}

/** Sleep for a retry delay while boundaries keep running; stops early on interrupt. */
async function waitWithBoundaries(ctx: RunContext, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!ctx.interrupted) {
    ctx.plane.boundary();
    const left = until - Date.now();
    if (left <= 0) break;
    await Promise.race([new Promise((r) => setTimeout(r, Math.min(left, 100))), ctx.plane.wake()]);
  }
}

function outcome(
  prompt: Prompt,
  status: PromptStatus,
  reason: string | null,
  failureClass: string | null,
  attempts: number,
  commit: CommitRecord | null,
  halt = false,
): PromptOutcome {
  return { id: prompt.id, status, reason, failureClass, attempts, commit, halt };
}
