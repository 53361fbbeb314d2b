/**
 * Verification inside a run (docs/reference/runner.md §4 step 8, docs/reference/contract.md §9): evaluate the enforced contract, append it to
 * the verification history, emit `verification_finished`, and compute `workspace_changed` for the decision table.
 */
import { editFault, recordEdit } from "./contract_guard.ts";
import type { VerifyReport, VerifySource } from "../contract/mod.ts";
import { enforcedContract } from "../contract/enforced.ts";
import { verifyContract } from "../contract/verify.ts";
import { verifyContextFor } from "../contract/context.ts";
import { appendVerification } from "../contract/history.ts";
import type { Prompt } from "../packet/mod.ts";
import { checkNotes } from "../contract/check_notes.ts";
import type { RunContext } from "./context.ts";
import { outsideStore, ridingRecords } from "./commit_records.ts";
import { porcelain } from "./git.ts";
import { failpoint } from "../util/failpoint.ts";
import { traceStage } from "../util/stage_trace.ts";

/** Verifications a contract amended during each may take before the verdict is a fault. */
const MAX_AMENDED_ROUNDS = 5;

/**
 * Verify a prompt's enforced contract now and record the result. Returns `null` when the run was interrupted before
 * the contract passed: the first Ctrl-C stops the running commands, and a verification cut short is no verdict on the
 * work, so it is neither stored nor announced (the caller ends the attempt `interrupted`).
 */
export async function verifyNow(
  ctx: RunContext,
  prompt: Prompt,
  source: VerifySource,
  attempt: number | null,
): Promise<VerifyReport | null> {
  if (ctx.interrupted) return null;
  ctx.plane.transition({ stage: "verifying" });
  ctx.plane.boundary();
  let { contract, amendments } = await enforcedContract(prompt, ctx.storeRoot);
  const vctx = verifyContextFor(ctx.packet, prompt, ctx.storeRoot, {
    runId: ctx.runId,
    source,
    attempt,
    preexisting: ctx.preexisting,
    hiding: ctx.hiding,
    hidingBaselined: true,
    env: {
      PROMPT_RUNNER_RUN_ID: ctx.runId,
      PROMPT_RUNNER_PROMPT_ID: prompt.id,
      PROMPT_RUNNER_PACKET_DIR: ctx.packet.dir,
    },
  });
  const check = () =>
    ctx.withBoundaries(verifyContract(contract, { ...vctx, signal: ctx.interruptSignal }, amendments));
  // A session that changed its own contract: this verdict is on the contract the run loaded, and it is a fault.
  const edited = source === "attempt" && attempt !== null && ctx.persist
    ? await ctx.contractGuard.edited(prompt, ctx.storeRoot, ctx.runId, attempt)
    : null;
  let report = await check();
  if (edited !== null) {
    await recordEdit(ctx.storeRoot, edited);
    report = { ...report, status: "fault", pass: false, faults: [...report.faults, editFault(edited)] };
  }
  // An amendment recorded while the checks ran took its timing class from the verification before this one (it says
  // `pre_verify`, say), yet this verdict did not check it. So once this verdict is recorded — from then on a new
  // amendment is classed after it — the contract is read again, and while it gained amendments it is verified again:
  // no verdict stands that omits an amendment made before it.
  for (let round = 1;; round++) {
    if (ctx.interrupted && report.status !== "pass") return null;
    if (round === 1) failpoint("verify.after_checks");
    if (ctx.persist) await appendVerification(ctx.storeRoot, report);
    const again = await enforcedContract(prompt, ctx.storeRoot);
    const seen = new Set(amendments.map((a) => a.id));
    if (again.amendments.length === amendments.length && again.amendments.every((a) => seen.has(a.id))) break;
    if (round > MAX_AMENDED_ROUNDS) {
      // Amended during every verification: a verdict on a contract that will not hold still is no verdict.
      const fault = `the contract of prompt ${prompt.id} was amended during each of ${round} verifications; ` +
        "verify it again once it stops changing";
      report = { ...report, status: "fault", pass: false, faults: [...report.faults, fault] };
      if (ctx.persist) await appendVerification(ctx.storeRoot, report);
      break;
    }
    ({ contract, amendments } = again);
    ctx.say(`Prompt ${prompt.id}: its contract was amended during verification; verifying again`, "yellow");
    report = await check();
  }
  ctx.record(
    {
      type: "verification_finished",
      data: {
        source,
        status: report.status,
        counts: report.counts,
        failures: report.failures,
        faults: report.faults,
        checks: checkNotes(report),
      },
    },
    { prompt_id: prompt.id, attempt, stream: null, provider: prompt.options.provider, session_id: null },
  );
  traceStage("verification_finished", prompt.id);
  ctx.plane.transition({
    last_verification: { status: report.status, failures: report.failures, at: report.verified_at },
  });
  ctx.plane.boundary();
  return report;
}

/** Whether the contract has a `changed_paths_only` clause (pre-flight is skipped for it). */
export async function hasChangedPathsOnly(ctx: RunContext, prompt: Prompt): Promise<boolean> {
  const { contract } = await enforcedContract(prompt, ctx.storeRoot);
  return (contract.changed_paths_only ?? []).length > 0;
}

const FILE_KINDS = new Set(["file_exists", "contains", "matches"]);

/**
 * `workspace_changed` (docs/reference/runner.md §6): any target repo with a non-empty porcelain status, any
 * files_exist/contains/matches item whose file exists, or any item with non-empty `changed_paths`.
 */
export async function workspaceChanged(ctx: RunContext, prompt: Prompt, report: VerifyReport): Promise<boolean> {
  for (const item of report.items) {
    if (Array.isArray(item.changed_paths) && item.changed_paths.length > 0) return true;
    if (FILE_KINDS.has(item.kind) && typeof item.resolved_path === "string") {
      try {
        await Deno.lstat(item.resolved_path);
        return true;
      } catch { /* absent */ }
    }
  }
  for (const repo of ctx.reposFor(prompt)) {
    // The store root is not the work, even where the prompt's committed records are tracked.
    const lines = await porcelain(
      repo.path,
      outsideStore(await ridingRecords(repo.path, { storeRoot: ctx.storeRoot, promptId: prompt.id, carry: false })),
    );
    if (lines && lines.length > 0) return true;
  }
  return false;
}

/**
 * Pre-flight completion rule (docs/reference/contract.md §9): a passing report with at least one item whose passing items with a
 * resolved path inside a target repo are all clean in git.
 */
export async function preflightSatisfied(ctx: RunContext, prompt: Prompt, report: VerifyReport): Promise<boolean> {
  if (!report.pass || report.counts.items < 1) return false;
  const roots = ctx.reposFor(prompt).map((r) => r.path);
  for (const item of report.items) {
    const path = item.resolved_path;
    if (item.status !== "pass" || typeof path !== "string") continue;
    const root = roots.find((r) => path === r || path.startsWith(r.endsWith("/") ? r : `${r}/`));
    if (!root) continue;
    const lines = await porcelain(root, [path]);
    if (lines === null || lines.length > 0) return false;
  }
  return true;
}
