/**
 * The decision table applied after each attempt (docs/reference/runner.md §6). Pure: every input is a plain value, so every row is
 * unit-tested without processes or files.
 */
import type { RecoveryOptions } from "../packet/mod.ts";
import type { FailureEnvelope } from "./classify.ts";

/** What the runner does next. */
export type DecisionAction =
  | "complete"
  | "complete_override"
  | "retry"
  | "repair"
  | "fail_verification"
  | "fail_provider"
  | "stop";

/** Attempt statuses a decision assigns (docs/reference/runner.md §10.2). */
export type DecidedAttemptStatus = "completed" | "verification_failed" | "failed" | "interrupted";

/** A decision with the attempt status it implies. */
export interface Decision {
  action: DecisionAction;
  attemptStatus: DecidedAttemptStatus;
}

/** Inputs of the decision table. */
export interface DecisionInput {
  /** `ok`, `error` (any failed stream), or `interrupted` (operator stop). */
  stream: "ok" | "error" | "interrupted";
  /** Verification outcome (faults never reach the table: they halt first). */
  report: { pass: boolean; items: number } | null;
  envelope: FailureEnvelope;
  /** Attempts with mode retry / repair for this prompt under the current run id, including the current one. */
  retryCount: number;
  repairCount: number;
  retryLimit: number;
  workspaceChanged: boolean;
  repair: RecoveryOptions["repair"];
  /**
   * The operator interrupted the run after the stream ended (during verification): no new attempt starts, so a retry
   * or repair becomes `stop` (the attempt keeps the status its verdict gives it). Absent → false.
   */
  interrupted?: boolean;
}

/** Classes whose error is never overridden by a passing contract. */
const NO_OVERRIDE = new Set(["approval_denied", "user_cancelled", "guardrail_blocked"]);

/** Apply the decision table of docs/reference/runner.md §6. */
export function decide(input: DecisionInput): Decision {
  if (input.stream === "interrupted") return { action: "stop", attemptStatus: "interrupted" };
  const d = table(input);
  if (input.interrupted && (d.action === "retry" || d.action === "repair")) {
    return { action: "stop", attemptStatus: d.attemptStatus };
  }
  return d;
}

function table(input: DecisionInput): Decision {
  const pass = input.report?.pass ?? false;
  const items = input.report?.items ?? 0;
  const { repair } = input;
  const repairLeft = repair.enabled && input.repairCount < repair.max_attempts;
  if (input.stream === "ok") {
    if (pass) return { action: "complete", attemptStatus: "completed" };
    if (repairLeft && repair.trigger_on_nominal_success_with_failed_verifier) {
      return { action: "repair", attemptStatus: "verification_failed" };
    }
    return { action: "fail_verification", attemptStatus: "verification_failed" };
  }
  const env = input.envelope;
  if (pass && items >= 1 && !NO_OVERRIDE.has(env.class)) {
    return { action: "complete_override", attemptStatus: "completed" };
  }
  const retryableHere = env.retryable && !env.local_deterministic;
  const retriesLeft = retryableHere && input.retryCount < input.retryLimit;
  if (pass && items === 0) {
    return retriesLeft
      ? { action: "retry", attemptStatus: "failed" }
      : { action: "fail_provider", attemptStatus: "failed" };
  }
  if (!pass) {
    if (retriesLeft) return { action: "retry", attemptStatus: "failed" };
    const exhausted = retryableHere && input.retryCount >= input.retryLimit;
    const trigger = exhausted
      ? repair.trigger_on_retry_exhaustion_with_workspace_changes
      : repair.trigger_on_provider_failure_with_workspace_changes;
    if (env.repairable && input.workspaceChanged && repairLeft && trigger) {
      return { action: "repair", attemptStatus: "failed" };
    }
  }
  return { action: "fail_provider", attemptStatus: "failed" };
}
