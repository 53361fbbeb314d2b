/**
 * Agent control inside a prompt's attempt chain (docs/agent-control.md §3): which iteration an attempt belongs to,
 * its invocation and prompt text, discarding a held directive when the iteration does not pass, and — once the
 * prompt's own contract passed and its commit succeeded — what the directive (or the default) does. The decisions
 * are pure (src/run/agent_decide.ts); this file performs their effects.
 */
import type { VerifyReport } from "../contract/mod.ts";
import { verifyContract } from "../contract/verify.ts";
import { verifyContextFor } from "../contract/context.ts";
import { checkNotes } from "../contract/check_notes.ts";
import { type AgentControlConfig, DEFAULT_MAX_ITERATIONS, type Prompt } from "../packet/mod.ts";
import { repairPrompt } from "./repair_prompt.ts";
import type { RunContext } from "./context.ts";
import { afterIteration, effectiveAction, iterationPrompt, type IterationStep } from "./agent_decide.ts";
import { AgentInvocation, staleProgress } from "./agent_iteration.ts";

/** One prompt's agent-control loop in this run. */
export class AgentLoop {
  #inv: AgentInvocation | null = null;
  /** Unmet completion_verify items of a refused finish, shown to the next iteration. */
  #failures: string[] = [];

  private constructor(readonly config: AgentControlConfig, public iteration: number, public loop: boolean) {}

  /** The loop of a prompt, continuing the iteration this run recorded; null without agent control or a store. */
  static open(ctx: RunContext, prompt: Prompt): AgentLoop | null {
    const config = ctx.packet.agentControl;
    if (!config || !ctx.persist) return null;
    const rec = ctx.state.entry(prompt.id)?.agent_control;
    const iteration = rec && rec.run_id === ctx.runId ? rec.iteration : 1;
    return new AgentLoop(config, iteration, config.default_action === "repeat" || iteration > 1);
  }

  /** The current attempt's invocation. */
  get invocation(): AgentInvocation | null {
    return this.#inv;
  }

  /** Open the attempt's invocation, record its iteration, and return the prompt text the attempt sends. */
  async begin(ctx: RunContext, prompt: Prompt, attemptNo: number, body: string): Promise<string> {
    this.#inv = await AgentInvocation.open(ctx, prompt.id, this.iteration, attemptNo);
    await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
      a.iteration = this.iteration;
    });
    await ctx.state.updatePrompt(prompt.id, (p) => {
      const verified = p.agent_control?.run_id === ctx.runId ? p.agent_control.verified : 0;
      p.agent_control = { run_id: ctx.runId, iteration: this.iteration, verified };
    });
    const prev = ctx.agentSnap;
    const progress = prev?.progress && prev.progress.prompt_id === prompt.id ? staleProgress(prev).progress : null;
    ctx.setAgentSnap({
      iteration: this.iteration,
      max_iterations: this.config.max_iterations,
      loop: this.loop,
      progress,
      last_directive: null,
    });
    return iterationPrompt({
      body,
      promptId: prompt.id,
      iteration: this.iteration,
      max: this.config.max_iterations,
      defaultAction: this.config.default_action,
      failures: this.#failures,
    });
  }

  /** The attempt did not pass (or its provider turn failed): a held directive is refused and changes nothing. */
  discard(reason: string): void {
    this.#inv?.conclude("rejected", reason);
  }

  /**
   * The iteration passed its contract and its commit succeeded: consume the directive (or apply the default),
   * evaluate completion_verify for a finish, and return what follows. Records the directive on the attempt.
   */
  async afterCommit(
    ctx: RunContext,
    prompt: Prompt,
    attemptNo: number,
  ): Promise<{ step: IterationStep; completion: VerifyReport | null }> {
    const inv = this.#inv!;
    const held = inv.held;
    const action = effectiveAction(held?.action ?? null, this.config);
    let completion: VerifyReport | null = null;
    if (action === "finish") completion = await verifyCompletion(ctx, prompt);
    const step = afterIteration({
      action: held?.action ?? null,
      reason: held?.reason ?? null,
      config: this.config,
      iteration: this.iteration,
      completion: completion
        ? { status: completion.status as "pass" | "fail" | "fault", failures: completion.failures }
        : null,
    });
    if (!held) inv.applyDefault(action as "continue" | "repeat");
    else if (step.do === "fault") inv.conclude("rejected", "completion_verify could not be evaluated (verifier fault)");
    else if (action === "finish" && step.do !== "finish") {
      inv.conclude("rejected", `completion_verify did not pass: ${completion!.failures.join("; ")}`);
    } else inv.conclude("applied", step.do === "cap" ? step.reason : null);
    await ctx.state.updateAttempt(prompt.id, ctx.runId, attemptNo, (a) => {
      a.directive = { action, reason: held?.reason ?? null, ...(held ? {} : { default: true }) };
    });
    await ctx.state.updatePrompt(prompt.id, (p) => {
      const rec = p.agent_control;
      if (rec) rec.verified += 1;
    });
    if (step.do === "next_iteration") {
      this.iteration = step.iteration;
      this.loop = true;
      this.#failures = step.failures;
      await ctx.state.updatePrompt(prompt.id, (p) => {
        p.status = "running";
        if (p.agent_control) p.agent_control.iteration = step.iteration;
      });
    }
    return { step, completion };
  }
}

