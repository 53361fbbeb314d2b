import assert from "node:assert/strict";
import { decide, type DecisionInput } from "../../src/run/decide.ts";
import { classifyFailure, type FailureEnvelope, okEnvelope } from "../../src/run/classify.ts";
import { defaultRecovery } from "../../src/packet/recovery.ts";

function env(cls: string, over: Partial<FailureEnvelope> = {}): FailureEnvelope {
  return { ...classifyFailure({ code: cls, message: "m", hintClass: cls, recovery: null, stderrTail: "" }), ...over };
}

function input(over: Partial<DecisionInput>): DecisionInput {
  return {
    stream: "ok",
    report: { pass: true, items: 1 },
    envelope: okEnvelope(),
    retryCount: 0,
    repairCount: 0,
    retryLimit: 3,
    workspaceChanged: false,
    repair: defaultRecovery().repair,
    ...over,
  };
}

Deno.test("decide() ok + pass → complete", () => {
  assert.deepEqual(decide(input({})), { action: "complete", attemptStatus: "completed" });
});

Deno.test("decide() ok + fail with repair budget → repair (verification_failed)", () => {
  assert.deepEqual(decide(input({ report: { pass: false, items: 2 } })), {
    action: "repair",
    attemptStatus: "verification_failed",
  });
});

Deno.test("decide() ok + fail without repair budget, disabled repair or trigger off → fail (verification)", () => {
  const fail = { action: "fail_verification", attemptStatus: "verification_failed" };
  assert.deepEqual(decide(input({ report: { pass: false, items: 2 }, repairCount: 2 })), fail);
  const disabled = { ...defaultRecovery().repair, enabled: false };
  assert.deepEqual(decide(input({ report: { pass: false, items: 2 }, repair: disabled })), fail);
  const noTrigger = { ...defaultRecovery().repair, trigger_on_nominal_success_with_failed_verifier: false };
  assert.deepEqual(decide(input({ report: { pass: false, items: 2 }, repair: noTrigger })), fail);
});

Deno.test("decide() error + pass with items → complete (override), except terminal classes", () => {
  assert.deepEqual(decide(input({ stream: "error", envelope: env("provider_runtime_claim") })), {
    action: "complete_override",
    attemptStatus: "completed",
  });
  for (const cls of ["approval_denied", "user_cancelled", "guardrail_blocked"]) {
    assert.deepEqual(decide(input({ stream: "error", envelope: env(cls) })), {
      action: "fail_provider",
      attemptStatus: "failed",
    }, cls);
  }
});

Deno.test("decide() error + pass with 0 items → retry while budget remains, else fail", () => {
  const e = env("provider_capacity");
  assert.equal(decide(input({ stream: "error", envelope: e, report: { pass: true, items: 0 } })).action, "retry");
  assert.equal(
    decide(input({ stream: "error", envelope: e, report: { pass: true, items: 0 }, retryCount: 3 })).action,
    "fail_provider",
  );
});

Deno.test("decide() error + fail: retryable and not local → retry while retry_count < limit", () => {
  const e = env("provider_rate_limit");
  const base = { stream: "error" as const, envelope: e, report: { pass: false, items: 1 } };
  assert.deepEqual(decide(input({ ...base, retryCount: 2, retryLimit: 3 })), {
    action: "retry",
    attemptStatus: "failed",
  });
  assert.equal(decide(input({ ...base, retryCount: 3, retryLimit: 3 })).action, "fail_provider");
  const local = env("provider_rate_limit", { local_deterministic: true });
  assert.equal(decide(input({ ...base, envelope: local })).action, "fail_provider");
});

Deno.test("decide() error + fail after retry exhaustion with a changed workspace → repair (exhaustion trigger)", () => {
  const base = {
    stream: "error" as const,
    envelope: env("provider_runtime_claim"),
    report: { pass: false, items: 2 },
    retryCount: 1,
    retryLimit: 1,
    workspaceChanged: true,
  };
  assert.deepEqual(decide(input(base)), { action: "repair", attemptStatus: "failed" });
  const off = { ...defaultRecovery().repair, trigger_on_retry_exhaustion_with_workspace_changes: false };
  assert.equal(decide(input({ ...base, repair: off })).action, "fail_provider");
  assert.equal(decide(input({ ...base, workspaceChanged: false })).action, "fail_provider");
  assert.equal(decide(input({ ...base, repairCount: 2 })).action, "fail_provider");
});

Deno.test("decide() error + fail, not retryable but repairable with changes → repair (provider-failure trigger)", () => {
  const e = env("user_cancelled", { repairable: true });
  const base = { stream: "error" as const, envelope: e, report: { pass: false, items: 1 }, workspaceChanged: true };
  assert.equal(decide(input(base)).action, "repair");
  const off = { ...defaultRecovery().repair, trigger_on_provider_failure_with_workspace_changes: false };
  assert.equal(decide(input({ ...base, repair: off })).action, "fail_provider");
  assert.equal(decide(input({ ...base, envelope: env("user_cancelled") })).action, "fail_provider");
});

Deno.test("decide() interrupted → stop with status interrupted", () => {
  assert.deepEqual(decide(input({ stream: "interrupted", report: null })), {
    action: "stop",
    attemptStatus: "interrupted",
  });
});

Deno.test("decide() after an interrupt during verification: no retry or repair starts, a pass still completes", () => {
  const stop = (attemptStatus: string) => ({ action: "stop", attemptStatus });
  // would repair
  assert.deepEqual(
    decide(input({ report: { pass: false, items: 2 }, interrupted: true })),
    stop("verification_failed"),
  );
  // would retry
  const capacity = env("provider_capacity");
  assert.deepEqual(
    decide(input({ stream: "error", report: { pass: false, items: 2 }, envelope: capacity, interrupted: true })),
    stop("failed"),
  );
  // final decisions are unchanged
  assert.deepEqual(decide(input({ interrupted: true })), { action: "complete", attemptStatus: "completed" });
  assert.deepEqual(decide(input({ report: { pass: false, items: 2 }, repairCount: 2, interrupted: true })), {
    action: "fail_verification",
    attemptStatus: "verification_failed",
  });
});
