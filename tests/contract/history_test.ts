import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { appendVerification, latestVerification, readVerifications, timingClass } from "../../src/contract/history.ts";
import type { VerifyReport } from "../../src/contract/types.ts";

function report(prompt: string, status: "pass" | "fail" | "fault", at: string): VerifyReport {
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: prompt,
    run_id: "R1",
    source: "manual",
    attempt: null,
    verified_at: at,
    status,
    pass: status === "pass",
    counts: {
      items: 1,
      passed: status === "pass" ? 1 : 0,
      failed: status === "fail" ? 1 : 0,
      faulted: status === "fault" ? 1 : 0,
    },
    items: [],
    failures: status === "fail" ? ["files_exist#1"] : [],
    faults: status === "fault" ? ["commands#1"] : [],
    amendments: [],
    contract_digest: "sha256:abc",
  };
}

Deno.test("appendVerification() writes one compact line per verification in the docs/reference/runner.md §10.2 format", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/store`;
  await appendVerification(store, report("03", "fail", "2026-11-30T12:00:00.000Z"));
  await appendVerification(store, report("04", "pass", "2026-11-30T12:01:00.000Z"));
  const text = await Deno.readTextFile(`${store}/verifications.jsonl`);
  const lines = text.split("\n");
  assert.equal(lines.length, 3);
  assert.equal(lines[2], "");
  assert.deepEqual(JSON.parse(lines[0]!), {
    at: "2026-11-30T12:00:00.000Z",
    run_id: "R1",
    prompt: "03",
    source: "manual",
    attempt: null,
    status: "fail",
    failures: ["files_exist#1"],
    faults: [],
    contract_digest: "sha256:abc",
  });
  assert.equal(await Deno.readTextFile(`${store}/.gitignore`), "*\n");
  assert.equal(((await Deno.stat(`${store}/verifications.jsonl`)).mode ?? 0) & 0o777, 0o600);
});

Deno.test("latestVerification() returns the prompt's last record and timingClass() classifies it", async () => {
  await using dir = await tempDir();
  assert.equal(await latestVerification(dir.path, "03"), null);
  assert.equal(timingClass(null), "pre_verify");
  await appendVerification(dir.path, report("03", "pass", "2026-11-30T12:00:00.000Z"));
  await appendVerification(dir.path, report("03", "fault", "2026-11-30T12:02:00.000Z"));
  await appendVerification(dir.path, report("04", "pass", "2026-11-30T12:03:00.000Z"));
  const latest = await latestVerification(dir.path, "03");
  assert.deepEqual(latest, { status: "fault", at: "2026-11-30T12:02:00.000Z" });
  assert.equal(timingClass(latest), "post_failure");
  assert.equal(timingClass({ status: "fail" }), "post_failure");
  assert.equal(timingClass(await latestVerification(dir.path, "04")), "post_success");
  assert.equal((await readVerifications(dir.path)).length, 3);
});
