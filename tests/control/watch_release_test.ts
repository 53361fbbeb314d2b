import assert from "node:assert/strict";
import { WatchLoop } from "../../src/control/watch_loop.ts";
import { detachWatchersAtStop, watcherCloseUnsafe } from "../../src/control/watch_release.ts";
import { FakeWatcher, settlesWithin } from "./_fake_watch.ts";

function loopWith(watchers: FakeWatcher[], gaps: { n: number }): WatchLoop {
  return new WatchLoop("/x/requests", {
    watchFs: () => {
      const w = new FakeWatcher();
      watchers.push(w);
      return w;
    },
    rearmMs: 10_000,
    onEvent: (e) => e.flag === "rescan",
    onGap: () => gaps.n++,
  });
}

Deno.test("under the detach policy a watcher is never closed: stop returns at once, an overflow rescans in place", async () => {
  detachWatchersAtStop(true);
  const watchers: FakeWatcher[] = [];
  const gaps = { n: 0 };
  const loop = loopWith(watchers, gaps);
  try {
    assert.equal(watcherCloseUnsafe(), true);
    watchers[0]!.push("other", "rescan");
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(gaps.n, 1, "the overflow still asks for a full rescan");
    assert.equal(watchers.length, 1, "the watcher is not replaced (that would close it)");
    assert.equal(watchers[0]!.closed, false);
    assert.ok(await settlesWithin(loop.stop(), 50), "stop does not wait for the detached watcher");
    assert.equal(watchers[0]!.closed, false, "a detached watcher is left open");
  } finally {
    detachWatchersAtStop(false);
    watchers[0]!.end(); // the fake can end; a real detached watcher is ended by the process exit
  }
});

Deno.test("without the policy and with no thread stuck in a FIFO open, stop closes the watcher and ends the loop", async () => {
  const watchers: FakeWatcher[] = [];
  const loop = loopWith(watchers, { n: 0 });
  assert.equal(watcherCloseUnsafe(), false);
  assert.ok(await settlesWithin(loop.stop(), 1000));
  assert.equal(watchers[0]!.closed, true);
});
