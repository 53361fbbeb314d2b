import assert from "node:assert/strict";
import { PlaneWaker, type WatchFactory } from "../../src/control/waker.ts";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, reqName, testPlane } from "./_harness.ts";
import { fakeWakeup, FakeWatcher, settlesWithin } from "./_fake_watch.ts";
import { pause, waitFor } from "../support/wait.ts";

function fakeWaker(opts: { debounceMs?: number; rearmMs?: number; failFirst?: boolean } = {}) {
  const watchers: FakeWatcher[] = [];
  const factory: WatchFactory = () => {
    if (opts.failFirst && watchers.length === 0) {
      watchers.push(new FakeWatcher());
      throw new Error("cannot watch");
    }
    const w = new FakeWatcher();
    watchers.push(w);
    return w;
  };
  const waker = new PlaneWaker("/x/requests", {
    pollMs: 60_000,
    debounceMs: opts.debounceMs ?? 20,
    watch: true,
    rearmMs: opts.rearmMs ?? 30,
    watchFs: factory,
  });
  return { waker, watchers };
}

/** One turn of the event loop (no fixed wait). */
const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("PlaneWaker wakes at once on the first event of a burst and folds the rest into one trailing wake", async () => {
  const { waker, watchers } = fakeWaker({ debounceMs: 40 });
  waker.start();
  try {
    assert.equal(waker.takeDirty(), true, "the first boundary always scans");
    const first = waker.wait();
    watchers[0]!.push("rename");
    assert.ok(await settlesWithin(first, 10), "leading edge: no debounce on an isolated request");
    assert.equal(waker.takeDirty(), true);
    // Two more events inside the quiet window: one wake-up at its end, not one per event.
    const second = waker.wait();
    watchers[0]!.push("rename");
    watchers[0]!.push("rename");
    assert.equal(await settlesWithin(second, 10), false, "inside the window the wake-up is deferred");
    assert.ok(await settlesWithin(second, 200));
    assert.equal(waker.takeDirty(), true);
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker.wait() resolves at once when a wake-up happened while nobody was waiting", async () => {
  const { waker, watchers } = fakeWaker({ debounceMs: 0 });
  waker.start();
  try {
    waker.takeDirty();
    // The runner is busy in a boundary: the event finds no waiter.
    watchers[0]!.push("rename");
    await tick();
    assert.ok(await settlesWithin(waker.wait(), 5), "the pending wake-up is not left for the poll");
    assert.equal(waker.takeDirty(), true);
    assert.equal(await settlesWithin(waker.wait(), 30), false, "taken: the next wait blocks again");
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker ignores removals (the runner's own deletions never wake it)", async () => {
  const { waker, watchers } = fakeWaker({ debounceMs: 0 });
  waker.start();
  try {
    waker.takeDirty();
    const w = waker.wait();
    watchers[0]!.push("remove");
    assert.equal(await settlesWithin(w, 30), false);
    assert.equal(waker.takeDirty(), false);
    watchers[0]!.push("create");
    assert.ok(await settlesWithin(w, 30));
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker re-arms a watcher that fails or ends, and rescans after re-arming", async () => {
  const { waker, watchers } = fakeWaker({ rearmMs: 20, failFirst: true });
  waker.start();
  try {
    waker.takeDirty();
    // The first watcher could not be created: a rescan is due at once, a new watcher follows the pause.
    await waitFor(() => watchers.length >= 2, { timeoutMs: 2_000, what: "the re-armed watcher" });
    assert.equal(watchers.length, 2);
    assert.equal(waker.armed, 1);
    assert.equal(waker.takeDirty(), true);
    const ended = waker.wait();
    watchers[1]!.end();
    assert.ok(await settlesWithin(ended, 10), "an ended watcher wakes the runner for a full rescan");
    waker.takeDirty();
    const rearmed = waker.wait();
    assert.ok(await settlesWithin(rearmed, 200), "re-arming is followed by a rescan of what landed meanwhile");
    assert.equal(watchers.length, 3);
    assert.equal(waker.armed, 2);
    watchers[2]!.fail();
    await waitFor(() => watchers.length >= 4, { timeoutMs: 2_000, what: "the watcher re-armed after a failure" });
    assert.equal(watchers.length, 4, "a failing watcher is re-armed too");
    // The re-armed watcher still delivers events.
    waker.takeDirty();
    const again = waker.wait();
    watchers[3]!.push("rename");
    assert.ok(await settlesWithin(again, 50));
  } finally {
    await waker.stop();
  }
  assert.ok(watchers.at(-1)!.closed, "stop() closes the watcher");
});

Deno.test("PlaneWaker treats an overflow (rescan flag) as a full rescan and re-arms without a pause", async () => {
  const { waker, watchers } = fakeWaker({ rearmMs: 10_000 });
  waker.start();
  try {
    waker.takeDirty();
    const w = waker.wait();
    watchers[0]!.push("other", "rescan");
    assert.ok(await settlesWithin(w, 20));
    // Far below the 10 s failure pause: re-armed at once.
    await waitFor(() => watchers.length >= 2, { timeoutMs: 2_000, what: "the watcher re-armed after an overflow" });
    assert.equal(watchers.length, 2, "re-armed at once despite the long failure pause");
    assert.ok(watchers[0]!.closed);
    assert.equal(waker.takeDirty(), true);
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker stays asleep without events: no spurious wake-ups between poll ticks", async () => {
  const { waker } = fakeWaker();
  waker.start();
  try {
    waker.takeDirty();
    assert.equal(await settlesWithin(waker.wait(), 150), false);
  } finally {
    await waker.stop();
  }
});

Deno.test("PlaneWaker poll fallback wakes without a watcher", async () => {
  const waker = new PlaneWaker("/x/requests", { pollMs: 50, debounceMs: 5, watch: false });
  waker.start();
  try {
    waker.takeDirty();
    assert.ok(await settlesWithin(waker.wait(), 500));
    assert.equal(waker.takeDirty(), true);
  } finally {
    await waker.stop();
  }
});

Deno.test("boundary() flushes the events a scan recorded at once and writes one snapshot for a burst", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  try {
    plane.boundary();
    await dropRaw(store, reqName(), body("set_view", { tool_output: "full" }));
    await dropRaw(store, reqName(), body("set_view", { thinking: "hide" }));
    await dropRaw(store, reqName(), body("set_view", { tool_output: "none" }));
    plane.boundary();
    assert.equal(hooks.views.length, 3);
    // No 20 ms flush timer involved: the view_changed lines are in the file when boundary() returns.
    const events = (await Deno.readTextFile(paths.events)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(events.filter((e) => e.type === "view_changed").length, 3);
    await plane.settled();
    const snap = JSON.parse(await Deno.readTextFile(paths.snapshot));
    assert.equal(snap.view.tool_output, "none");
    assert.equal(snap.view.thinking, "hide");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("a request landing while the runner is inside a boundary is consumed without waiting for the poll", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks } = await testPlane(store, { watch: true, pollMs: 60_000 });
  try {
    plane.boundary();
    // Written while nobody waits (the runner is "busy"); the event must not be lost until the 60 s poll.
    await dropRaw(store, reqName(), body("set_view", { thinking: "hide" }));
    // Deliberate window: lets the watch event arrive while nobody waits, the case under test (if it came later, the
    // wait below would only be weaker, never flaky).
    await pause(50);
    assert.ok(await settlesWithin(plane.wake(), 1000));
    plane.boundary();
    assert.equal(hooks.views.length, 1);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("Wakeup (followers) re-arms a watcher that ends or fails and wakes right after re-arming", async () => {
  const { wake, watchers } = fakeWakeup();
  try {
    assert.equal(watchers.length, 1, "the first watcher exists before the first drain");
    const t0 = performance.now();
    await wake.wait(30);
    assert.ok(performance.now() - t0 >= 25, "no wake-up without events");
    const w1 = wake.wait(10_000);
    watchers[0]!.push("modify");
    assert.ok(await settlesWithin(w1, 20));
    watchers[0]!.end();
    await waitFor(() => watchers.length >= 2 && wake.armed >= 2, { timeoutMs: 2_000, what: "the re-armed watcher" });
    assert.equal(watchers.length, 2);
    assert.equal(wake.armed, 2);
    assert.ok(await settlesWithin(wake.wait(10_000), 5), "woken for what landed while unwatched");
    watchers[1]!.fail();
    await waitFor(() => watchers.length >= 3, { timeoutMs: 2_000, what: "the watcher re-armed after a failure" });
    assert.equal(watchers.length, 3, "a failing watcher is re-armed too");
    await wake.wait(0);
    const w3 = wake.wait(10_000);
    watchers[2]!.push("modify");
    assert.ok(await settlesWithin(w3, 20));
  } finally {
    await wake.close();
  }
  assert.ok(watchers.at(-1)!.closed);
});
