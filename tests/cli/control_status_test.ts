import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";

Deno.test("control status prints the live snapshot with the lease, and --json the snapshot", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const r = await runCli(["control", "status", dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const lines = r.stdout.split("\n");
    assert.equal(lines[0], "");
    assert.equal(lines[1], `  demo  ${RUN_ID}`);
    assert.match(r.stdout, /\n {2}status {4}running · lease up \(pid \d+ on [^)]+\)\n/);
    assert.match(r.stdout, /\n {2}stage {5}session\n/);
    assert.match(r.stdout, /\n {2}prompt {4}01 — First \(1 of 2\)\n/);
    assert.match(r.stdout, /\n {2}attempt {3}1 \(run\), stream initial\n/);
    assert.match(r.stdout, /\n {2}provider {2}simulated \/ simulated-demo\n/);
    assert.match(r.stdout, /\n {2}tools {5}1 this attempt\n/);
    assert.match(r.stdout, /\n {2}tokens {4}120 in \/ 30 out this attempt · 120 in \/ 30 out this run\n/);
    assert.match(r.stdout, /\n {2}steers {4}0 of 3 used, 0 pending\n/);
    assert.match(r.stdout, /\n {2}view {6}log_mode=compact tool_output=summary thinking=show diff=stat\n/);
    const j = parseJsonOut(await runCli(["control", "status", dir, "--json"]));
    assert.equal(j.run_id, RUN_ID);
    assert.equal(j.status, "running");
    assert.equal((j.lease as { state: string }).state, "up");
    assert.equal(j.tool_count, 1);
  } finally {
    await live.stop();
  }
  const after = parseJsonOut(await runCli(["control", "status", dir, "--json"]));
  assert.equal(after.status, "completed");
  assert.equal(after.stage, "closed");
  assert.equal((after.lease as { state: string }).state, "down");
});

Deno.test("control status reports abandoned when the runner died", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir, RUN_ID, "crash");
  await live.stop();
  const r = await runCli(["control", "status", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\n {2}status {4}abandoned · lease down\n/);
});

Deno.test("control status on a packet that never ran exits 4 with no_run", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli(["control", "status", dir, "--json"]);
  assert.equal(r.code, 4);
  const j = parseJsonOut(r) as { error: { code: string; exit: number } };
  assert.equal(j.error.code, "no_run");
  assert.equal(j.error.exit, 4);
  assert.match(r.stderr, /^error: no run has started in /);
});
