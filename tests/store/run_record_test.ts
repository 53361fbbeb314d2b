import assert from "node:assert/strict";
import { decideRun, openRunRecord, readCurrentRun, type RunRecord } from "../../src/store/run_record.ts";
import { isRunId } from "../../src/util/time.ts";
import { tempDir } from "../support/fs.ts";

function rec(state: RunRecord["state"], fp = "fp", ids = ["01", "02"]): RunRecord {
  return {
    schema: "prompt_runner.run/v1",
    run_id: "20261130T120501Z-7QK2MD",
    state,
    packet_fingerprint: fp,
    selection: { ids, selectors: {} },
    created_at: "x",
    updated_at: "x",
    resumed_at: [],
    reason: null,
  };
}

const base = { remaining: true, newRun: false, fingerprint: "fp", ids: ["02"] };

Deno.test("decideRun() resumes a failed, abandoned or dead running run under --remaining", () => {
  for (const s of ["failed", "abandoned", "running"] as const) {
    assert.deepEqual(decideRun({ ...base, previous: rec(s) }), { action: "resume", runId: rec(s).run_id });
  }
});

Deno.test("decideRun() never resumes completed runs, other selectors, or wider selections", () => {
  assert.equal(decideRun({ ...base, previous: rec("completed") }).action, "new");
  assert.equal(decideRun({ ...base, remaining: false, previous: rec("failed") }).action, "new");
  assert.equal(decideRun({ ...base, ids: ["03"], previous: rec("failed") }).action, "new");
  assert.equal(decideRun({ ...base, previous: null }).action, "new");
});

Deno.test("decideRun() reports a changed fingerprint and --new-run supersedes a resumable run", () => {
  assert.deepEqual(decideRun({ ...base, fingerprint: "other", previous: rec("failed") }), {
    action: "new",
    supersede: null,
    fingerprintChangedFrom: rec("failed").run_id,
  });
  assert.deepEqual(decideRun({ ...base, newRun: true, previous: rec("failed") }), {
    action: "new",
    supersede: rec("failed").run_id,
    fingerprintChangedFrom: null,
  });
  assert.equal(
    (decideRun({ ...base, newRun: true, previous: rec("completed") }) as { supersede: string | null })
      .supersede,
    null,
  );
});

Deno.test("openRunRecord() writes run.json and current.json, resumes with resumed_at, and prints the change notice", async () => {
  await using dir = await tempDir();
  const first = await openRunRecord(dir.path, { ...base, ids: ["01", "02"], selectors: {} });
  assert.ok(isRunId(first.runId));
  assert.equal(first.resumed, false);
  const current = JSON.parse(await Deno.readTextFile(`${dir.path}/runs/current.json`));
  assert.deepEqual(current, { run_id: first.runId, path: `runs/${first.runId}/run.json` });
  // Still "running" (its runner died): --remaining resumes it.
  const second = await openRunRecord(dir.path, { ...base, selectors: {} });
  assert.equal(second.runId, first.runId);
  assert.equal(second.resumed, true);
  assert.equal((await readCurrentRun(dir.path))?.resumed_at.length, 1);
  const third = await openRunRecord(dir.path, { ...base, fingerprint: "changed", selectors: {} });
  assert.notEqual(third.runId, first.runId);
  assert.equal(third.notice, `packet changed since run ${first.runId}; starting run ${third.runId}`);
  const fourth = await openRunRecord(dir.path, { ...base, fingerprint: "changed", newRun: true, selectors: {} });
  const superseded = JSON.parse(await Deno.readTextFile(`${dir.path}/runs/${third.runId}/run.json`));
  assert.equal(superseded.state, "superseded");
  assert.notEqual(fourth.runId, third.runId);
});
