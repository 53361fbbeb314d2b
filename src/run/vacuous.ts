/**
 * Vacuous verdicts (docs/lint.md): a prompt whose enforced contract already passes on the tree at the start of its
 * first attempt — before any session ran — would "complete" on a check its session had no part in. The probe
 * evaluates the contract with the ordinary verifier (commands only under `--strict`), flags the prompt `vacuous`
 * (a warning line, the prompt result, the run summary) and, under `--strict`, fails it without starting a session.
 * Intended skips are never vacuous: a requested pre-flight completion, and (later) a passing agent-control
 * `completion_verify`.
 */
import type { Contract, VerifyReport } from "../contract/mod.ts";
import { enforcedContract } from "../contract/enforced.ts";
import { verifyContextFor } from "../contract/context.ts";
import { verifyIfPassing } from "../contract/verify.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import type { RunContext } from "./context.ts";
import { finish, type PromptOutcome } from "./prompt_result.ts";
import type { SteerDesk } from "./steering.ts";
import { traceStage } from "../util/stage_trace.ts";

/** When the vacuous rule does not apply, and how strictly it applies. */
export interface VacuousProbeOptions {
  /** Pre-flight completion was requested (`run --remaining` without ids, `--verify-first`): an intended skip. */
  preflightRequested: boolean;
  /**
   * An agent-control `completion_verify` passed for this prompt: an intended skip. Agent control does not exist yet;
   * callers pass false until it does.
   */
  completionVerifyPassed: boolean;
  /** `--strict`: commands are evaluated too, and a vacuous verdict fails the prompt. */
  strict: boolean;
}

/** The failure class and reason of a prompt failed as vacuous under `--strict`. */
const VACUOUS_CLASS = "vacuous_contract";

/** The warning line of a vacuous prompt. */
function vacuousLine(id: string): string {
  return `warning: prompt ${id}'s contract already passes before any session ran; its verdict is vacuous`;
}

/** The run summary line naming every vacuous prompt of the run. */
export function vacuousSummaryLine(ids: string[]): string {
  return `warning: vacuous verdicts in this run: ${ids.join(", ")} (their contracts passed before any session ran)`;
}

/** The contract the probe evaluates: without `commands` unless `strict` (pure). */
function probedContract(contract: Contract, strict: boolean): Contract | null {
  const hasCommands = (contract.commands ?? []).length > 0;
  // Unevaluated commands might fail: without --strict such a contract cannot be shown to pass already.
  if (hasCommands && !strict) return null;
  return contract;
}

/** Whether a probe report shows a vacuous contract: it passes with at least one item (pure). */
function isVacuous(report: VerifyReport): boolean {
  return report.pass && report.counts.items >= 1;
}

/** Options of {@link vacuousReport}. */
export interface VacuousCheckOptions {
  /** The run the probe belongs to (null outside a run, e.g. `packet preflight`). */
  runId: string | null;
  /** `--strict`: commands are evaluated too. */
  strict: boolean;
  /** Wraps the evaluation (the runner's control-plane boundaries); identity by default. */
  guard?: <T>(work: Promise<T>) => Promise<T>;
}

/**
 * The one vacuous evaluation, shared by the runner's probe and `packet preflight`: the prompt's enforced contract
 * (amendments folded) on the current tree, commands only under `strict`. Returns the passing report when the
 * contract is vacuous, null otherwise. Records nothing.
 */
export async function vacuousReport(
  packet: Packet,
  prompt: Prompt,
  storeRoot: string,
  opts: VacuousCheckOptions,
): Promise<VerifyReport | null> {
  const { contract, amendments } = await enforcedContract(prompt, storeRoot);
  const probed = probedContract(contract, opts.strict);
  if (probed === null) return null;
  const env: Record<string, string> = { PROMPT_RUNNER_PROMPT_ID: prompt.id, PROMPT_RUNNER_PACKET_DIR: packet.dir };
  if (opts.runId !== null) env.PROMPT_RUNNER_RUN_ID = opts.runId;
  const vctx = verifyContextFor(packet, prompt, storeRoot, {
    runId: opts.runId,
    source: "preflight",
    attempt: null,
    env,
  });
  // Only a passing report is of use: the evaluation stops at the first item that does not pass.
  const work = verifyIfPassing(probed, vctx, amendments);
  const report = await (opts.guard ? opts.guard(work) : work);
  return report !== null && isVacuous(report) ? report : null;
}

/** Whether the probe applies to a prompt's start at all (not an intended skip, not a later attempt). */
function probeApplies(ctx: RunContext, prompt: Prompt, opts: VacuousProbeOptions): boolean {
  if (opts.preflightRequested || opts.completionVerifyPassed || ctx.opts.repairFirst) return false;
  return !ctx.state.attempts(prompt.id).some((a) => a.run_id === ctx.runId); // not the first attempt
}

function probeReport(ctx: RunContext, prompt: Prompt, opts: VacuousProbeOptions): Promise<VerifyReport | null> {
  traceStage("vacuous_probe", prompt.id);
  return vacuousReport(ctx.packet, prompt, ctx.storeRoot, {
    runId: ctx.runId,
    strict: opts.strict,
    guard: (work) => ctx.withBoundaries(work),
  });
}

/**
 * The probe's evaluation started beside the prompt's baseline read (src/run/run_loop.ts), or null when it may not
 * be: the probe only reads the tree, as `git status` does, and records nothing — but under `--strict` it runs the
 * contract's commands, which may write into the repos the baseline is reading. The caller drops it when preserved
 * work was to be applied to the tree before the probe (then the probe runs after it, as {@link probeVacuous} does).
 */
export function probeAhead(
  ctx: RunContext,
  prompt: Prompt,
  opts: VacuousProbeOptions,
): Promise<VerifyReport | null> | null {
  if (opts.strict || !probeApplies(ctx, prompt, opts)) return null;
  const report = probeReport(ctx, prompt, opts);
  report.catch(() => {}); // dropped unused: no unhandled rejection
  return report;
}

/**
 * Probe one prompt before its first attempt; marks `ctx.vacuous`. Returns an outcome only when `--strict` fails the
 * prompt; otherwise the prompt runs as usual. The probe is not a verification of work: it is not recorded in the
 * verification history (so amendment timing classes do not see it). `ahead`: its evaluation, started beside the
 * baseline read ({@link probeAhead}) on the same tree.
 */
export async function probeVacuous(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  opts: VacuousProbeOptions,
  ahead: Promise<VerifyReport | null> | null = null,
): Promise<PromptOutcome | null> {
  if (!probeApplies(ctx, prompt, opts)) return null;
  const report = await (ahead ?? probeReport(ctx, prompt, opts));
  if (report === null) return null;
  ctx.vacuous.add(prompt.id);
  ctx.err(vacuousLine(prompt.id));
  if (!opts.strict) return null;
  const reason = "vacuous contract: it already passes before any session ran (--strict)";
  await ctx.appendProgress(prompt.id, "failed", null);
  await finish(ctx, desk, prompt, {
    status: "failed",
    source: "session",
    session_ran: false,
    attempts: 0,
    commit: null,
    failure_class: VACUOUS_CLASS,
    reason,
    last_verifier: report,
  }, "fail");
  ctx.err(`error: prompt ${prompt.id}: ${reason}`);
  return {
    id: prompt.id,
    status: "failed",
    reason,
    failureClass: VACUOUS_CLASS,
    attempts: 0,
    commit: null,
    halt: false,
  };
}
