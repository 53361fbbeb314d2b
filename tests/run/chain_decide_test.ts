import assert from "node:assert/strict";
import {
  type AttemptPlan,
  type FirstAttemptInput,
  judgeAttempt,
  type JudgeInput,
  lastReport,
  nextAttempt,
  planFirstAttempt,
  sessionResult,
} from "../../src/run/chain_decide.ts";
import { CONTINUE_PROMPT } from "../../src/run/attempt.ts";
import { classifyFailure, type FailureEnvelope, okEnvelope } from "../../src/run/classify.ts";
import { repairPrompt } from "../../src/run/repair_prompt.ts";
import { reportSummary } from "../../src/contract/report.ts";
import { defaultRecovery } from "../../src/packet/recovery.ts";
import type { VerifyReport } from "../../src/contract/types.ts";
import type { AttemptRecord } from "../../src/run/state.ts";

const RUN = "20261201T100000Z-AAAAAA";
const OLD = "20261130T100000Z-BBBBBB";

function report(pass: boolean, id = "files_exist#1"): VerifyReport {
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: "02",
    run_id: RUN,
    source: "attempt",
    attempt: 1,
    verified_at: "2026-12-01T10:00:00.000Z",
    status: pass ? "pass" : "fail",
    pass,
    counts: { items: 1, passed: pass ? 1 : 0, failed: pass ? 0 : 1, faulted: 0 },
    items: [{
      id,
      clause: "files_exist",
      kind: "file_exists",
      repo: "app",
      status: pass ? "pass" : "fail",
      pass,
      fault: null,
      details: pass ? "ok" : "missing",
    }],
    failures: pass ? [] : [id],
    faults: [],
    amendments: [],
    contract_digest: "sha256:x",
  };
}

function att(over: Partial<AttemptRecord>): AttemptRecord {
  return {
    run_id: RUN,
    attempt: 1,
    mode: "run",
    status: "failed",
    started_at: "2026-12-01T10:00:00.000Z",
    provider: "simulated",
    model: null,
    session_id: null,
    streams: [],
    log_file: null,
    events_file: null,
    ...over,
  };
}

function first(over: Partial<FirstAttemptInput>): FirstAttemptInput {
  return {
    promptId: "02",
    body: "BODY",
    attempts: [],
    runId: RUN,
    repairFirst: false,
    restored: false,
    resumed: false,
    repairMax: 2,
    recover: null,
    ...over,
  };
}

const fresh = { mode: "run", body: "BODY", resumeSession: null, continueFrom: null, stale: null };

Deno.test("planFirstAttempt(): a fresh prompt runs its body as attempt 1; numbering goes on within the run id only", () => {
  assert.deepEqual(planFirstAttempt(first({})), { attemptNo: 1, ...fresh });
  const attempts = [att({ run_id: OLD, attempt: 7 }), att({ attempt: 1 }), att({ attempt: 3 })];
  assert.deepEqual(planFirstAttempt(first({ attempts })), { attemptNo: 4, ...fresh });
  assert.deepEqual(planFirstAttempt(first({ attempts: [att({ run_id: OLD, attempt: 7 })] })).attemptNo, 1);
});

Deno.test("planFirstAttempt(): `repair` and restored work with a last verification start with a repair prompt", () => {
  const failed = report(false);
  const attempts = [att({ verification: failed }), att({ attempt: 2, mode: "repair" })];
  const repair = repairPrompt({ body: "BODY", pass: 2, max: 2, lastError: reportSummary(failed), report: failed });
  const want = { attemptNo: 3, mode: "repair", body: repair, resumeSession: null, continueFrom: null, stale: null };
  assert.deepEqual(planFirstAttempt(first({ attempts, repairFirst: true })), want);
  assert.deepEqual(planFirstAttempt(first({ attempts, restored: true })), want);
  // Restored work without a recorded verification, or with repairs off, runs the body.
  assert.deepEqual(planFirstAttempt(first({ restored: true })), { attemptNo: 1, ...fresh });
  assert.deepEqual(planFirstAttempt(first({ attempts, restored: true, repairMax: 0 })), { attemptNo: 3, ...fresh });
  // `repair` with nothing recorded: a repair pass 1 without an error.
  const bare = repairPrompt({ body: "BODY", pass: 1, max: 2, lastError: null, report: null });
  assert.deepEqual(planFirstAttempt(first({ repairFirst: true })).body, bare);
});

