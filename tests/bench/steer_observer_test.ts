/**
 * The steer benchmark's one-clock observer (scripts/bench/_steer.ts): the instant a steer request lands in
 * `control/requests/` must be seen even when the runner claims it at once. The watcher thread then reads both
 * renames in one batch and reports them as removals, which the observer used to skip ("the steer request was never
 * seen in control/requests/").
 */
import assert from "node:assert/strict";
import { isRequestPath, StoreObserver } from "../../scripts/bench/_steer.ts";
import { requestName } from "../../src/control/request.ts";
import { FakeWatcher } from "../control/_fake_watch.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";

/** A fake watcher of `requests/` that reports the given paths, and the factory handing it out. */
function scripted(): { watcher: FakeWatcher; factory: (dir: string) => FakeWatcher; dir: () => string } {
  const watcher = new FakeWatcher();
  let watched = "";
  return {
    watcher,
    factory: (dir) => {
      watched = dir;
      return watcher;
    },
    dir: () => watched,
  };
}

Deno.test("isRequestPath: request names count, temp files and other names do not", () => {
  const name = requestName();
  assert.equal(isRequestPath(`/s/control/requests/${name}`), true);
  assert.equal(isRequestPath(`/s/control/requests/.${name}.tmp`), false);
  assert.equal(isRequestPath("/s/control/requests/notes.json"), false);
});

Deno.test("StoreObserver: a request reported only by removals (claimed at once) still marks the instant", async () => {
  await using tmp = await tempDir();
  const w = scripted();
  const obs = new StoreObserver(tmp.path, w.factory);
  try {
    assert.equal(w.dir(), `${tmp.path}/control/requests`);
    const path = `${tmp.path}/control/requests/${requestName()}`;
    w.watcher.pushEvent({ kind: "other", paths: [`${tmp.path}/control/requests/README`] });
    const before = performance.now();
    w.watcher.pushEvent({ kind: "remove", paths: [path] });
    w.watcher.pushEvent({ kind: "remove", paths: [path] });
    const at = await waitFor(() => obs.requestAt, { what: "the request instant" });
    assert.ok(at >= before, "the instant is taken when the event arrives, on this process's clock");
  } finally {
    obs.close();
  }
});

Deno.test("StoreObserver: with the real watcher, a request renamed in and straight out again is seen", async () => {
  await using tmp = await tempDir();
  const control = `${tmp.path}/control`;
  for (const d of ["requests", ".tmp", ".claims"]) await Deno.mkdir(`${control}/${d}`, { recursive: true });
  const obs = new StoreObserver(tmp.path);
  try {
    assert.equal(obs.requestAt, null);
    const name = requestName();
    Deno.writeTextFileSync(`${control}/.tmp/${name}`, "{}");
    // What the runner's claim does: the request lives in requests/ for microseconds.
    Deno.renameSync(`${control}/.tmp/${name}`, `${control}/requests/${name}`);
    Deno.renameSync(`${control}/requests/${name}`, `${control}/.claims/${name}`);
    await waitFor(() => obs.requestAt, { what: "the request instant" });
  } finally {
    obs.close();
  }
});

Deno.test("StoreObserver: a request listed at a poll tick marks the instant when the watcher reports nothing", async () => {
  await using tmp = await tempDir();
  const requests = `${tmp.path}/control/requests`;
  await Deno.mkdir(requests, { recursive: true });
  const w = scripted(); // never reports: the instant must come from the poll
  const obs = new StoreObserver(tmp.path, w.factory);
  try {
    Deno.writeTextFileSync(`${requests}/notes.json`, "{}");
    const before = performance.now();
    Deno.writeTextFileSync(`${requests}/${requestName()}`, "{}");
    const at = await waitFor(() => obs.requestAt, { what: "the request instant" });
    assert.ok(at >= before, "the instant is taken on this process's clock, at the tick that lists the request");
  } finally {
    obs.close();
  }
});