/** Evaluate the packet's completion_verify contract now (scoped like the prompt, recorded as an event). */
export async function verifyCompletion(ctx: RunContext, prompt: Prompt): Promise<VerifyReport> {
  const config = ctx.packet.agentControl!;
  const vctx = verifyContextFor(ctx.packet, prompt, ctx.storeRoot, {
    runId: ctx.runId,
    source: "manual",
    attempt: null,
    env: { PROMPT_RUNNER_RUN_ID: ctx.runId, PROMPT_RUNNER_PACKET_DIR: ctx.packet.dir },
  });
  const report = await ctx.withBoundaries(verifyContract(config.completion_verify, vctx, []));
  ctx.say(
    `completion_verify: ${report.status} (${report.counts.passed}/${report.counts.items} items)` +
      (report.failures.length ? ` — ${report.failures.join("; ")}` : ""),
    report.pass ? "green" : "yellow",
  );
  ctx.record(
    {
      type: "verification_finished",
      data: {
        source: "manual",
        status: report.status,
        counts: report.counts,
        failures: report.failures,
        faults: report.faults,
        checks: checkNotes(report),
      },
    },
    { prompt_id: prompt.id, attempt: null, stream: null, provider: prompt.options.provider, session_id: null },
  );
  return report;
}

/** The transcript line of a new iteration. */
export function iterationLine(promptId: string, iteration: number, max: number, why: string): string {
  return `↻ prompt ${promptId}: iteration ${iteration} of ${max} (${why})`;
}

/**
 * Agent-owned completion (docs/agent-control.md §3): a normal return whose structural contract is not yet met is an
 * incomplete iteration — a fresh session with the original prompt and focused diagnostics, not a failure — until
 * the iteration cap (`agent_control.max_iterations`, else 20). Returns the next attempt's prompt, or null when the
 * ordinary decision applies (provider failures keep their classification).
 */
export function agentOwnedRepeat(
  ctx: RunContext,
  prompt: Prompt,
  stream: "ok" | "error",
  report: VerifyReport,
): string | null {
  if (ctx.packet.execution.completion !== "agent_owned" || stream !== "ok" || report.pass) return null;
  if (report.status === "fault") return null;
  const max = ctx.packet.agentControl?.max_iterations ?? DEFAULT_MAX_ITERATIONS;
  const done = ctx.state.attempts(prompt.id).filter((a) => a.run_id === ctx.runId && a.decision === AGENT_OWNED_REPEAT);
  if (done.length + 1 >= max) return null;
  return repairPrompt({
    body: prompt.body,
    pass: done.length + 1,
    max: max - 1,
    lastError: `incomplete: ${report.failures.join("; ")}`,
    report,
  });
}

/** The attempt decision of an agent-owned incomplete iteration. */
export const AGENT_OWNED_REPEAT = "agent_owned_repeat";
