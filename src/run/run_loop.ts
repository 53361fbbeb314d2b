/**
 * The prompt loop of a run (docs/reference/runner.md §1, §7): per prompt, a boundary, the dependency check, then the steps before
 * its first session and its attempt chain, then the loop's decision (src/run/run_decide.ts). This file performs
 * the effects only.
 */
import type { Prompt } from "../packet/mod.ts";
import type { RunContext } from "./context.ts";
import { appendJournal } from "../store/journal.ts";
import type { PreservedWork } from "./preserve.ts";
import { preflight, type PromptOutcome, runPromptChain } from "./prompt_chain.ts";
import { beginPrompt, endPrompt } from "./prompt_guard.ts";
import type { RecoveryTarget } from "./crash_recovery.ts";
import { afterPrompt, blockersOf, promptEntry } from "./run_decide.ts";
import type { SteerDesk } from "./steering.ts";
import { probeAhead, probeVacuous } from "./vacuous.ts";
import { verifyCompletion } from "./agent_chain.ts";
import { pendingIn } from "./commit_pending.ts";
import { claimPendingCommit } from "./commit_claim.ts";
import { traceStage } from "../util/stage_trace.ts";
import { escapeControlKeepLines } from "../util/escape.ts";

/** What the loop leaves for closing the run. */
export interface RunTally {
  outcomes: PromptOutcome[];
  failed: { id: string; reason: string }[];
  haltReason: string | null;
  preserved: Map<string, PreservedWork>;
}

/** Loop settings decided from the command line. */
export interface LoopSettings {
  keepGoing: boolean;
  /** Verify-first is on. */
  preflightOn: boolean;
  /** `--strict`. */
  strict: boolean;
  /** The prompt that continues an interrupted attempt's leftovers (it runs first), or null. */
  recovery: RecoveryTarget | null;
  /** Prompt ids were named: agent control does not check completion_verify before the run. */
  explicitIds?: boolean;
}

/** Run the prompts in order until they are done or the loop halts. */
export async function runPrompts(
  ctx: RunContext,
  desk: SteerDesk,
  prompts: Prompt[],
  settings: LoopSettings,
): Promise<RunTally> {
  const tally: RunTally = { outcomes: [], failed: [], haltReason: null, preserved: new Map() };
  if (await alreadyComplete(ctx, prompts, settings, tally)) return tally;
  // What git status hides in the judged repos as the run finds them (src/run/hiding_run.ts): read beside the first
  // prompt's start, nothing for a packet whose contracts judge no git.
  ctx.runHiding.start(ctx.packet, prompts, ctx.persist ? ctx.storeRoot : "", ctx.runId, (l) => ctx.err(l));
  let position = 0;
  for (const prompt of prompts) {
    position++;
    if (ctx.interrupted) {
      tally.haltReason = "interrupted";
      break;
    }
    ctx.plane.transition({ stage: "between_prompts", prompt_position: position });
    ctx.plane.boundary();
    // Blocking check: dependencies completed earlier in this run or in progress.log. ctx.progress is progress.log as
    // read when the run opened, with every line this runner appended since (only the lease holder appends).
    const blockers = blockersOf(prompt.dependsOn, ctx.completedThisRun, (d) => ctx.progress.get(d)?.status);
    // The next prompt's baseline read starts once this prompt's work is final (src/run/baseline_prefetch.ts).
    ctx.baselines.expect(ctx.packet, prompts[position] ?? null);
    let outcome: PromptOutcome;
    if (blockers.length) {
      outcome = await blockPrompt(ctx, prompt, blockers);
      tally.outcomes.push(outcome);
      readNextBaseline(ctx, outcome, settings);
      if (ctx.persist) await journalPromptFinished(ctx, outcome);
    } else {
      const recovering = settings.recovery?.promptId === prompt.id ? settings.recovery : null;
      outcome = await runOnePrompt(ctx, desk, prompt, recovering, settings, tally.preserved);
      tally.outcomes.push(outcome);
      readNextBaseline(ctx, outcome, settings);
      if (ctx.persist) await journalPromptFinished(ctx, outcome);
      if (outcome.status === "completed") {
        ctx.completedThisRun.add(prompt.id);
        ctx.plane.transition({ completed_count: ctx.completedThisRun.size });
      }
      // The boundary's snapshot, with the count: written now when the last write is a window old, else by the window's
      // timer (a view; never waited for). The events and the audit log are fsynced before the next prompt.
      ctx.plane.syncRecord();
    }
    const next = afterPrompt(outcome, settings.keepGoing);
    if (next.failed) tally.failed.push(next.failed);
    if (next.halt !== null) {
      tally.haltReason = next.halt;
      break;
    }
    if (outcome.finished) {
      ctx.say(`agent finished the sequence at prompt ${prompt.id}: completion_verify passed`, "green");
      break;
    }
  }
  return tally;
}

