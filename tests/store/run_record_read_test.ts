import assert from "node:assert/strict";
import { readCurrentRunRecord, resumeDecision, type RunRecord } from "../../src/store/run_record_read.ts";
import { tempDir, writeFiles } from "../support/fs.ts";

const record = (over: Partial<RunRecord> = {}): RunRecord => ({
  schema: "prompt_runner.run/v1",
  run_id: "20261130T120501Z-7QK2MD",
  state: "failed",
  packet_fingerprint: "fp",
  selection: { ids: ["01", "02", "03"], selectors: {} },
  created_at: "2026-11-30T12:05:01.000Z",
  updated_at: "2026-11-30T12:06:01.000Z",
  resumed_at: [],
  reason: null,
  ...over,
});

const base = { remaining: true, newRun: false, fingerprint: "fp", selectedIds: ["02", "03"], leaseLive: false };

Deno.test("resumeDecision() resumes a failed or abandoned run for --remaining with the same fingerprint", () => {
  for (const state of ["failed", "abandoned"] as const) {
    assert.deepEqual(resumeDecision({ ...base, record: record({ state }) }), {
      action: "resume",
      runId: "20261130T120501Z-7QK2MD",
      supersedes: null,
      changedSince: null,
    });
  }
});

Deno.test("resumeDecision() resumes a running record only when its lease is dead", () => {
  assert.equal(resumeDecision({ ...base, record: record({ state: "running" }) }).action, "resume");
  assert.equal(resumeDecision({ ...base, record: record({ state: "running" }), leaseLive: true }).action, "new");
});

Deno.test("resumeDecision() starts a new run otherwise", () => {
  assert.equal(resumeDecision({ ...base, record: null }).action, "new");
  assert.equal(resumeDecision({ ...base, record: record({ state: "completed" }) }).action, "new");
  assert.equal(resumeDecision({ ...base, remaining: false, record: record() }).action, "new");
  assert.equal(resumeDecision({ ...base, selectedIds: ["04"], record: record() }).action, "new");
  assert.deepEqual(
    resumeDecision({ ...base, fingerprint: "other", record: record() }).changedSince,
    "20261130T120501Z-7QK2MD",
  );
  assert.deepEqual(resumeDecision({ ...base, newRun: true, record: record() }).supersedes, "20261130T120501Z-7QK2MD");
});

Deno.test("readCurrentRunRecord() follows runs/current.json and tolerates missing or broken files", async () => {
  await using t = await tempDir();
  assert.equal(await readCurrentRunRecord(t.path), null);
  const id = "20261130T120501Z-7QK2MD";
  await writeFiles(t.path, {
    "runs/current.json": JSON.stringify({ run_id: id, path: `runs/${id}/run.json` }),
    [`runs/${id}/run.json`]: JSON.stringify(record({ state: "abandoned" })),
  });
  const r = await readCurrentRunRecord(t.path);
  assert.equal(r?.run_id, id);
  assert.equal(r?.state, "abandoned");
  assert.deepEqual(r?.selection.ids, ["01", "02", "03"]);
  await Deno.writeTextFile(`${t.path}/runs/${id}/run.json`, "{torn");
  assert.equal(await readCurrentRunRecord(t.path), null);
});