Deno.test("planFirstAttempt(): a resumed run continues its last open attempt; with a session id the continuation prompt", () => {
  for (const status of ["running", "interrupted"] as const) {
    const attempts = [att({ attempt: 1, status, session_id: "sess-1" })];
    assert.deepEqual(planFirstAttempt(first({ attempts, resumed: true })), {
      attemptNo: 2,
      mode: "resume",
      body: CONTINUE_PROMPT,
      resumeSession: "sess-1",
      continueFrom: { runId: RUN, attempt: 1 },
      stale: { runId: RUN, attempt: 1 },
    });
    // Without a session id the attempt starts over with the prompt's body.
    const noSession = planFirstAttempt(first({ attempts: [att({ status })], resumed: true }));
    assert.equal(noSession.body, "BODY");
    assert.equal(noSession.mode, "resume");
    assert.equal(noSession.resumeSession, null);
  }
  // A resumed run whose last attempt ended, or a run that was not resumed, starts normally.
  assert.deepEqual(planFirstAttempt(first({ attempts: [att({ status: "failed" })], resumed: true })), {
    attemptNo: 2,
    ...fresh,
  });
  assert.deepEqual(planFirstAttempt(first({ attempts: [att({ status: "running" })] })), { attemptNo: 2, ...fresh });
  // A repair first never crash-resumes by itself.
  assert.equal(
    planFirstAttempt(first({ attempts: [att({ status: "running" })], resumed: true, repairFirst: true })).mode,
    "repair",
  );
});

Deno.test("planFirstAttempt(): recovery's leftovers resume in any run; only an open stale attempt is closed", () => {
  const recover = { promptId: "02", runId: OLD, attempt: 4, sessionId: null, startedAt: "2026-11-30T10:00:00.000Z" };
  const plan = planFirstAttempt(
    first({ recover, repairFirst: true, attempts: [att({ run_id: OLD, attempt: 4, status: "running" })] }),
  );
  assert.deepEqual(plan, {
    attemptNo: 1,
    mode: "resume",
    body: "BODY",
    resumeSession: null,
    continueFrom: { runId: OLD, attempt: 4 },
    stale: { runId: OLD, attempt: 4 },
  });
  const closed = planFirstAttempt(first({ recover, attempts: [att({ run_id: OLD, attempt: 4, status: "failed" })] }));
  assert.equal(closed.stale, null);
  assert.equal(planFirstAttempt(first({ recover })).stale, null, "no record of the recovered attempt");
});

Deno.test("lastReport(): the newest recorded verification of any run", () => {
  const a = report(false, "a#1");
  const b = report(true, "b#1");
  assert.equal(lastReport([]), null);
  assert.equal(lastReport([att({ verification: a }), att({ verification: b }), att({})]), b);
  assert.equal(lastReport([att({ verification: a }), att({ verification: null })]), a);
});

function env(cls: string, over: Partial<FailureEnvelope> = {}): FailureEnvelope {
  return { ...classifyFailure({ code: cls, message: "m", hintClass: cls, recovery: null, stderrTail: "" }), ...over };
}

function judge(over: Partial<JudgeInput>): JudgeInput {
  return {
    stream: "ok",
    report: { pass: true, items: 1 },
    envelope: okEnvelope(),
    attempts: [att({})],
    runId: RUN,
    recovery: defaultRecovery(),
    workspaceChanged: false,
    random: () => 0,
    ...over,
  };
}

Deno.test("judgeAttempt(): the decision table with this run's counts; no delay unless retrying", () => {
  assert.deepEqual(judgeAttempt(judge({})), {
    decision: { action: "complete", attemptStatus: "completed" },
    counts: { retry: 0, repair: 0 },
    delay: 0,
  });
  const attempts = [att({ run_id: OLD, mode: "repair" }), att({ mode: "repair" }), att({ attempt: 2, mode: "repair" })];
  assert.deepEqual(judgeAttempt(judge({ report: { pass: false, items: 1 }, attempts })), {
    decision: { action: "fail_verification", attemptStatus: "verification_failed" },
    counts: { retry: 0, repair: 2 },
    delay: 0,
  });
});

