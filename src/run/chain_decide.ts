/**
 * The decisions of a prompt's attempt chain (docs/reference/runner.md §4, §6): how the first attempt starts (run, repair, or a
 * crash resume of an interrupted attempt), how an attempt is judged (the decision table of src/run/decide.ts with
 * its budgets and retry delay), and what the next attempt is. Pure: every input is a plain value, so every row is
 * unit-tested without processes or files; the driver in src/run/prompt_chain.ts only performs the effects.
 */
import { reportSummary } from "../contract/report.ts";
import type { VerifyReport } from "../contract/mod.ts";
import type { AttemptMode } from "../events/mod.ts";
import type { RecoveryOptions } from "../packet/mod.ts";
import { CONTINUE_PROMPT, type ContinueFrom } from "./attempt.ts";
import { modeCounts, retryDelayMs, retryLimit } from "./budgets.ts";
import type { FailureEnvelope } from "./classify.ts";
import { type RecoveryTarget, resumedTarget } from "./crash_recovery.ts";
import { decide, type Decision } from "./decide.ts";
import { repairPrompt } from "./repair_prompt.ts";
import type { AttemptRecord, CommitRecord, PromptResult, PromptStatus } from "./state.ts";

/** How one attempt starts. */
export interface AttemptPlan {
  attemptNo: number;
  mode: AttemptMode;
  /** The prompt text of the attempt's first stream. */
  body: string;
  /** Crash resume: the provider session to continue with {@link CONTINUE_PROMPT}. */
  resumeSession: string | null;
  /** Crash recovery: the interrupted attempt whose work this attempt continues. */
  continueFrom: ContinueFrom | null;
}

/** The first attempt, plus the stale attempt (left `running` or `interrupted` by a dead runner) to close first. */
export interface FirstAttempt extends AttemptPlan {
  stale: { runId: string; attempt: number } | null;
}

/** Facts that decide a prompt's first attempt in this run. */
export interface FirstAttemptInput {
  promptId: string;
  /** The prompt's own body. */
  body: string;
  /** Every recorded attempt of the prompt (all runs), oldest first. */
  attempts: readonly AttemptRecord[];
  runId: string;
  /** The `repair` command. */
  repairFirst: boolean;
  /** The prompt's preserved partial progress was applied before it. */
  restored: boolean;
  /** The run id was resumed (`run --remaining`). */
  resumed: boolean;
  /** `recovery.repair.max_attempts`. */
  repairMax: number;
  /** The interrupted attempt whose leftovers this prompt continues (crash recovery), or null. */
  recover: RecoveryTarget | null;
}

/** The last recorded verification among attempts (any run), or null. */
export function lastReport(attempts: readonly AttemptRecord[]): VerifyReport | null {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const v = attempts[i]!.verification;
    if (v) return v;
  }
  return null;
}

/**
 * The first attempt: numbered after this run's earlier attempts of the prompt; a repair of the last verification
 * for `repair` and for restored partial work; a crash resume (docs/reference/runner.md §4, docs/crash_recovery.md) when a resumed
 * run finds its dead or stopped runner's attempt, or when recovery hands over an interrupted attempt's leftovers.
 */
