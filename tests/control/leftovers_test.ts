import assert from "node:assert/strict";
import { describeLeftovers, readLeftovers } from "../../src/control/leftovers.ts";
import type { LeaseState } from "../../src/store/lease.ts";
import { recordSurvivors } from "../../src/util/containment.ts";
import { tempDir } from "../support/fs.ts";

const DOWN: LeaseState = { state: "down", pid: null, hostname: null, info: null };

Deno.test("leftovers: a stale run.pid naming a provider is reported until someone reaps it", async () => {
  await using dir = await tempDir();
  const stale: LeaseState = {
    state: "down",
    pid: 11,
    hostname: "h",
    info: { pid: 11, run_id: "R1", provider: { pid: 22, pgid: 22, start_ticks: 5 } },
  };
  const l = await readLeftovers(dir.path, stale);
  assert.deepEqual(l, {
    run_id: "R1",
    source: "stale_lease",
    checked_at: null,
    processes: [{ pid: 22, pgid: 22, command: null }],
  });
  assert.equal(
    describeLeftovers(l!),
    "pid 22 (group 22) of run R1 may still be running: its runner died without closing (stop or the next run reaps it)",
  );
  // A live lease's provider is the run's own business, not a leftover.
  assert.equal(await readLeftovers(dir.path, { ...stale, state: "up" }), null);
});

Deno.test("leftovers: survivors of a sweep are named with their command; none → null", async () => {
  await using dir = await tempDir();
  assert.equal(await readLeftovers(dir.path, DOWN), null);
  await recordSurvivors(dir.path, "R2", "exit", {
    found: 1,
    killed: 0,
    survivors: [{ pid: 33, start_ticks: 9, command: "sleep 600" }],
  });
  const l = await readLeftovers(dir.path, DOWN);
  assert.equal(l?.source, "sweep");
  assert.match(describeLeftovers(l!), /^pid 33 sleep 600 of run R2 survived SIGKILL at \d{4}-/);
  await recordSurvivors(dir.path, "R2", "next_run", { found: 1, killed: 1, survivors: [] });
  assert.equal(await readLeftovers(dir.path, DOWN), null);
});
