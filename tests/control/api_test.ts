import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { ControlError, currentRun, log, outcome, setView, snapshot, steer } from "../../src/control/mod.ts";
import { acquireLease } from "../../src/store/lease.ts";

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ControlError) return e.code;
    throw e;
  }
  return "ok";
}

Deno.test("snapshot() reads totally: defaults, unknown enums, view fallbacks, derived abandoned", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(`${tmp.path}/control`);
  await Deno.writeTextFile(
    `${tmp.path}/control/snapshot.json`,
    JSON.stringify({ run_id: RUN_ID, status: "exploded", mode: "weird", view: { diff: "full", log_mode: 3 } }),
  );
  const ref = await currentRun({ kind: "state", stateRoot: tmp.path });
  assert.equal(ref.runId, RUN_ID);
  const s = await snapshot(ref);
  assert.equal(s.status, "unknown");
  assert.equal(s.mode, null);
  assert.equal(s.tool_count, 0);
  assert.deepEqual(s.view, { log_mode: "compact", tool_output: "summary", thinking: "show", diff: "full" });
  assert.equal(s.lease.state, "down");
  await Deno.writeTextFile(`${tmp.path}/control/snapshot.json`, JSON.stringify({ run_id: RUN_ID, status: "running" }));
  assert.equal((await snapshot(ref)).status, "abandoned");
  await assert.rejects(
    snapshot({ ...ref, runId: "20260101T000000Z-AAAAAA" }),
    (e: ControlError) => e.code === "stale_run" && e.details.current === RUN_ID,
  );
  await Deno.writeTextFile(`${tmp.path}/control/snapshot.json`, "{torn");
  assert.equal(await code(snapshot(ref)), "invalid_snapshot");
  await Deno.writeTextFile(`${tmp.path}/control/snapshot.json`, JSON.stringify({ status: "running" }));
  assert.equal(await code(snapshot(ref)), "no_run");
});

Deno.test("setView()/steer() validate first, write no request on error, and log refusals; refuse a run not running", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const ref = { storeRoot: store, runId: RUN_ID };
  assert.equal(await code(setView(ref, {})), "empty_view");
  assert.equal(await code(setView(ref, { colour: "red" } as never)), "unknown_view_key");
  assert.equal(await code(setView(ref, { diff: "huge" })), "invalid_view_value");
  assert.equal(await code(steer(ref, "  ")), "empty_steer");
  assert.equal(await code(steer(ref, "x".repeat(8193))), "steer_too_long");
  assert.equal(await code(steer(ref, "hello")), "no_run");
  assert.equal(await Deno.stat(store).then(() => true, () => false), false);
  const { plane } = await testPlane(store);
  // Snapshot says running, but nobody holds the lease: abandoned.
  const e = await steer(ref, "hello").catch((x) => x);
  assert.equal(e.code, "run_not_running");
  assert.equal(e.details.status, "abandoned");
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  try {
    const h = await setView(ref, { diff: "full" }, { author: "ada" });
    assert.equal(h.runId, RUN_ID);
    assert.equal(await outcome(ref, h.request), null, "pending until the runner answers");
    plane.boundary();
    const o = await outcome(ref, h.request);
    assert.equal(o?.receipt.outcome, "applied");
    assert.equal(o?.entry.author, "ada");
    const s = await steer(ref, "  trimmed  ");
    const body = JSON.parse(await Deno.readTextFile(`${store}/control/requests/${s.request}`));
    assert.deepEqual(body.params, { text: "trimmed" });
    assert.equal(body.run_id, RUN_ID);
    assert.equal(body.schema, "prompt_runner.control_request/v1");
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
  assert.equal(await code(setView(ref, { diff: "full" }, { author: "bob" })), "run_not_running");
  const entries = await log(ref);
  // Refusals at the call are on the record too (without a request); the early ones had no plane to reach.
  assert.deepEqual(entries.map((e) => [e.command, e.outcome, e.request === null]), [
    ["steer", "rejected", true],
    ["set_view", "applied", false],
    ["steer", "rejected", false],
    ["set_view", "rejected", true],
  ]);
  assert.equal(entries[0]!.reason, `run ${RUN_ID} is abandoned; nothing will answer a request`);
  assert.deepEqual(entries[0]!.params, { text: "hello" });
  assert.equal(entries[3]!.reason, `run ${RUN_ID} is completed; nothing will answer a request`);
  assert.equal(entries[3]!.author, "bob");
  assert.equal(entries[3]!.run_id, RUN_ID);
  assert.equal(entries[2]!.reason, "run has finished");
});

Deno.test("log() keeps this run's and run-less entries; allRuns keeps every run", async () => {
  await using tmp = await tempDir();
  await Deno.mkdir(`${tmp.path}/control`);
  const lines = [
    {
      at: "a",
      key: "1",
      request: null,
      run_id: RUN_ID,
      command: "guardrail",
      params: {},
      author: "runner",
      outcome: "received",
      reason: "r",
      prompt_id: null,
      attempt: null,
    },
    {
      at: "b",
      key: "2",
      request: null,
      run_id: "other",
      command: "amend",
      params: {},
      author: "x",
      outcome: "applied",
      reason: "r",
      prompt_id: "01",
      attempt: null,
    },
    {
      at: "c",
      key: "3",
      request: null,
      run_id: null,
      command: "amend",
      params: {},
      author: "x",
      outcome: "applied",
      reason: "r",
      prompt_id: "01",
      attempt: null,
    },
  ];
  await Deno.writeTextFile(`${tmp.path}/control/log.jsonl`, lines.map((l) => JSON.stringify(l)).join("\n") + "\n{torn");
  const ref = { storeRoot: tmp.path, runId: RUN_ID };
  assert.deepEqual((await log(ref)).map((e) => e.key), ["1", "3"]);
  assert.deepEqual((await log(ref, { allRuns: true })).map((e) => e.key), ["1", "2", "3"]);
});
