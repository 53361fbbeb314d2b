import assert from "node:assert/strict";
import { modeCounts, retryDelayMs, retryLimit } from "../../src/run/budgets.ts";
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
