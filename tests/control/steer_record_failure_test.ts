/**
 * A delivered steer whose intervention record cannot be written is still on the record: its final `applied` log entry
 * is written, and the next plane open does not log it `rejected` (it was delivered).
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, reqName, testPlane } from "./_harness.ts";

/**
 * A plane that accepts one steer for prompt 01 and delivers it while `interventions/01.jsonl` is unusable (a directory
 * where the file goes), then closes with `status`; the directory is removed again (repaired before the next run).
 */
async function deliveredWithoutRecord(store: string, status: "completed" | "failed") {
  const { plane, hooks, paths } = await testPlane(store);
  plane.transition({ prompt_id: "01", attempt: 1 });
  const name = await dropRaw(store, reqName(), body("steer", { text: "keep it short" }));
  plane.boundary();
  await Deno.mkdir(paths.interventionsFile("01"), { recursive: true });
  plane.steersDelivered([hooks.accepted[0]!], {
    delivery: "interrupt_and_resume",
    prompt_id: "01",
    attempt: 1,
    lane: "simulated",
    session_id: null,
    interrupted: true,
  });
  await plane.close(status, status === "failed" ? "interrupted" : null);
  await Deno.remove(paths.interventionsFile("01"));
  return { name, paths };
}

Deno.test("a delivered steer keeps its final log entry when interventions/<prompt>.jsonl cannot be written", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { name, paths } = await deliveredWithoutRecord(store, "completed");
  const reopened = await testPlane(store, { runId: "20261201T000000Z-NEXTRN" });
  await reopened.plane.close("completed", null);
  const outcomes = (await lines(paths.log)).filter((e) => e.request === name).map((e) => e.outcome);
  assert.deepEqual(outcomes, ["accepted", "applied"], "delivered: one final entry, and it says applied");
});

Deno.test("a steer delivered without its intervention record still counts against the budget when the run resumes", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { paths } = await deliveredWithoutRecord(store, "failed");
  // The same run resumed (same run id): its budget is rebuilt, and the log-only delivery is in it.
  const resumed = await testPlane(store, { resumed: true, maxSteers: 1 });
  resumed.plane.transition({ prompt_id: "01", attempt: 2 });
  await resumed.plane.sync();
  assert.equal(JSON.parse(await Deno.readTextFile(resumed.paths.snapshot)).steer_count, 1);
  resumed.hooks.gate = { promptRunning: true, sessionLive: true };
  const over = await dropRaw(store, reqName(), body("steer", { text: "one more" }));
  resumed.plane.boundary();
  await resumed.plane.close("completed", null);
  const outcomes = (await lines(paths.log)).filter((e) => e.request === over).map((e) => e.outcome);
  assert.deepEqual(outcomes, ["rejected"], "the budget of 1 is spent");
});
