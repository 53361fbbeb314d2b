/** Recovery budgets (docs/reference/runner.md §7): retry limits per class, retry delays with jitter, and per-run counts. */
import type { RecoveryOptions } from "../packet/mod.ts";

/** `retry_limit(class)`: the class entry, else `retry.max_attempts`, capped by the envelope's suggestion. */
export function retryLimit(recovery: RecoveryOptions, cls: string, suggestedMaxAttempts: number | null): number {
  const own = recovery.retry.class_attempts[cls];
  const limit = own ?? recovery.retry.max_attempts;
  return suggestedMaxAttempts === null ? limit : Math.min(limit, suggestedMaxAttempts);
}

/**
 * Delay before the k-th retry (k = retry_count + 1): `min(2^(k−1) · s, cap)` with `s` the suggested delay or the
 * base; with jitter and d > 0 a uniform integer in `[max(floor(d/2), 1), d]`. `random` returns a value in [0, 1).
 */
export function retryDelayMs(
  recovery: RecoveryOptions,
  k: number,
  suggestedDelayMs: number | null,
  random: () => number = Math.random,
): number {
  const base = Math.max(recovery.retry.base_delay_ms, 0);
  const cap = Math.max(recovery.retry.max_delay_ms, base);
  const s = suggestedDelayMs ?? base;
  const d = Math.min(2 ** Math.max(k - 1, 0) * s, cap);
  if (!recovery.retry.jitter || d <= 0) return d;
  const lo = Math.max(Math.floor(d / 2), 1);
  return lo + Math.floor(random() * (d - lo + 1));
}

/** Minimal attempt shape for counting. */
export interface CountableAttempt {
  run_id: string;
  mode: string;
}

/** Retry and repair counts for a prompt under one run id (budgets are per prompt per run id). */
export function modeCounts(attempts: readonly CountableAttempt[], runId: string): { retry: number; repair: number } {
  let retry = 0;
  let repair = 0;
  for (const a of attempts) {
    if (a.run_id !== runId) continue;
    if (a.mode === "retry") retry++;
    else if (a.mode === "repair") repair++;
  }
  return { retry, repair };
}

/** Minimal attempt shape for the crash-resume rule. */
export interface ResumableAttempt {
  run_id: string;
  attempt: number;
  status: string;
  session_id: string | null;
}

/**
 * Crash-resume rule (docs/reference/runner.md §4, attempt mode `resume`): when a run is being resumed, the prompt's last attempt
 * under that run id continues its provider session if it was `interrupted`, or left `running` by a dead runner,
 * and its session id is known. Returns that attempt, or null (the chain then starts with `run`).
 */
export function crashResumeTarget<T extends ResumableAttempt>(attempts: readonly T[], runId: string): T | null {
  let last: T | null = null;
  for (const a of attempts) if (a.run_id === runId) last = a;
  if (!last || (last.status !== "interrupted" && last.status !== "running")) return null;
  return typeof last.session_id === "string" && last.session_id !== "" ? last : null;
}

/** Format a delay for the retry line: `in 1.8s`, `in 0.0s`. */
export function formatDelay(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
