/**
 * One prompt's attempt chain (docs/reference/runner.md §4, §6): attempt → verify → decide → effects (commit, progress, result,
 * output lines), looping through retries and repairs within the per-run budgets. Verifier faults halt.
 */
import type { VerifyReport } from "../contract/types.ts";
import { reportSummary } from "../contract/report.ts";
import type { AttemptMode } from "../events/types.ts";
import type { Prompt } from "../packet/types.ts";
import { nowIso } from "../util/time.ts";
import { CONTINUE_PROMPT, runAttemptStreams } from "./attempt.ts";
import { modeCounts, retryDelayMs, retryLimit } from "./budgets.ts";
import { type RecoveryTarget, resumedTarget } from "./crash_recovery.ts";
import { failpoint } from "../util/failpoint.ts";
import { okEnvelope } from "./classify.ts";
import type { RunContext } from "./context.ts";
import { decide } from "./decide.ts";
import {
  completedLine,
  OVERRIDE_LINE,
  repairLine,
  retryLine,
  verificationFailedLine,
  verificationReason,
} from "./output.ts";
import { commitWork, failureRecord, finish, halted, type PromptOutcome } from "./prompt_result.ts";
import { repairPrompt } from "./repair_prompt.ts";
import type { AttemptRecord, CommitRecord, PromptStatus } from "./state.ts";
import type { SteerDesk } from "./steering.ts";
import { verifyNow, workspaceChanged } from "./verify_step.ts";

export { preflight, type PromptOutcome } from "./prompt_result.ts";

