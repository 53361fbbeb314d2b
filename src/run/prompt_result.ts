/**
 * Final prompt states (docs/reference/runner.md §6 effects, §10.2 results, docs/reference/contract.md §8–§9): the replaced `result` with its
 * steer/amendment flags, `prompt_finished`, commits per policy, verifier-fault halts and pre-flight completions.
 */
import type { VerifyReport } from "../contract/mod.ts";
import { faultLines, reportSummary } from "../contract/report.ts";
import type { Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import type { FailureEnvelope } from "./classify.ts";
import { commitMessage, commitPrompt } from "./commit.ts";
import { isPacketLocalStore } from "./commit_records.ts";
import { withExclusions } from "./dirty.ts";
import { pendingWork } from "./commit_pending.ts";
import type { RunContext } from "./context.ts";
import { faultBlock, preflightCompletedLine } from "./output.ts";
import type { CommitRecord, FailureRecord, PromptResult, PromptStatus } from "./state.ts";
import type { SteerDesk } from "./steering.ts";
import { hasChangedPathsOnly, preflightSatisfied, verifyNow } from "./verify_step.ts";

/** How a prompt ended in this run. */
export interface PromptOutcome {
  id: string;
  status: PromptStatus;
  reason: string | null;
  failureClass: string | null;
  attempts: number;
  commit: CommitRecord | null;
  /** Stop the whole run (verifier fault, interrupt). */
  halt: boolean;
  /** Agent control: a finish passed completion_verify, so the selected sequence closes successfully. */
  finished?: boolean;
}

/** The recorded failure: the envelope without `raw` and `stderr_tail`. */
export function failureRecord(env: FailureEnvelope | null): FailureRecord | null {
  if (!env) return null;
  const { raw: _raw, stderr_tail: _tail, ...rest } = env;
  return rest;
}

/** Result flags for steering and amendments (docs/reference/control-plane.md §8.8, §9.8). */
export function flags(desk: SteerDesk, prompt: Prompt, report: VerifyReport | null) {
  const n = desk.count(prompt.id);
  const amendments = report?.amendments ?? [];
  return {
    ...(n > 0
      ? {
        steered: true,
        steer_count: n,
        steer_deliveries: desk.deliveries(prompt.id),
        interventions_file: `interventions/${prompt.id}.jsonl`,
      }
      : { steered: false }),
    ...(amendments.length > 0
      ? { amended: true, amendments, amendments_file: `amendments/${prompt.id}.jsonl` }
      : { amended: false }),
  } as Pick<
    PromptResult,
    | "steered"
    | "steer_count"
    | "steer_deliveries"
    | "interventions_file"
    | "amended"
    | "amendments"
    | "amendments_file"
  >;
}

/** Write the prompt's final result (replaced, never merged) and emit `prompt_finished`. */
export async function finish(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  result: Omit<PromptResult, "steered" | "amended" | "run_id" | "finished_at">,
  decision: string | null,
): Promise<void> {
  const full: PromptResult = {
    ...result,
    run_id: ctx.runId,
    finished_at: nowIso(),
    ...flags(desk, prompt, result.last_verifier),
    ...(ctx.vacuous.has(prompt.id) ? { vacuous: true } : {}),
  };
  await ctx.state.updatePrompt(prompt.id, (p) => {
    p.status = full.status;
    p.result = full; // replaced, never merged
    // A failed commit's work is the prompt's until a later result of it replaces this one (src/run/commit_pending.ts).
    if (full.status !== "commit_failed") delete p.commit_pending;
    if (full.status !== "interrupted") {
      delete p.interrupted_work;
      // Facts of the prompt's start that only a run continuing an interrupted attempt reads.
      delete p.hiding_baseline;
      delete p.loaded_contract;
    }
    delete p.retry_delay_ms;
    if (full.blocked_by) p.blocked_by = full.blocked_by;
    else delete p.blocked_by;
  });
  ctx.record(
    {
      type: "prompt_finished",
      data: {
        status: full.status,
        decision,
        attempts: full.attempts,
        steered: full.steered,
        amended: full.amended,
        commit: full.commit,
        ...(full.vacuous ? { vacuous: true as const } : {}),
      },
    },
    { prompt_id: prompt.id, attempt: ctx.attempt, stream: null, provider: prompt.options.provider, session_id: null },
  );
}

/** Commit per policy; returns the record, the progress suffix and an error. */
export async function commitWork(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  report: VerifyReport | null,
): Promise<{ record: CommitRecord; suffix: string; error: string | null }> {
  if (ctx.opts.commit === "none") {
    return { record: { status: "skip", reason: "no_commit" }, suffix: "no_commit", error: null };
  }
  if (ctx.opts.commit === "noop") return { record: { status: "skip", reason: "noop" }, suffix: "noop", error: null };
  ctx.plane.transition({ stage: "committing" });
  const message = commitMessage(prompt.commit, {
    runId: ctx.runId,
    promptId: prompt.id,
    steerCount: desk.count(prompt.id),
    amendmentClasses: (report?.amendments ?? []).map((a) => a.phase),
  });
  // Packet-local runs: the prompt's intervention and amendment records travel with its commit.
  const carry = ctx.persist && await isPacketLocalStore(ctx.storeRoot, ctx.packet.dir);
  const records = { storeRoot: ctx.storeRoot, promptId: prompt.id, carry };
  // Paths dirty before the prompt started are the user's: never committed (docs/keep_going.md).
  const repos = withExclusions(ctx.reposFor(prompt), ctx.preexisting);
  const out = await ctx.withBoundaries(commitPrompt(repos, message, (l) => ctx.say(l), records));
  return { record: out.record, suffix: out.suffix, error: out.error };
}

/**
 * A verified prompt's commit failed: say why, record `failed` in progress.log and, before its result, the paths it
 * left uncommitted with their digests (`commit_pending`): its verified work, claimed by its next run
 * (docs/crash_recovery.md, "A commit that failed").
 */
export async function commitFailed(
  ctx: RunContext,
  prompt: Prompt,
  error: string,
  record: CommitRecord,
): Promise<void> {
  ctx.err(`error: ${error}`);
  await ctx.appendProgress(prompt.id, "failed", null);
  const repos = ctx.reposFor(prompt);
  const pending = await pendingWork(repos, ctx.preexisting, ctx.storeRoot || null, record, ctx.runId, nowIso());
  await ctx.state.updatePrompt(prompt.id, (p) => {
    if (pending) p.commit_pending = pending;
    else delete p.commit_pending;
  });
  if (pending) {
    const where = Object.entries(pending.repos).map(([r, f]) => `${r}: ${Object.keys(f).length} path(s)`).join(", ");
    ctx.err(
      `prompt ${prompt.id} keeps its verified work uncommitted (${where}); its next run commits it ` +
        `(run \`run --remaining\` or run prompt ${prompt.id} again once the commit can succeed)`,
    );
  }
}

/** Pre-flight verification (docs/reference/contract.md §9); returns an outcome when the prompt completed or faulted. */
export async function preflight(ctx: RunContext, desk: SteerDesk, prompt: Prompt): Promise<PromptOutcome | null> {
  if (await hasChangedPathsOnly(ctx, prompt)) return null;
  const report = await verifyNow(ctx, prompt, "preflight", null);
  if (report === null) return null; // interrupted: the prompt chain ends the prompt without starting a session
  if (report.status === "fault") return await halted(ctx, desk, prompt, report, "preflight", 0);
  if (!(await preflightSatisfied(ctx, prompt, report))) return null;
  const commit: CommitRecord = { status: "skip", reason: "no_session" };
  await ctx.appendProgress(prompt.id, "completed", "no_session");
  await finish(ctx, desk, prompt, {
    status: "completed",
    source: "preflight_verify",
    session_ran: false,
    attempts: 0,
    commit,
    failure_class: null,
    reason: null,
    last_verifier: report,
  }, "complete");
  ctx.say(preflightCompletedLine(prompt.id), "green");
  return { id: prompt.id, status: "completed", reason: null, failureClass: null, attempts: 0, commit, halt: false };
}

/** A verifier fault: print the docs/reference/contract.md §8 block, record `verifier_fault`, and halt the run. */
export async function halted(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  report: VerifyReport,
  stage: "preflight" | "post_session",
  attempts: number,
): Promise<PromptOutcome> {
  const infra = report.items.some((i) => i.status === "fault");
  for (const line of faultBlock(prompt.id, faultLines(report), infra)) ctx.err(line);
  const reason = `verifier fault in prompt ${prompt.id}`;
  await finish(ctx, desk, prompt, {
    status: "verifier_fault",
    source: "session",
    session_ran: stage === "post_session",
    attempts,
    commit: null,
    failure_class: null,
    reason: reportSummary(report),
    last_verifier: report,
    stage,
  }, "halt");
  return { id: prompt.id, status: "verifier_fault", reason, failureClass: null, attempts, commit: null, halt: true };
}
