import assert from "node:assert/strict";
import { crashResumeTarget, modeCounts, retryDelayMs, retryLimit } from "../../src/run/budgets.ts";
import { defaultRecovery } from "../../src/packet/recovery.ts";

Deno.test("retryLimit() uses class_attempts, else max_attempts, capped by suggested_max_attempts", () => {
  const r = defaultRecovery();
  assert.equal(retryLimit(r, "provider_capacity", null), 5);
  assert.equal(retryLimit(r, "not_a_listed_class", null), 3);
  assert.equal(retryLimit(r, "provider_capacity", 2), 2);
  r.retry.class_attempts.provider_capacity = 1;
  assert.equal(retryLimit(r, "provider_capacity", 4), 1);
});

Deno.test("retryDelayMs() doubles per retry up to the cap and prefers the suggested delay", () => {
  const r = defaultRecovery();
  r.retry.jitter = false;
  assert.equal(retryDelayMs(r, 1, null), 1000);
  assert.equal(retryDelayMs(r, 3, null), 4000);
  assert.equal(retryDelayMs(r, 10, null), 30000);
  assert.equal(retryDelayMs(r, 2, 2000), 4000);
  r.retry.base_delay_ms = -5;
  r.retry.max_delay_ms = 0;
  assert.equal(retryDelayMs(r, 1, null), 0);
});

Deno.test("retryDelayMs() with jitter draws a uniform integer in [max(floor(d/2),1), d]", () => {
  const r = defaultRecovery();
  assert.equal(retryDelayMs(r, 1, null, () => 0), 500);
  assert.equal(retryDelayMs(r, 1, null, () => 0.999999), 1000);
  r.retry.base_delay_ms = 1;
  assert.equal(retryDelayMs(r, 1, null, () => 0), 1);
  r.retry.base_delay_ms = 0;
  r.retry.max_delay_ms = 0;
  assert.equal(retryDelayMs(r, 1, null, () => 0.5), 0, "no jitter when d = 0");
});

Deno.test("modeCounts() counts retry and repair attempts of one run id only", () => {
  const attempts = [
    { run_id: "A", mode: "run" },
    { run_id: "A", mode: "retry" },
    { run_id: "B", mode: "retry" },
    { run_id: "A", mode: "repair" },
    { run_id: "A", mode: "retry" },
  ];
  assert.deepEqual(modeCounts(attempts, "A"), { retry: 2, repair: 1 });
  assert.deepEqual(modeCounts(attempts, "B"), { retry: 1, repair: 0 });
  assert.deepEqual(modeCounts(attempts, "C"), { retry: 0, repair: 0 });
});

Deno.test("crashResumeTarget() picks the last attempt of the run when interrupted or left running with a session", () => {
  const a = (run_id: string, attempt: number, status: string, session_id: string | null) => ({
    run_id,
    attempt,
    status,
    session_id,
  });
  assert.equal(crashResumeTarget([a("R", 1, "interrupted", "s1")], "R")?.attempt, 1);
  assert.equal(crashResumeTarget([a("R", 1, "failed", "s1"), a("R", 2, "running", "s2")], "R")?.session_id, "s2");
  // The last attempt of this run decides; other runs never count.
  assert.equal(crashResumeTarget([a("R", 1, "interrupted", "s1"), a("R", 2, "failed", "s2")], "R"), null);
  assert.equal(crashResumeTarget([a("R", 1, "interrupted", "s1"), a("Q", 1, "completed", "q")], "R")?.attempt, 1);
  assert.equal(crashResumeTarget([a("Q", 1, "interrupted", "s1")], "R"), null);
  // No known session id → no resume.
  assert.equal(crashResumeTarget([a("R", 1, "interrupted", null)], "R"), null);
  assert.equal(crashResumeTarget([a("R", 1, "running", "")], "R"), null);
  assert.equal(crashResumeTarget([a("R", 1, "completed", "s1")], "R"), null);
  assert.equal(crashResumeTarget([], "R"), null);
});
