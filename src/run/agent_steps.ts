/**
 * The chain steps agent control adds (docs/agent-control.md §3): what a verified, committed iteration's directive
 * does, and an agent-owned incomplete iteration. Effects only; the decisions are in src/run/agent_decide.ts.
 */
import type { VerifyReport } from "../contract/mod.ts";
import type { Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import { AGENT_OWNED_REPEAT, type AgentLoop, iterationLine } from "./agent_chain.ts";
import { type AttemptPlan, nextAttempt, sessionResult } from "./chain_decide.ts";
import type { RunContext } from "./context.ts";
import { finish, halted, type PromptOutcome } from "./prompt_result.ts";
import type { CommitRecord } from "./state.ts";
import type { SteerDesk } from "./steering.ts";

/** What follows an attempt: the prompt's outcome, or the next attempt. */
export type Step = { outcome: PromptOutcome } | { next: AttemptPlan };

/**
 * Agent control after a verified, committed iteration (docs/agent-control.md §3): complete (continue), complete and
 * close the sequence (finish that passed completion_verify), the next iteration, or a stop (blocked, the cap, a
 * completion_verify fault).
 */
export async function directedStep(
  ctx: RunContext,
  desk: SteerDesk,
  j: { prompt: Prompt; report: VerifyReport; runAttempts: number; plan: AttemptPlan; agent: AgentLoop | null },
  commit: CommitRecord | null,
): Promise<Step | { finished: boolean }> {
  const { prompt, report, runAttempts: attempts, plan } = j;
  const agent = j.agent!;
  const { step, completion } = await agent.afterCommit(ctx, prompt, plan.attemptNo);
  switch (step.do) {
    case "complete":
      return { finished: false };
    case "finish":
      return { finished: true };
    case "next_iteration": {
      const why = step.failures.length ? "finish refused: completion_verify did not pass" : "repeat";
      ctx.say(iterationLine(prompt.id, step.iteration, agent.config.max_iterations, why), "yellow");
      ctx.slot.endLog();
      return { next: nextAttempt(plan, "run", prompt.body) };
    }
    case "fault":
      return { outcome: await halted(ctx, desk, prompt, completion!, "post_session", attempts) };
    case "blocked":
    case "cap": {
      const failureClass = step.do === "blocked" ? "agent_blocked" : "agent_control_iteration_limit";
      const reason = step.do === "blocked" ? `blocked: ${step.reason}` : step.reason;
      await ctx.appendProgress(prompt.id, "failed", null);
      ctx.err(`error: prompt ${prompt.id} ${reason}`);
      const facts = { attempts, commit, failureClass, reason, lastVerifier: report };
      await finish(ctx, desk, prompt, sessionResult("failed", facts), step.do);
      return {
        outcome: { id: prompt.id, status: "failed", reason, failureClass, attempts, commit, halt: true },
      };
    }
  }
}

/** Agent-owned completion: the iteration is incomplete, not failed; a fresh session gets focused diagnostics. */
export async function incompleteIteration(
  ctx: RunContext,
  i: { prompt: Prompt; plan: AttemptPlan; report: VerifyReport; body: string },
): Promise<Step> {
  await ctx.state.updateAttempt(i.prompt.id, ctx.runId, i.plan.attemptNo, (a) => {
    a.status = "verification_failed";
    a.completed_at = nowIso();
    a.verification = i.report;
    a.decision = AGENT_OWNED_REPEAT;
  });
  await ctx.state.updatePrompt(i.prompt.id, (p) => {
    p.status = "running";
  });
  ctx.say(`↻ prompt ${i.prompt.id}: incomplete (${i.report.failures.join("; ")}); a fresh session continues`, "yellow");
  ctx.slot.endLog();
  return { next: nextAttempt(i.plan, "run", i.body) };
}
