/**
 * The decisions of the prompt loop (docs/reference/runner.md §1, §7): prompt order, dependency blocking, which steps run before a
 * prompt's first session, what the loop does after each prompt, and the run's verdict and exit code. Pure: every
 * input is a plain value, so every row is unit-tested without processes or files (like src/run/decide.ts); the
 * drivers in src/run/run_loop.ts and src/run/runner.ts only perform the effects.
 */
import { INTERRUPTED_EXIT } from "./interrupts.ts";
import type { PromptStatus } from "./state.ts";

/**
 * Prompt order: the prompt whose leftovers crash recovery found goes first, continuing its attempt; then the selected
 * prompts whose commit failed (`claiming`, in their order), which commit their verified work before any other
 * prompt can touch it; then the rest in order.
 */
export function runOrder<T extends { id: string }>(
  prompts: readonly T[],
  first: T | undefined,
  claiming: readonly T[] = [],
): T[] {
  const head = [...(first ? [first] : []), ...claiming.filter((p) => p.id !== first?.id)];
  const ids = new Set(head.map((p) => p.id));
  return [...head, ...prompts.filter((p) => !ids.has(p.id))];
}

/** The dependencies of a prompt completed neither earlier in this run nor in progress.log, in declared order. */
export function blockersOf(
  dependsOn: readonly string[],
  completedThisRun: ReadonlySet<string>,
  progressStatus: (id: string) => string | undefined,
): string[] {
  return dependsOn.filter((d) => !completedThisRun.has(d) && progressStatus(d) !== "completed");
}

/** Facts that decide the steps before a prompt's first session. */
export interface PromptEntryInput {
  /** Verify-first is on (`--verify-first`, or `--remaining` without ids by default). */
  preflightOn: boolean;
  /** The `repair` command: the first attempt is a repair. */
  repairFirst: boolean;
  /** The prompt continues an interrupted attempt's leftovers, or claims the work its failed commit left. */
  recovering: boolean;
  /** The prompt's preserved work was applied before it. */
  restored: boolean;
}

/** Which steps run before a prompt's attempt chain (each only while no earlier step produced an outcome). */
export interface PromptEntry {
  /** Verify first: a passing contract completes the prompt without a session. */
  preflight: boolean;
  /**
   * Probe for a vacuous verdict. A recovered prompt's leftovers and restored preserved work are its own partial
   * progress, not a contract passing before any session.
   */
  probeVacuous: boolean;
}

/** The steps before a prompt's attempt chain. */
export function promptEntry(input: PromptEntryInput): PromptEntry {
  return {
    preflight: input.preflightOn && !input.repairFirst && !input.recovering,
    probeVacuous: !input.recovering && !input.restored,
  };
}

/** The part of a prompt's outcome the loop decides on. */
export interface LoopOutcome {
  id: string;
  status: PromptStatus;
  reason: string | null;
  halt: boolean;
}

/** What the loop does after a prompt: the failure it notes (if any) and, when it stops, why. */
export interface AfterPrompt {
  failed: { id: string; reason: string } | null;
  /** The halt reason, or null to go on with the next prompt. */
  halt: string | null;
}

/** After a prompt (blocked or run): note its failure, then stop on a halt or without `--keep-going`. */
export function afterPrompt(outcome: LoopOutcome, keepGoing: boolean): AfterPrompt {
  if (outcome.status === "completed") return { failed: null, halt: null };
  const reason = outcome.reason ?? outcome.status;
  const failed = { id: outcome.id, reason };
  if (outcome.status === "blocked_by_dependency") {
    return { failed, halt: keepGoing ? null : `prompt ${outcome.id} ${reason}` };
  }
  if (outcome.halt) return { failed, halt: outcome.status === "interrupted" ? "interrupted" : reason };
  if (keepGoing) return { failed, halt: null };
  return { failed, halt: `prompt ${outcome.id}: ${outcome.reason ?? outcome.status.replaceAll("_", " ")}` };
}

/** How a run closes. */
export interface RunVerdict {
  ok: boolean;
  /** The run's failure reason (null when ok). */
  reason: string | null;
  /** Print the keep-going summary (every failed prompt, then the preserved work). */
  keepGoingSummary: boolean;
}

/** The verdict of a run from its failed prompts and its halt reason. */
export function runVerdict(failedCount: number, haltReason: string | null, keepGoing: boolean): RunVerdict {
  if (failedCount === 0 && haltReason === null) return { ok: true, reason: null, keepGoingSummary: false };
  const counted = `${failedCount} selected prompt(s) failed`;
  if (keepGoing && haltReason === null) return { ok: false, reason: counted, keepGoingSummary: true };
  return { ok: false, reason: haltReason ?? counted, keepGoingSummary: false };
}

/** The exit code of a run (docs/reference/cli.md §3.1): 0, 130 after an interrupt, else 1. */
export function runExitCode(ok: boolean, interrupted: boolean, haltReason: string | null): number {
  if (ok) return 0;
  return interrupted || haltReason === "interrupted" ? INTERRUPTED_EXIT : 1;
}
