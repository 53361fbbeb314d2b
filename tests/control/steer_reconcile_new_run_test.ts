/**
 * A steer accepted by a runner that died before delivering it gets a final `rejected` entry when the next runner opens
 * — also when that runner is a plain `run` with a new run id, not only `run --remaining` (docs/reference/control-plane.md
 * §6.5): every request ends applied or refused on the record.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, reqName, RUN_ID, testPlane } from "./_harness.ts";

/**
 * A store whose runner accepted one steer (`hello`, prompt 01) and died before delivering it: its log says `accepted`
 * and nothing more (the close's own rejection is taken out again). Returns the request name and the log path.
 */
async function deadRunWithAcceptedSteer(store: string): Promise<{ name: string; log: string }> {
  const first = await testPlane(store);
  first.plane.transition({ prompt_id: "01", attempt: 1 });
  const name = await dropRaw(store, reqName(), body("steer", { text: "hello" }));
  first.plane.boundary();
  await first.plane.sync();
  await first.plane.close("failed", "x");
  const kept = (await Deno.readTextFile(first.paths.log)).split("\n").filter((l) => l && !l.includes('"rejected"'));
  await Deno.writeTextFile(first.paths.log, kept.join("\n") + "\n");
  return { name, log: first.paths.log };
}

Deno.test("a dead run's accepted steer is closed as rejected by the next run, whatever its run id", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { name, log } = await deadRunWithAcceptedSteer(store);
  assert.deepEqual((await lines(log)).filter((e) => e.request === name).map((e) => e.outcome), [
    "accepted",
  ]);
  // The next runner: a plain `run`, so a new run id.
  const next = await testPlane(store, { runId: "20261201T000000Z-BBBBBB" });
  await next.plane.close("completed", null);
  const entries = (await lines(log)).filter((e) => e.request === name);
  assert.deepEqual(entries.map((e) => [e.outcome, e.run_id]), [["accepted", RUN_ID], ["rejected", RUN_ID]]);
  assert.equal(entries[1]!.reason, "runner stopped before the steer was delivered");
});

Deno.test("a steer whose intervention record was written before its runner died is logged applied, not rejected", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  // The runner died between the steer's intervention record (written, fsync'd) and its `applied` log entry.
  const { name, log } = await deadRunWithAcceptedSteer(store);
  const at = "2026-12-01T00:00:01.000Z";
  await Deno.mkdir(`${store}/interventions`, { recursive: true });
  const record = {
    at,
    run_id: RUN_ID,
    prompt: "01",
    attempt: 1,
    author: "someone",
    text: "hello",
    lane: "simulated",
    delivery: "interrupt_and_resume",
    interrupted: true,
    batch: 1,
    request: name,
    accepted_at: at,
    session_id: null,
  };
  await Deno.writeTextFile(`${store}/interventions/01.jsonl`, JSON.stringify(record) + "\n");
  for (const runId of [RUN_ID, "20261201T000000Z-BBBBBB"]) {
    // Either resume (same run id) or a plain `run` (a new one) closes it the same way, once.
    const next = await testPlane(store, { runId });
    await next.plane.close("completed", null);
  }
  const entries = (await lines(log)).filter((e) => e.request === name);
  assert.deepEqual(entries.map((e) => [e.outcome, e.run_id, e.prompt_id, e.attempt]), [
    ["accepted", RUN_ID, "01", 1],
    ["applied", RUN_ID, "01", 1],
  ]);
  assert.match(String(entries[1]!.reason), new RegExp(`delivered at ${at.replace(/[.]/g, "\\.")}`));
  assert.deepEqual(entries[1]!.params, { text: "hello", delivery: "interrupt_and_resume" });
});
