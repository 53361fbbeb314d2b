import assert from "node:assert/strict";
import {
  completedLine,
  faultBlock,
  keepGoingSummary,
  preflightCompletedLine,
  repairLine,
  retryLine,
  verificationReason,
} from "../../src/run/output.ts";

Deno.test("retryLine() and repairLine() use the exact docs/reference/runner.md §6 wording", () => {
  assert.equal(
    retryLine("03", "provider_capacity", 2, 1800),
    "Retrying prompt 03 after provider_capacity (attempt 2, in 1.8s)…",
  );
  assert.equal(retryLine("03", "unknown", 4, 0), "Retrying prompt 03 after unknown (attempt 4, in 0.0s)…");
  assert.equal(repairLine("03", 1, 2), "Repairing prompt 03 (repair 1 of 2)…");
  assert.equal(completedLine("03"), "✓ Prompt 03 completed");
  assert.equal(preflightCompletedLine("03"), "✓ Prompt 03 already satisfies its contract; no session was started");
});

Deno.test("faultBlock() renders the docs/reference/contract.md §8 stderr block with indented fault lines", () => {
  assert.deepEqual(
    faultBlock("03", ['verifier_fault exit=127 (command not found) cwd=/w command="bin/check.sh"']),
    [
      "error: the verifier could not run for prompt 03",
      '  verifier_fault exit=127 (command not found) cwd=/w command="bin/check.sh"',
      "  This is an infrastructure fault, not a failed check; no repair was attempted. Fix the command or its",
      "  environment, then run again with --remaining.",
    ],
  );
});

Deno.test("keepGoingSummary() and verificationReason() format the run's failure lines", () => {
  assert.deepEqual(keepGoingSummary([{ id: "02", reason: "boom" }, { id: "05", reason: "blocked by 02" }]), [
    "2 selected prompt(s) failed; all others were attempted:",
    "  02: boom",
    "  05: blocked by 02",
  ]);
  assert.equal(verificationReason("file_exists a: missing"), "verification failed: file_exists a: missing");
  assert.equal(verificationReason("verification failed: x"), "verification failed: x");
});
