/**
 * The snapshot writer (src/control/snapshot_writer.ts): in order, one write in flight, only the newest waiting
 * document written next, failures reported and survived; and the plane's use of it (final file = plane state, one
 * notice for failed writes, temp files of a dead writer removed at open).
 */
import assert from "node:assert/strict";
import { isSnapshotTemp, SnapshotWriter } from "../../src/control/snapshot_writer.ts";
import { atomicWriteText } from "../../src/util/fs.ts";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, readJson, reqName, testPlane } from "./_harness.ts";

/** A write seam that holds each write until the test releases it. */
class GatedWrites {
  started: { text: string; fsync: boolean }[] = [];
  done: string[] = [];
  #release: (() => void)[] = [];
  write = async (text: string, opts: { fsync: boolean }): Promise<void> => {
    this.started.push({ text, fsync: opts.fsync });
    await new Promise<void>((r) => this.#release.push(r));
    this.done.push(text);
  };
  /** Let every held write finish. */
  releaseAll(): void {
    for (const r of this.#release.splice(0)) r();
  }
}

Deno.test("a slow write in flight: only the newest of many later documents is written next, in order", async () => {
  const gate = new GatedWrites();
  const w = new SnapshotWriter(gate.write, (e) => assert.fail(`unexpected failure ${e}`));
  w.submit("1");
  assert.deepEqual(gate.started.map((s) => s.text), ["1"], "the first write starts at once");
  for (let i = 2; i <= 50; i++) w.submit(String(i));
  assert.equal(gate.started.length, 1, "one write in flight at a time");
  const idle = w.idle();
  while (gate.done.length < 2) {
    gate.releaseAll();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
  }
  await idle;
  assert.deepEqual(gate.done, ["1", "50"]);
  assert.equal(w.busy, false);
});

Deno.test("an fsync asked for by a coalesced document is kept by the newer one that replaces it", async () => {
  const gate = new GatedWrites();
  const w = new SnapshotWriter(gate.write, () => {});
  w.submit("a");
  w.submit("b", { fsync: true });
  w.submit("c");
  const idle = w.idle();
  while (gate.done.length < 2) {
    gate.releaseAll();
    await new Promise((r) => setTimeout(r, 0));
  }
  await idle;
  assert.deepEqual(gate.started, [{ text: "a", fsync: false }, { text: "c", fsync: true }]);
});

Deno.test("real files under a slow first write: the file never goes backwards and ends with the newest", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/snapshot.json`;
  const seen: number[] = [];
  let first = true;
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const w = new SnapshotWriter(async (text, opts) => {
    if (first) {
      first = false;
      await held;
    }
    await atomicWriteText(path, text, opts);
    seen.push(JSON.parse(await Deno.readTextFile(path)).n);
  }, (e) => assert.fail(`unexpected failure ${e}`));
  w.submit(JSON.stringify({ n: 0 }));
  for (let n = 1; n <= 200; n++) {
    w.submit(JSON.stringify({ n }));
    if (n === 100) release();
    if (n % 10 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  await w.idle();
  assert.equal(JSON.parse(await Deno.readTextFile(path)).n, 200);
  assert.equal(seen.at(-1), 200);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!, `went backwards: ${seen.join(",")}`);
  assert.ok(seen.length < 201, `coalesced: ${seen.length} writes for 201 documents`);
});

Deno.test("a failed write is reported and the next document is still written", async () => {
  const failures: unknown[] = [];
  const written: string[] = [];
  const w = new SnapshotWriter((text) => {
    if (text === "bad") return Promise.reject(new Error("disk full"));
    written.push(text);
    return Promise.resolve();
  }, (e) => failures.push(e));
  w.submit("bad");
  await w.idle();
  w.submit("good");
  await w.idle();
  assert.equal(failures.length, 1);
  assert.match(String(failures[0]), /disk full/);
  assert.deepEqual(written, ["good"]);
});

Deno.test("a reporter that throws neither stops the writer nor rejects idle()", async () => {
  const written: string[] = [];
  const w = new SnapshotWriter((text) => {
    if (text === "bad") return Promise.reject(new Error("disk full"));
    written.push(text);
    return Promise.resolve();
  }, () => {
    throw new Error("reporter broke");
  });
  w.submit("bad");
  await w.idle();
  w.submit("good");
  await w.idle();
  assert.deepEqual(written, ["good"]);
});

Deno.test("plane: a burst of transitions ends with the file equal to the plane's state", async () => {
  await using tmp = await tempDir();
  const { plane, paths } = await testPlane(`${tmp.path}/s`);
  try {
    for (let i = 1; i <= 20; i++) {
      plane.transition({
        stage: "session",
        prompt_id: `p${i}`,
        attempt: 1,
        attempt_started_at: new Date().toISOString(),
      });
      plane.transition({ session_live: true });
      plane.transition({ session_live: false });
    }
    plane.transition({ session_live: true });
    await plane.sync();
    const snap = await readJson(paths.snapshot);
    assert.deepEqual([snap.prompt_id, snap.session_live], ["p20", true]);
  } finally {
    await plane.close("completed", null);
  }
  const snap = await readJson(paths.snapshot);
  assert.deepEqual([snap.status, snap.stage], ["completed", "closed"]);
});

Deno.test("plane: a boundary's syncRecord has the events in the file at once and leaves the snapshot to the writer", async () => {
  await using tmp = await tempDir();
  // A coalescing window that has always passed, so the boundary's snapshot is due at once.
  const { plane, paths } = await testPlane(`${tmp.path}/s`, { snapshotCoalesceMs: 0 });
  try {
    await plane.sync();
    const before = await Deno.readTextFile(paths.snapshot);
    plane.transition({ stage: "session", prompt_id: "p1", attempt: 1 });
    plane.record({ type: "message_streamed", data: { delta: "hello" } }, {
      prompt_id: "p1",
      attempt: 1,
      stream: "initial",
      provider: "simulated",
      session_id: null,
    });
    plane.transition({ stage: "between_prompts", completed_count: 1 });
    plane.syncRecord();
    // Same tick: the events are written (and fsynced), the snapshot's replacement has not been waited for.
    const events = Deno.readTextFileSync(paths.events);
    assert.ok(events.includes('"hello"'), events);
    assert.equal(Deno.readTextFileSync(paths.snapshot), before);
    await plane.settled();
    const snap = await readJson(paths.snapshot);
    assert.deepEqual([snap.prompt_id, snap.stage, snap.completed_count], ["p1", "between_prompts", 1]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("plane: failed snapshot writes give one notice, and a later write still lands", async () => {
  await using tmp = await tempDir();
  const { plane, hooks, paths } = await testPlane(`${tmp.path}/s`);
  try {
    await Deno.remove(paths.snapshot);
    await Deno.mkdir(paths.snapshot); // a directory in its place: every write is refused
    plane.transition({ session_live: true });
    plane.transition({ session_live: false });
    await plane.sync();
    plane.transition({ session_live: true });
    await plane.sync();
    const notices = hooks.notices.filter((n) => n.text.startsWith("control snapshot not written"));
    assert.equal(notices.length, 1, JSON.stringify(hooks.notices));
    await Deno.remove(paths.snapshot);
    plane.transition({ session_live: false });
    await plane.sync();
    assert.equal((await readJson(paths.snapshot)).session_live, false);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("plane: opening removes snapshot temp files a dead writer left, and nothing else", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const first = await testPlane(store);
  await first.plane.close("completed", null);
  const control = first.paths.control;
  const left = `${control}/.snapshot.json.4242.9af3.tmp`;
  await Deno.writeTextFile(left, "{}");
  await Deno.writeTextFile(`${control}/.other.4242.9af3.tmp`, "keep");
  assert.equal(isSnapshotTemp(".snapshot.json.4242.9af3.tmp"), true);
  assert.equal(isSnapshotTemp(".snapshot.json.tmp"), false);
  const second = await testPlane(store);
  try {
    assert.equal(await Deno.lstat(left).then(() => true, () => false), false, "the leftover temp is removed");
    assert.equal(await Deno.readTextFile(`${control}/.other.4242.9af3.tmp`), "keep");
  } finally {
    await second.plane.close("completed", null);
  }
});

Deno.test("plane: close puts the closed snapshot in the file before its last scan of requests/", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  const name = await dropRaw(store, reqName(), body("set_view", { tool_output: "full" }));
  // What the snapshot file said at the moment the last scan claimed the request (the claim is a rename out of
  // requests/): a client reading "running" after that scan would write a request no runner ever answers.
  const seen: unknown[] = [];
  const rename = Deno.renameSync;
  Deno.renameSync = (from: string | URL, to: string | URL) => {
    if (String(from).startsWith(paths.requests + "/")) {
      seen.push(JSON.parse(Deno.readTextFileSync(paths.snapshot)).status);
    }
    rename(from, to);
  };
  try {
    await plane.close("completed", null);
  } finally {
    Deno.renameSync = rename;
  }
  assert.deepEqual(seen, ["completed"]);
  const entry = (await lines(paths.log)).find((e) => e.request === name);
  assert.deepEqual([entry?.outcome, entry?.reason], ["rejected", "run has finished"]);
});
