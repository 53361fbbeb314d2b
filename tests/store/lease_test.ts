import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { acquireLease, leaseHeldMessage, processStartTicks, readLease } from "../../src/store/lease.ts";
import { LeaseHeldError } from "../../src/errors.ts";
import { waitFor } from "../support/wait.ts";

Deno.test("acquireLease() writes run.pid; a second holder fails with lease_held and the exact message", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const lease = await acquireLease(store, {
    runId: "20261130T120501Z-7QK2MD",
    packetDir: `${tmp.path}/demo`,
    argv: ["run"],
  });
  try {
    const pid = JSON.parse(await Deno.readTextFile(`${store}/run.pid`));
    assert.equal(pid.pid, Deno.pid);
    assert.equal(pid.run_id, "20261130T120501Z-7QK2MD");
    assert.deepEqual(pid.argv, ["run"]);
    assert.equal(pid.provider, null);
    assert.equal((await Deno.stat(`${store}/run.pid`)).mode! & 0o777, 0o600);
    const t0 = Date.now();
    const err = await acquireLease(store, { runId: "x", packetDir: `${tmp.path}/demo`, argv: [] }).then(
      () => null,
      (e) => e,
    );
    assert.ok(err instanceof LeaseHeldError);
    assert.equal(err.code, "lease_held");
    assert.equal(err.exit, 5);
    assert.ok(Date.now() - t0 >= 200, "retried for up to 250 ms");
    assert.equal(
      err.message,
      `demo is already being run by pid ${Deno.pid} on ${pid.hostname} (run 20261130T120501Z-7QK2MD, since ${
        pid.started_at.slice(11, 19)
      }Z)`,
    );
    assert.equal((await readLease(store)).state, "up");
    await lease.setProvider({ pid: 1, pgid: 1, start_ticks: 5 });
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${store}/run.pid`)).provider, {
      pid: 1,
      pgid: 1,
      start_ticks: 5,
    });
    await lease.setRunId("20261130T130000Z-BBBBBB");
    assert.equal(JSON.parse(await Deno.readTextFile(`${store}/run.pid`)).run_id, "20261130T130000Z-BBBBBB");
  } finally {
    await lease.release();
  }
  assert.equal(await Deno.stat(`${store}/run.pid`).then(() => true, () => false), false);
  assert.equal((await readLease(store)).state, "down");
  // Released: a new holder gets it.
  const again = await acquireLease(store, { runId: "y", packetDir: tmp.path, argv: [] });
  await again.release();
});

Deno.test("readLease(): no run.pid → down; stale run.pid with a free lock → down; other host → unknown", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  await Deno.mkdir(store);
  assert.deepEqual(await readLease(store), { state: "down", pid: null, hostname: null, info: null });
  const host = Deno.hostname();
  await Deno.writeTextFile(`${store}/run.pid`, JSON.stringify({ pid: 99999999, hostname: host }));
  await Deno.writeTextFile(`${store}/run.lock`, "");
  const stale = await readLease(store);
  assert.equal(stale.state, "down");
  assert.equal(stale.pid, 99999999);
  await Deno.writeTextFile(`${store}/run.pid`, JSON.stringify({ pid: 4242, hostname: "elsewhere.invalid" }));
  const other = await readLease(store);
  assert.equal(other.state, "unknown");
  assert.equal(other.hostname, "elsewhere.invalid");
});

Deno.test("acquireLease() reaps a stale provider group whose start time still matches", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  await Deno.mkdir(store);
  const child = new Deno.Command("setsid", { args: ["sleep", "30"], stdout: "null", stderr: "null" }).spawn();
  try {
    const ticks = await waitFor(() => processStartTicks(child.pid), {
      timeoutMs: 5_000,
      what: "start ticks readable without --allow-all",
    });
    await Deno.writeTextFile(
      `${store}/run.pid`,
      JSON.stringify({
        pid: 99999999,
        hostname: Deno.hostname(),
        provider: { pid: child.pid, pgid: child.pid, start_ticks: ticks },
      }),
    );
    const lease = await acquireLease(store, { runId: "r", packetDir: tmp.path, argv: [] });
    await lease.release();
    const status = await child.status;
    assert.equal(status.success, false, "the orphaned provider group was killed");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }
});

Deno.test("leaseHeldMessage() tolerates a missing run.pid or fields", () => {
  assert.equal(
    leaseHeldMessage("demo", null),
    "demo is locked by another prompt_runner process (a workspace prepare, or a run starting)",
  );
  assert.equal(
    leaseHeldMessage("demo", {}),
    "demo is already being run by pid ? on an unknown host (run unknown, since an unknown time)",
  );
});

Deno.test("release() called while a release is under way waits for it: run.pid is gone when either call returns", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const lease = await acquireLease(store, { runId: "20261201T120501Z-RELEAS", packetDir: tmp.path, argv: ["run"] });
  const first = lease.release(); // the run's own close, half-way through its sweep…
  await lease.release(); // …when the second Ctrl-C's hard stop releases too, then exits
  await assert.rejects(() => Deno.stat(`${store}/run.pid`), Deno.errors.NotFound, "run.pid is gone");
  await first;
  assert.equal((await readLease(store)).state, "down");
});
