/**
 * A busy stream loop finds a request by probing `control/requests/` itself, without waiting for the watcher's event
 * (docs/bench.md, "Control under full load"): with the cores busy that event reached the runner tens of ms after the
 * rename, while the loop kept turning.
 */
import assert from "node:assert/strict";
import { PlaneWaker, type WatchFactory } from "../../src/control/waker.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { body, dropRaw, lines, reqName, testPlane } from "./_harness.ts";
import { FakeWatcher } from "./_fake_watch.ts";

/** A waker whose watcher never reports anything and whose directory times the test sets. */
function silentWaker(opts: { watch?: boolean; probeMs?: number } = {}) {
  const dir = { mtime: new Date(1_000), ctime: new Date(1_000), fail: false, stats: 0 };
  const factory: WatchFactory = () => new FakeWatcher();
  const waker = new PlaneWaker("/x/requests", {
    pollMs: 60_000,
    debounceMs: 5,
    watch: opts.watch ?? true,
    watchFs: factory,
    ...(opts.probeMs !== undefined ? { probeMs: opts.probeMs } : {}),
    statDir: () => {
      dir.stats++;
      if (dir.fail) throw new Error("gone");
      return { mtime: dir.mtime, ctime: dir.ctime };
    },
  });
  return { waker, dir };
}

Deno.test("PlaneWaker.probe marks a rescan due when the directory's times moved, at most once per probeMs", async () => {
  const { waker, dir } = silentWaker();
  waker.start();
  try {
    assert.equal(waker.takeDirty(), true, "the first boundary always scans");
    waker.probe(100); // the first probe only learns the times
    assert.equal(waker.takeDirty(), false);
    dir.mtime = new Date(2_000); // a request renamed in; its watch event never comes
    waker.probe(100.5);
    assert.equal(dir.stats, 1, "within probeMs of the last probe nothing is looked at");
    assert.equal(waker.takeDirty(), false);
    waker.probe(101);
    assert.equal(dir.stats, 2);
    assert.equal(waker.takeDirty(), true, "a request that landed is taken at the next probe, not at the poll");
    waker.probe(102);
    assert.equal(waker.takeDirty(), false, "unchanged times: no rescan");
    dir.ctime = new Date(3_000); // only the change time moved (a rename within the same mtime)
    waker.probe(103);
    assert.equal(waker.takeDirty(), true);
    dir.fail = true;
    waker.probe(104); // a failing stat is quiet: the scan reports the directory
    assert.equal(waker.takeDirty(), false);
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker.probe is off without a watcher (the poll-only baseline) and when probeMs is negative", async () => {
  for (const opts of [{ watch: false }, { probeMs: -1 }]) {
    const { waker, dir } = silentWaker(opts);
    waker.start();
    try {
      waker.takeDirty();
      waker.probe(1);
      dir.mtime = new Date(9_000);
      waker.probe(5);
      assert.equal(dir.stats, 0, JSON.stringify(opts));
      assert.equal(waker.takeDirty(), false, JSON.stringify(opts));
    } finally {
      await waker.stop();
    }
  }
});

Deno.test("a request renamed in is applied by the next boundary, before its watch event can reach the runner", async () => {
  await using tmp = await tempDir();
  // A real watcher and no poll within the test: only the boundary's probe can see the request, since nothing below
  // yields to the event loop between the rename and the boundary (the watcher's callback cannot run in between).
  const { plane, paths } = await testPlane(tmp.path, { watch: true, pollMs: 600_000 });
  try {
    plane.boundary(); // the first boundary scans and the probe learns the directory's times
    const before = Deno.statSync(paths.requests);
    const stamp = Math.max(before.mtime?.getTime() ?? 0, before.ctime?.getTime() ?? 0);
    // The file system's clock is coarse: let it pass the directory's last change so the rename moves its times.
    await waitFor(() => Date.now() > stamp + 20, { timeoutMs: 5_000 });
    const name = reqName();
    const tmpFile = `${paths.controlTmp}/${name}`;
    Deno.writeTextFileSync(tmpFile, body("set_view", { tool_output: "full" }));
    Deno.renameSync(tmpFile, `${paths.requests}/${name}`);
    plane.boundary();
    assert.equal(plane.view.tool_output, "full", "applied within the boundary right after the rename");
    const log = await lines(paths.log);
    assert.ok(log.some((e) => e.request === name && e.outcome === "applied"), "its applied entry is in log.jsonl");
    // A second request still reaches the runner the usual way (the watcher) while nothing streams.
    const second = await dropRaw(tmp.path, reqName(), body("set_view", { tool_output: "none" }));
    await plane.wake();
    plane.boundary();
    assert.equal(plane.view.tool_output, "none", `${second} applied after the watcher's wake-up`);
  } finally {
    await plane.close("completed", null);
  }
});