/**
 * Agent control (docs/agent-control.md §3): before a normal run, a passing completion_verify ends the run without
 * opening a session; a fault halts it. Naming prompt ids skips the check (naming one is an explicit request).
 */
async function alreadyComplete(
  ctx: RunContext,
  prompts: Prompt[],
  settings: LoopSettings,
  tally: RunTally,
): Promise<boolean> {
  if (!ctx.packet.agentControl || !ctx.persist || settings.explicitIds || prompts.length === 0) return false;
  const report = await verifyCompletion(ctx, prompts[0]!);
  if (report.status === "fault") {
    tally.haltReason = "completion_verify could not be evaluated (verifier fault)";
    tally.failed.push({ id: prompts[0]!.id, reason: tally.haltReason });
    return true;
  }
  if (!report.pass) return false;
  ctx.say("completion_verify already passes: the sequence is complete, no session opened", "green");
  return true;
}

/** One prompt that is not blocked: its guard, the steps before its first session, its attempt chain. */
async function runOnePrompt(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  recovering: RecoveryTarget | null,
  settings: LoopSettings,
  preserved: Map<string, PreservedWork>,
): Promise<PromptOutcome> {
  ctx.slot.beginPrompt(prompt.id);
  // The verified work of this prompt's failed commit: claimed and committed before anything else (commit_claim.ts).
  const pending = pendingIn(ctx.state, prompt.id);
  const probing = {
    preflightRequested: settings.preflightOn,
    completionVerifyPassed: false, // a passing completion_verify ends the run before any prompt (alreadyComplete)
    strict: settings.strict,
  };
  // The vacuous probe reads the tree as the baseline's git read does and records nothing: it runs beside that read
  // (src/run/vacuous.ts `probeAhead()`), and is used only when no preserved work was to be applied in between.
  const probed = recovering === null && pending === null ? probeAhead(ctx, prompt, probing) : null;
  const { baseline, restored, preserved: applied } = await beginPrompt(ctx, ctx.packet, prompt);
  const entry = promptEntry({
    preflightOn: settings.preflightOn,
    repairFirst: ctx.opts.repairFirst,
    recovering: recovering !== null || pending !== null,
    restored,
  });
  let outcome: PromptOutcome | null = null;
  if (pending && !recovering) outcome = await claimPendingCommit(ctx, desk, prompt, pending);
  // Agent control and agent-owned completion (docs/agent-control.md §3): passing files — stale, or a repeated
  // iteration's — never complete a prompt without a session; the agent's directive or the session decides.
  const noPreflight = ctx.packet.execution.completion === "agent_owned" || ctx.packet.agentControl !== null;
  if (entry.preflight && !noPreflight) outcome ??= await preflight(ctx, desk, prompt);
  if (entry.probeVacuous) outcome ??= await probeVacuous(ctx, desk, prompt, probing, applied ? null : probed);
  outcome ??= await runPromptChain(ctx, desk, prompt, recovering, restored);
  const kept = await endPrompt(ctx, prompt, baseline, outcome);
  if (kept) preserved.set(prompt.id, kept);
  return outcome;
}

/** A prompt whose dependencies did not complete: recorded as blocked, never run. */
async function blockPrompt(ctx: RunContext, prompt: Prompt, blockers: string[]): Promise<PromptOutcome> {
  const reason = `blocked by ${blockers.join(", ")}`;
  await ctx.state.updatePrompt(prompt.id, (p) => {
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
  ctx.io.stderr.write(escapeControlKeepLines(`error: prompt ${prompt.id} is ${reason}`) + "\n");
  return {
    id: prompt.id,
    status: "blocked_by_dependency",
    reason,
    failureClass: null,
    attempts: 0,
    commit: null,
    halt: false,
  };
}

/**
 * A prompt's work is final — committed, or preserved and reset after a failure (runOnePrompt's endPrompt): when the
 * loop goes on, the next prompt's baseline read starts now and runs while this prompt's last records are written
 * (src/run/baseline_prefetch.ts). A completed prompt started it already, right after its commit.
 */
function readNextBaseline(ctx: RunContext, outcome: PromptOutcome, settings: LoopSettings): void {
  if (ctx.interrupted || outcome.finished || afterPrompt(outcome, settings.keepGoing).halt !== null) return;
  ctx.baselines.start();
}

/** Journal a prompt's final state in this run (docs/reference/runner.md §10.5). */
function journalPromptFinished(ctx: RunContext, o: PromptOutcome): Promise<unknown> {
  traceStage("journal_prompt_finished", o.id);
  return appendJournal(ctx.storeRoot, ctx.runId, "prompt_finished", {
    prompt: o.id,
    status: o.status,
    attempts: o.attempts,
    reason: o.reason,
    failure_class: o.failureClass,
    commit: o.commit,
  });
}
