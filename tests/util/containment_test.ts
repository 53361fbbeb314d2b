import assert from "node:assert/strict";
import { readSurvivors, recordSurvivors, sweepByEnv, sweepRun } from "../../src/util/containment.ts";
import { pidsWithEnv, readProcStat } from "../../src/util/proc_tree.ts";
import { tempDir } from "../support/fs.ts";

function alive(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

/** Start a shell that double-forks a `setsid` grandchild ignoring TERM, then exits: the grandchild is orphaned. */
async function escapee(env: Record<string, string>): Promise<number[]> {
  const cmd = new Deno.Command("/bin/sh", {
    // One long-lived process (an ignored signal stays ignored across exec), so every pid found stays alive.
    args: ["-c", `(setsid sh -c "trap '' TERM INT HUP; exec sleep 600" & ) ; exit 0`],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  });
  await cmd.output();
  let pids: number[] = [];
  for (let i = 0; i < 100 && pids.length === 0; i++) {
    pids = await pidsWithEnv(Object.keys(env)[0]!, Object.values(env)[0]!);
    if (pids.length === 0) await new Promise((r) => setTimeout(r, 20));
  }
  return pids;
}

Deno.test("sweep: a setsid, double-forked process ignoring TERM is found by its inherited marker and killed", async () => {
  const runId = `test-${crypto.randomUUID()}`;
  const pids = await escapee({ PROMPT_RUNNER_RUN_ID: runId });
  assert.ok(pids.length > 0, "the escapee is found by environment");
  assert.ok(pids.every((p) => readProcStat(p)?.ppid !== Deno.pid), "it is not our child any more");
  const r = await sweepRun(runId, { termGraceMs: 200 });
  assert.ok(r.found >= 1);
  assert.equal(r.killed, r.found);
  assert.deepEqual(r.survivors, []);
  assert.ok(pids.every((p) => !alive(p)), "all gone");
  assert.deepEqual(await pidsWithEnv("PROMPT_RUNNER_RUN_ID", runId), []);
});

Deno.test("sweep: processes of another run (or none) are never touched", async () => {
  const mine = `test-${crypto.randomUUID()}`;
  const other = `test-${crypto.randomUUID()}`;
  const theirs = await escapee({ PROMPT_RUNNER_RUN_ID: other });
  try {
    const r = await sweepRun(mine, { termGraceMs: 100 });
    assert.deepEqual(r, { found: 0, killed: 0, survivors: [] });
    assert.ok(theirs.every(alive), "the other run's process is still alive");
    // A prefix of a value is not the value.
    const prefix = await sweepByEnv("PROMPT_RUNNER_RUN_ID", other.slice(0, -1), { termGraceMs: 100 });
    assert.equal(prefix.found, 0);
    assert.ok(theirs.every(alive));
  } finally {
    await sweepRun(other, { termGraceMs: 100 });
  }
  assert.ok(theirs.every((p) => !alive(p)));
});

Deno.test("survivors record: written when something survived, removed when a sweep left nothing", async () => {
  await using dir = await tempDir();
  const survivor = { pid: 4242, start_ticks: 7, command: "stuck tool" };
  await recordSurvivors(dir.path, "run-1", "exit", { found: 1, killed: 0, survivors: [survivor] });
  const rec = await readSurvivors(dir.path);
  assert.equal(rec?.run_id, "run-1");
  assert.equal(rec?.moment, "exit");
  assert.deepEqual(rec?.survivors, [survivor]);
  await recordSurvivors(dir.path, "run-1", "next_run", { found: 1, killed: 1, survivors: [] });
  assert.equal(await readSurvivors(dir.path), null);
});
