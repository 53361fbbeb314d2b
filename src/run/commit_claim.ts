/**
 * The next run of a prompt whose commit failed (docs/crash_recovery.md, "A commit that failed"): before any session,
 * it claims the verified work the failed commit left (its `commit_pending` paths, src/run/commit_pending.ts), says so
 * on the record (a line, the run journal's `commit_claimed`), verifies the prompt's contract again on that work —
 * the commit must rest on a verification of what it holds, whatever changed since — and commits it under the
 * prompt's own id. When the contract no longer passes, the prompt's attempt chain runs on the work as its own.
 */
import type { Prompt } from "../packet/mod.ts";
import { appendJournal } from "../store/journal.ts";
import { listPaths } from "./dirty.ts";
import { checkPending } from "./commit_pending.ts";
import type { RunContext } from "./context.ts";
import { completedLine } from "./output.ts";
import { commitFailed, commitWork, finish, halted, type PromptOutcome } from "./prompt_result.ts";
import type { CommitClaim, CommitPending } from "./state.ts";
import type { SteerDesk } from "./steering.ts";
import { verifyNow } from "./verify_step.ts";
import { commitSuffix } from "./commit.ts";
import { commitsNaming, earlierCommits } from "./earlier_commits.ts";

/**
 * Claim, verify again and commit a failed commit's work; returns the prompt's outcome, or null when its attempt chain
 * must run (the contract no longer passes on the work, or the work is gone). A stop before the verdict leaves the
 * entry as it was (`commit_failed`, its work pending) and halts the run.
 */
export async function claimPendingCommit(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  pending: CommitPending,
): Promise<PromptOutcome | null> {
  const found = await checkPending(ctx.reposFor(prompt), pending, ctx.storeRoot || null);
  const claim: CommitClaim = { run_id: pending.run_id, repos: found.repos, changed: found.changed };
  const where = Object.entries(claim.repos).map(([r, p]) => `${r}: ${p.length} path(s)`).join(", ");
  if (ctx.persist) {
    await appendJournal(ctx.storeRoot, ctx.runId, "commit_claimed", { prompt: prompt.id, ...claim });
  }
  if (where === "") {
    // A run that was committing this work died after `git commit`: its commit names the prompt and that run.
    const adopted = pending.claimed_by ? await adoptClaimCommit(ctx, desk, prompt, pending.claimed_by, claim) : null;
    if (adopted) return adopted;
    ctx.say(`Prompt ${prompt.id}: the work its failed commit of run ${pending.run_id} left is no longer uncommitted`);
    return null;
  }
  ctx.say(
    `Prompt ${prompt.id}: claiming the work it verified in run ${pending.run_id}, whose commit failed (${where})`,
  );
  if (claim.changed.length) {
    ctx.say(
      `Prompt ${prompt.id}: ${claim.changed.length} path(s) changed since that verification: ` +
        `${listPaths(claim.changed, 5)}; verifying its contract on them again before the commit`,
      "yellow",
    );
  } else ctx.say(`Prompt ${prompt.id}: verifying its contract again before the commit`);
  const report = await verifyNow(ctx, prompt, "preflight", null);
  if (report === null) {
    // Stopped before a verdict: the entry stays `commit_failed` with its pending work, for the next run to claim.
    const reason = "interrupted";
    return {
      id: prompt.id,
      status: "interrupted",
      reason,
      failureClass: "user_cancelled",
      attempts: 0,
      commit: null,
      halt: true,
    };
  }
  if (report.status === "fault") return await halted(ctx, desk, prompt, report, "preflight", 0);
  if (!report.pass) {
    ctx.say(`Prompt ${prompt.id}: its contract no longer passes on that work; running the prompt on it`, "yellow");
    return null;
  }
  await ctx.state.updatePrompt(prompt.id, (p) => {
    if (p.commit_pending) p.commit_pending.claimed_by = ctx.runId;
  });
  const c = await commitWork(ctx, desk, prompt, report);
  // A run killed while committing this claim may have committed some repos already: they are this commit's too.
  const earlier = !c.error && pending.claimed_by ? await earlierCommits(ctx, prompt, pending.claimed_by, c) : null;
  const base = {
    source: "session" as const,
    session_ran: false,
    attempts: 0,
    failure_class: null,
    claimed: claim,
    ...(earlier ? { reason: earlier } : {}),
  };
  if (c.error) {
    await commitFailed(ctx, prompt, c.error, c.record);
    const result = { ...base, status: "commit_failed" as const, commit: c.record, reason: c.error };
    await finish(ctx, desk, prompt, { ...result, last_verifier: report }, "complete");
    return {
      id: prompt.id,
      status: "commit_failed",
      reason: c.error,
      failureClass: null,
      attempts: 0,
      commit: c.record,
      halt: false,
    };
  }
  await ctx.appendProgress(prompt.id, "completed", c.suffix);
  await finish(ctx, desk, prompt, {
    reason: null,
    ...base,
    status: "completed",
    commit: c.record,
    last_verifier: report,
  }, "complete");
  ctx.say(completedLine(prompt.id), "green");
  return {
    id: prompt.id,
    status: "completed",
    reason: null,
    failureClass: null,
    attempts: 0,
    commit: c.record,
    halt: false,
  };
}

/**
 * Adopt the commit a dead run made of this claim (like crash recovery adopts a commit made just before a runner
 * died): each target repo whose HEAD names the prompt and the claiming run. Null when none does.
 */
async function adoptClaimCommit(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  claimingRun: string,
  claim: CommitClaim,
): Promise<PromptOutcome | null> {
  const repos = await commitsNaming(ctx, prompt, claimingRun, null);
  if (repos.length === 0) return null;
  const suffix = commitSuffix(repos);
  ctx.err(`recovered: prompt ${prompt.id}'s claimed work was committed by run ${claimingRun} (${suffix}); adopted`);
  await ctx.appendProgress(prompt.id, "completed", suffix);
  const commit = { status: "ok" as const, repos };
  await finish(ctx, desk, prompt, {
    status: "completed",
    source: "session",
    session_ran: false,
    attempts: 0,
    commit,
    failure_class: null,
    reason: `recovered: the commit of run ${claimingRun} names prompt ${prompt.id}`,
    last_verifier: ctx.state.entry(prompt.id)?.result?.last_verifier ?? null,
    claimed: claim,
  }, "complete");
  ctx.say(completedLine(prompt.id), "green");
  return { id: prompt.id, status: "completed", reason: null, failureClass: null, attempts: 0, commit, halt: false };
}
