import assert from "node:assert/strict";
import { runState } from "../../src/workspace/run_state.ts";
import { effectiveStatus } from "../../src/control/snapshot.ts";
import { storePaths } from "../../src/store/paths.ts";
import { tempDir } from "../support/fs.ts";

async function writeSnapshot(storeRoot: string, text: string): Promise<void> {
  const p = storePaths(storeRoot);
  await Deno.mkdir(p.control, { recursive: true });
  await Deno.writeTextFile(p.snapshot, text);
}

Deno.test("effectiveStatus() derives abandoned only for a running status with the lease down", () => {
  assert.equal(effectiveStatus("running", "down"), "abandoned");
  assert.equal(effectiveStatus("running", "up"), "running");
  assert.equal(effectiveStatus("running", "unknown"), "running");
  assert.equal(effectiveStatus("completed", "down"), "completed");
  assert.equal(effectiveStatus("unknown", "down"), "unknown");
});

Deno.test("runState() reads the snapshot as the Control API does", async () => {
  await using t = await tempDir();
  assert.equal(await runState(t.path), "not_started");
  await writeSnapshot(t.path, JSON.stringify({ run_id: "r1", status: "running" }));
  assert.equal(await runState(t.path), "abandoned"); // no runner holds the lease
  await writeSnapshot(t.path, JSON.stringify({ run_id: "r1", status: "completed" }));
  assert.equal(await runState(t.path), "completed");
  await writeSnapshot(t.path, JSON.stringify({ run_id: "r1", status: "paused" }));
  assert.equal(await runState(t.path), "unknown");
  await writeSnapshot(t.path, "{ not json");
  assert.equal(await runState(t.path), "unknown");
  await writeSnapshot(t.path, JSON.stringify({ status: "completed" }));
  assert.equal(await runState(t.path), "not_started"); // no run id: the API's no_run
});