Deno.test("judgeAttempt(): a retry gets the k-th backoff delay with jitter, within the class limit", () => {
  const recovery = defaultRecovery();
  const transient = env("provider_overloaded", {
    retryable: true,
    local_deterministic: false,
    suggested_delay_ms: null,
  });
  const input = judge({ stream: "error", report: { pass: false, items: 1 }, envelope: transient, recovery });
  const r0 = judgeAttempt({ ...input, random: () => 0 });
  assert.equal(r0.decision.action, "retry");
  assert.equal(r0.delay, 500, "first retry: jitter low end of 1000 ms");
  const r1 = judgeAttempt({
    ...input,
    attempts: [att({}), att({ attempt: 2, mode: "retry" })],
    random: () => 1 - 1e-9,
  });
  assert.equal(r1.decision.action, "retry");
  assert.deepEqual(r1.counts, { retry: 1, repair: 0 });
  assert.equal(r1.delay, 2000, "second retry: jitter high end of 2000 ms");
  const limited = judgeAttempt({ ...input, envelope: { ...transient, suggested_max_attempts: 0 } });
  assert.equal(limited.decision.action, "fail_provider");
  assert.equal(limited.delay, 0);
});

Deno.test("nextAttempt(): the next number and mode with a fresh body; never a session resume", () => {
  const cur: AttemptPlan = {
    attemptNo: 2,
    mode: "resume",
    body: CONTINUE_PROMPT,
    resumeSession: "s",
    continueFrom: { runId: OLD, attempt: 1 },
  };
  assert.deepEqual(nextAttempt(cur, "retry", "BODY"), {
    attemptNo: 3,
    mode: "retry",
    body: "BODY",
    resumeSession: null,
    continueFrom: null,
  });
  assert.deepEqual(nextAttempt(cur, "repair", "REPAIR").mode, "repair");
  assert.deepEqual(nextAttempt(cur, "repair", "REPAIR").body, "REPAIR");
});

Deno.test("sessionResult(): a session-sourced result carrying the given facts", () => {
  const r = report(true);
  assert.deepEqual(
    sessionResult("completed", {
      attempts: 2,
      commit: { status: "ok" },
      failureClass: null,
      reason: null,
      lastVerifier: r,
    }),
    {
      status: "completed",
      source: "session",
      session_ran: true,
      attempts: 2,
      commit: { status: "ok" },
      failure_class: null,
      reason: null,
      last_verifier: r,
    },
  );
});

Deno.test("planFirstAttempt(): continuing a crash-recovery attempt names the attempts it continued, nearest first", () => {
  // Run OLD's attempt 3 was killed; the recovery attempt 1 of RUN continued it and was killed too (before its
  // session wrote anything), then RUN's attempt 2 continued that one and was killed as well.
  const attempts = [
    att({ run_id: OLD, attempt: 2, status: "failed" }),
    att({ run_id: OLD, attempt: 3, status: "interrupted" }),
    att({ attempt: 1, status: "interrupted", mode: "resume" }),
    att({ attempt: 2, status: "running", mode: "resume" }),
  ];
  const plan = planFirstAttempt(first({ attempts, resumed: true }));
  assert.equal(plan.mode, "resume");
  assert.deepEqual(plan.continueFrom, {
    runId: RUN,
    attempt: 2,
    origins: [{ runId: RUN, attempt: 1 }, { runId: OLD, attempt: 3 }],
  });
  // A continued attempt that was not itself a continuation has no origins.
  const single = planFirstAttempt(first({ attempts: attempts.slice(0, 2), recover: recoverOf(OLD, 3) }));
  assert.deepEqual(single.continueFrom, { runId: OLD, attempt: 3 });
});

function recoverOf(runId: string, attempt: number) {
  return { promptId: "02", runId, attempt, sessionId: null, startedAt: "2026-11-30T10:00:00.000Z" };
}
