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

/**
 * Claim, verify again and commit a failed commit's work; returns the prompt's outcome, or null when its attempt chain
 * must run (the contract no longer passes on the work, the work is gone, or the run was interrupted).
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
  if (report === null) return null; // interrupted: the chain ends the prompt without a session
  if (report.status === "fault") return await halted(ctx, desk, prompt, report, "preflight", 0);
  if (!report.pass) {
    ctx.say(`Prompt ${prompt.id}: its contract no longer passes on that work; running the prompt on it`, "yellow");
    return null;
  }
  const c = await commitWork(ctx, desk, prompt, report);
  const base = { source: "session" as const, session_ran: false, attempts: 0, failure_class: null, claimed: claim };
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
    ...base,
    status: "completed",
    commit: c.record,
    reason: null,
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