export function planFirstAttempt(input: FirstAttemptInput): FirstAttempt {
  const prior = input.attempts.filter((a) => a.run_id === input.runId);
  const attemptNo = prior.reduce((m, a) => Math.max(m, a.attempt), 0) + 1;
  const last = lastReport(input.attempts);
  const repairRestored = input.restored && input.repairMax > 0 && last !== null;
  const mode: AttemptMode = input.repairFirst || repairRestored ? "repair" : "run";
  let body = input.body;
  if (mode === "repair") {
    body = repairPrompt({
      body: input.body,
      pass: modeCounts(input.attempts, input.runId).repair + 1,
      max: input.repairMax,
      lastError: last ? reportSummary(last) : null,
      report: last,
    });
  }
  const crashed = input.recover ??
    (mode === "run" && input.resumed ? resumedTarget(input.promptId, prior, input.runId) : null);
  if (!crashed) return { attemptNo, mode, body, resumeSession: null, continueFrom: null, stale: null };
  const at = input.attempts.findIndex((a) => a.run_id === crashed.runId && a.attempt === crashed.attempt);
  const stale = at >= 0 ? input.attempts[at] : undefined;
  const open = stale !== undefined && (stale.status === "running" || stale.status === "interrupted");
  // A crash-recovery attempt (mode `resume`) continued the attempt recorded just before it, and so on back.
  const origins: { runId: string; attempt: number }[] = [];
  for (let i = at; i > 0 && input.attempts[i]!.mode === "resume"; i--) {
    origins.push({ runId: input.attempts[i - 1]!.run_id, attempt: input.attempts[i - 1]!.attempt });
  }
  return {
    attemptNo,
    mode: "resume",
    body: crashed.sessionId ? CONTINUE_PROMPT : input.body,
    resumeSession: crashed.sessionId,
    continueFrom: { runId: crashed.runId, attempt: crashed.attempt, ...(origins.length ? { origins } : {}) },
    stale: open ? { runId: crashed.runId, attempt: crashed.attempt } : null,
  };
}

/** Facts that judge a finished, verified attempt. */
export interface JudgeInput {
  stream: "ok" | "error";
  report: { pass: boolean; items: number };
  envelope: FailureEnvelope;
  /** Every recorded attempt of the prompt, including the current one. */
  attempts: readonly AttemptRecord[];
  runId: string;
  recovery: RecoveryOptions;
  workspaceChanged: boolean;
  /** Random source for retry jitter. */
  random: () => number;
  /** The run was interrupted after the stream ended: no retry or repair starts (decide.ts). */
  interrupted?: boolean;
}

/** The decision on an attempt, with this run's retry/repair counts and the retry delay (0 unless retrying). */
export interface Judgement {
  decision: Decision;
  counts: { retry: number; repair: number };
  delay: number;
}

/** Judge an attempt: the decision table within the run's budgets, and the delay of a retry. */
export function judgeAttempt(input: JudgeInput): Judgement {
  const env = input.envelope;
  const counts = modeCounts(input.attempts, input.runId);
  const decision = decide({
    stream: input.stream,
    report: input.report,
    envelope: env,
    retryCount: counts.retry,
    repairCount: counts.repair,
    retryLimit: retryLimit(input.recovery, env.class, env.suggested_max_attempts),
    workspaceChanged: input.workspaceChanged,
    repair: input.recovery.repair,
    interrupted: input.interrupted === true,
  });
  const delay = decision.action === "retry"
    ? retryDelayMs(input.recovery, counts.retry + 1, env.suggested_delay_ms, input.random)
    : 0;
  return { decision, counts, delay };
}

/**
 * The attempt after a retry (the prompt's own body again), a repair (the repair prompt), or — agent control — a new
 * iteration (`run`: a fresh session with the prompt's own body).
 */
export function nextAttempt(current: AttemptPlan, mode: "retry" | "repair" | "run", body: string): AttemptPlan {
  return { attemptNo: current.attemptNo + 1, mode, body, resumeSession: null, continueFrom: null };
}

/** The final result of a prompt whose session ran (without the run id, time and flags `finish` adds). */
export function sessionResult(
  status: PromptStatus,
  facts: {
    attempts: number;
    commit: CommitRecord | null;
    failureClass: string | null;
    reason: string | null;
    lastVerifier: VerifyReport | null;
  },
): Omit<PromptResult, "steered" | "amended" | "run_id" | "finished_at"> {
  return {
    status,
    source: "session",
    session_ran: true,
    attempts: facts.attempts,
    commit: facts.commit,
    failure_class: facts.failureClass,
    reason: facts.reason,
    last_verifier: facts.lastVerifier,
  };
}