function lastReport(attempts: AttemptRecord[]): VerifyReport | null {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const v = attempts[i]!.verification;
    if (v) return v;
  }
  return null;
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
  const o = prompt.options;
  const prior = ctx.state.attempts(prompt.id).filter((a) => a.run_id === ctx.runId);
  let attemptNo = prior.reduce((m, a) => Math.max(m, a.attempt), 0) + 1;
  const repairRestored = restored && o.recovery.repair.max_attempts > 0 &&
    lastReport(ctx.state.attempts(prompt.id)) !== null;
  let mode: AttemptMode = ctx.opts.repairFirst || repairRestored ? "repair" : "run";
  let body = prompt.body;
  if (mode === "repair") {
    const counts = modeCounts(ctx.state.attempts(prompt.id), ctx.runId);
    const last = lastReport(ctx.state.attempts(prompt.id));
    body = repairPrompt({
      body: prompt.body,
      pass: counts.repair + 1,
      max: o.recovery.repair.max_attempts,
      lastError: last ? reportSummary(last) : null,
      report: last,
    });
  }
  // Crash resume (docs/reference/runner.md §4, docs/crash_recovery.md): a resumed run continues the attempt its dead or stopped
  // runner left behind; `recover` (leftovers of an interrupted attempt) does so in any run.
  const crashed = recover ?? (mode === "run" && ctx.opts.resumed ? resumedTarget(prompt.id, prior, ctx.runId) : null);
  let resumeSession: string | null = null;
  let continueFrom: { runId: string; attempt: number } | null = null;
  if (crashed) {
    resumeSession = crashed.sessionId;
    continueFrom = { runId: crashed.runId, attempt: crashed.attempt };
    mode = "resume";
    body = resumeSession ? CONTINUE_PROMPT : prompt.body;
    const stale = ctx.state.attempts(prompt.id).find((a) =>
      a.run_id === crashed.runId && a.attempt === crashed.attempt
    );
    if (stale && (stale.status === "running" || stale.status === "interrupted")) {
      // Left by a runner that died or stopped (we hold the lease now): it ended when its runner did.
      await ctx.state.updateAttempt(prompt.id, crashed.runId, crashed.attempt, (a) => {
        a.status = "interrupted";
        a.completed_at ??= nowIso();
        a.decision ??= "resume";
      });
    }
  }
  const promptStartedAt = nowIso();
  let runAttempts = 0;
  for (;;) {
    runAttempts++;
    ctx.promptId = prompt.id;
    ctx.attempt = attemptNo;
    const startedAt = nowIso();
    ctx.record(
      {
        type: "prompt_started",
        data: {
          prompt_name: prompt.name,
          mode,
          attempt: attemptNo,
          provider: o.provider,
          model: o.model,
          cwd: prompt.cwd,
        },
      },
      { prompt_id: prompt.id, attempt: attemptNo, stream: null, provider: o.provider, session_id: null },
    );
    await ctx.state.updatePrompt(prompt.id, (p) => {
      p.status = "running";
      p.attempts.push({
        run_id: ctx.runId,
        attempt: attemptNo,
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
      attempt: attemptNo,
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

    failpoint("attempt.before_session");
    const run = await runAttemptStreams(ctx, desk, prompt, attemptNo, mode, body, resumeSession, continueFrom);
    failpoint("attempt.after_session");
    resumeSession = null;
    continueFrom = null;
    if (run.stream === "interrupted") {
      await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
        a.status = "interrupted";
        a.completed_at = nowIso();
        a.decision = "stop";
      });
      await finish(ctx, desk, prompt, {
        status: "interrupted",
        source: "session",
        session_ran: true,
        attempts: runAttempts,
        commit: null,
        failure_class: null,
        reason: "interrupted",
        last_verifier: null,
      }, "stop");
      ctx.attemptLog?.close();
      ctx.attemptLog = null;
      return {
        id: prompt.id,
        status: "interrupted",
        reason: "interrupted",
        failureClass: "user_cancelled",
        attempts: runAttempts,
        commit: null,
        halt: true,
      };
    }

    const report = await verifyNow(ctx, prompt, "attempt", attemptNo);
    if (report.status === "fault") {
      await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
        a.status = "verifier_fault";
        a.completed_at = nowIso();
        a.failure = failureRecord(run.envelope);
        a.verification = report;
        a.decision = "halt";
        a.stage = "post_session";
      });
      const out = await halted(ctx, desk, prompt, report, "post_session", runAttempts);
      ctx.attemptLog?.close();
      ctx.attemptLog = null;
      return out;
    }
    const env = run.envelope ?? okEnvelope();
    const counts = modeCounts(ctx.state.attempts(prompt.id), ctx.runId);
    const limit = retryLimit(o.recovery, env.class, env.suggested_max_attempts);
    const changed = run.stream === "error" && !report.pass ? await workspaceChanged(ctx, prompt, report) : false;
    const decision = decide({
      stream: run.stream,
      report: { pass: report.pass, items: report.counts.items },
      envelope: env,
      retryCount: counts.retry,
      repairCount: counts.repair,
      retryLimit: limit,
      workspaceChanged: changed,
      repair: o.recovery.repair,
    });
    const delay = decision.action === "retry"
      ? retryDelayMs(o.recovery, counts.retry + 1, env.suggested_delay_ms, ctx.opts.random)
      : 0;
    await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
      a.status = decision.attemptStatus;
      a.completed_at = nowIso();
      a.failure = failureRecord(run.envelope);
      a.verification = report;
      a.decision = decision.action;
      if (decision.action === "retry") a.retry_delay_ms = delay;
    });

    const summary = verificationReason(reportSummary(report));
    switch (decision.action) {
      case "complete":
      case "complete_override": {
        if (decision.action === "complete_override") ctx.say(OVERRIDE_LINE, "yellow");
        const c = await commitWork(ctx, desk, prompt, report);
        if (c.error) {
          ctx.err(`error: ${c.error}`);
          await ctx.appendProgress(prompt.id, "failed", null);
          await finish(ctx, desk, prompt, {
            status: "commit_failed",
            source: "session",
            session_ran: true,
            attempts: runAttempts,
            commit: c.record,
            failure_class: null,
            reason: c.error,
            last_verifier: report,
          }, decision.action);
          return done(ctx, prompt, "commit_failed", c.error, null, runAttempts, c.record);
        }
        await ctx.appendProgress(prompt.id, "completed", c.suffix);
        await finish(ctx, desk, prompt, {
          status: "completed",
          source: "session",
          session_ran: true,
          attempts: runAttempts,
          commit: c.record,
          failure_class: null,
          reason: null,
          last_verifier: report,
        }, decision.action);
        ctx.say(completedLine(prompt.id), "green");
        return done(ctx, prompt, "completed", null, null, runAttempts, c.record);
      }
      case "fail_provider": {
        await ctx.appendProgress(prompt.id, "failed", null);
        const message = env.message || "provider failed";
        ctx.err(`error: ${message}`);
        if (o.log_meta === "full" && env.stderr_tail) {
          for (const l of env.stderr_tail.replace(/\n+$/, "").split("\n")) ctx.err(`  ${l}`);
        }
        await finish(ctx, desk, prompt, {
          status: "failed",
          source: "session",
          session_ran: true,
          attempts: runAttempts,
          commit: null,
          failure_class: env.class,
          reason: message,
          last_verifier: report,
        }, decision.action);
        return done(ctx, prompt, "failed", message, env.class, runAttempts, null);
      }
      case "fail_verification": {
        await ctx.appendProgress(prompt.id, "failed", null);
        ctx.say(verificationFailedLine(prompt.id), "red");
        ctx.err(`error: ${summary}`);
        await finish(ctx, desk, prompt, {
          status: "verification_failed",
          source: "session",
          session_ran: true,
          attempts: runAttempts,
          commit: null,
          failure_class: null,
          reason: summary,
          last_verifier: report,
        }, decision.action);
        return done(ctx, prompt, "verification_failed", summary, null, runAttempts, null);
      }
      case "stop":
        return done(ctx, prompt, "interrupted", "interrupted", null, runAttempts, null, true);
      case "retry": {
        await ctx.appendProgress(prompt.id, "failed", null);
        await ctx.state.updatePrompt(prompt.id, (p) => {
          p.status = "retry_scheduled";
          p.retry_delay_ms = delay;
        });
        ctx.say(retryLine(prompt.id, env.class, attemptNo + 1, delay, env.message), "yellow");
        ctx.attemptLog?.close();
        ctx.attemptLog = null;
        ctx.plane.transition({ stage: "waiting_retry" });
        await waitWithBoundaries(ctx, delay);
        if (ctx.interrupted) {
          await ctx.state.updatePrompt(prompt.id, (p) => {
            p.status = "interrupted";
          });
          return done(ctx, prompt, "interrupted", "interrupted", null, runAttempts, null, true);
        }
        attemptNo++;
        mode = "retry";
        body = prompt.body;
        continue;
      }
      case "repair": {
        await ctx.appendProgress(prompt.id, "failed", null);
        await ctx.state.updatePrompt(prompt.id, (p) => {
          p.status = "repairing";
        });
        const n = counts.repair + 1;
        const max = o.recovery.repair.max_attempts;
        ctx.say(repairLine(prompt.id, n, max), "yellow");
        ctx.attemptLog?.close();
        ctx.attemptLog = null;
        body = repairPrompt({
          body: prompt.body,
          pass: n,
          max,
          lastError: run.stream === "ok" ? summary : (env.message || null),
          report,
        });
        attemptNo++;
        mode = "repair";
        continue;
      }
    }
  }
}

function done(
  ctx: RunContext,
  prompt: Prompt,
  status: PromptStatus,
  reason: string | null,
  failureClass: string | null,
  attempts: number,
  commit: CommitRecord | null,
  halt = false,
): PromptOutcome {
  ctx.attemptLog?.close();
  ctx.attemptLog = null;
  return { id: prompt.id, status, reason, failureClass, attempts, commit, halt };
}
