/**
 * What wakes a follower (src/control/tail.ts `Wakeup`, src/control/follow.ts): a close after a read-write open
 * (inotify's IN_CLOSE_WRITE, reported as "access") changes nothing and must not wake it — a follower's own snapshot
 * read closes such a handle in the directory it watches, so waking on it made an idle follower spin; and a follower
 * given `wait` waits on it, never on a watcher of its own.
 */
import assert from "node:assert/strict";
import { Wakeup } from "../../src/control/tail.ts";
import { followRun } from "../../src/control/follow.ts";
import { tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { fakeWakeup, settlesWithin } from "./_fake_watch.ts";
import { RUN_ID } from "./_harness.ts";
import { hubRun } from "../cli/_hub_support.ts";
import { storePaths } from "../../src/store/paths.ts";

Deno.test("Wakeup (followers): a close after a read-write open does not wake a follower; a write does", async () => {
  const { wake, watchers } = fakeWakeup();
  try {
    const w = wake.wait(60_000);
    watchers[0]!.push("access");
    assert.equal(await settlesWithin(w, 100), false, "an access event (a handle closed) does not wake");
    watchers[0]!.push("modify");
    assert.ok(await settlesWithin(w, 5_000), "a modify event does");
    const again = wake.wait(60_000);
    watchers[0]!.push("create");
    assert.ok(await settlesWithin(again, 5_000), "so does a new file");
  } finally {
    await wake.close();
  }
});

Deno.test("Wakeup (followers): a real read-write open and close in the watched directory does not wake; an append does", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/snapshot.json`;
  await Deno.writeTextFile(file, "{}\n");
  const wake = new Wakeup(tmp.path);
  try {
    const w = wake.wait(60_000);
    const f = await Deno.open(file, { read: true, write: true });
    f.close();
    assert.equal(await settlesWithin(w, 300), false, "closing a read-write handle is not news");
    await Deno.writeTextFile(file, "{}\n", { append: true });
    assert.ok(await settlesWithin(w, 10_000), "an append is");
  } finally {
    await wake.close();
  }
});

Deno.test("follow: a follower given wait() waits on it alone (no watcher, no poll) and reads what landed once it resolves", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const ac = new AbortController();
  let waits = 0;
  let release: () => void = () => {};
  const wait = () => {
    waits += 1;
    return new Promise<void>((r) => release = r);
  };
  const seqs: number[] = [];
  const follower = (async () => {
    for await (const item of followRun(storeRoot, RUN_ID, { from: "start", signal: ac.signal, pollMs: 50, wait })) {
      if (typeof item.seq === "number") seqs.push(item.seq);
    }
  })();
  try {
    await record(3);
    await waitFor(() => waits >= 1 && seqs.length >= 3, { what: "the follower to read what is there and wait" });
    const had = seqs.length;
    const waited = waits;
    await record(4);
    // No watcher and no 50 ms poll: nothing is read until wait() resolves.
    const grew = await waitFor(() => seqs.length > had, { timeoutMs: 400 }).then(() => true, () => false);
    assert.equal(grew, false, "nothing read before wait() resolved");
    assert.equal(waits, waited);
    release();
    await waitFor(() => seqs.length >= had + 4, { what: "the new events once wait() resolved" });
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "every seq once, in order");
  } finally {
    ac.abort();
    release();
    await follower;
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("Wakeup (followers): events naming only ignored files do not wake; any other file, or none, does", async () => {
  const { wake, watchers } = fakeWakeup({
    ignore: (name) => name === "snapshot.json" || name.startsWith(".snapshot.json."),
  });
  try {
    const w = wake.wait(60_000);
    watchers[0]!.pushEvent({ kind: "create", paths: ["/x/control/.snapshot.json.1.ab.tmp"] });
    watchers[0]!.pushEvent({
      kind: "rename",
      paths: ["/x/control/.snapshot.json.1.ab.tmp", "/x/control/snapshot.json"],
    });
    assert.equal(await settlesWithin(w, 100), false, "the snapshot's replacement does not wake");
    await waitFor(() => wake.ignored === 2, { what: "both events seen and ignored" });
    watchers[0]!.pushEvent({ kind: "rename", paths: ["/x/control/snapshot.json", "/x/control/events.jsonl"] });
    assert.ok(await settlesWithin(w, 5_000), "an event that also names another file wakes");
    const bare = wake.wait(60_000);
    watchers[0]!.pushEvent({ kind: "other", paths: [] });
    assert.ok(await settlesWithin(bare, 5_000), "an event naming no file (an overflow) wakes");
  } finally {
    await wake.close();
  }
});

Deno.test("follow: a live follower does not wake for the snapshot's replacement, only for the lines it reads", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const ac = new AbortController();
  const seqs: number[] = [];
  let idles = 0;
  const follower = (async () => {
    const opts = { from: "start" as const, signal: ac.signal, pollMs: 60_000, onIdle: () => idles++ };
    for await (const item of followRun(storeRoot, RUN_ID, opts)) {
      if (typeof item.seq === "number") seqs.push(item.seq);
    }
  })();
  try {
    await record(2);
    await waitFor(() => seqs.length >= 2 && idles >= 1, { what: "the follower to read what is there and wait" });
    const before = idles;
    // The runner's way of replacing the snapshot (a temp written, then renamed over it), several times.
    const control = storePaths(storeRoot).control;
    for (let i = 0; i < 5; i++) {
      const temp = `${control}/.snapshot.json.${Deno.pid}.${i.toString(16).padStart(8, "0")}.tmp`;
      await Deno.writeTextFile(temp, Deno.readTextFileSync(`${control}/snapshot.json`));
      await Deno.rename(temp, `${control}/snapshot.json`);
    }
    await record(1);
    await waitFor(() => seqs.length >= 3, { what: "the line written after the snapshot replacements" });
    assert.ok(idles - before <= 2, `woken ${idles - before} times for one line after 5 snapshot replacements`);
  } finally {
    ac.abort();
    await follower;
    await plane.close("completed", null);
    await lease.release();
  }
});

/** Count `Deno.watchFs` calls (the followers' default watcher) while `fn` runs. */
async function countingWatchers<T>(fn: (count: () => number) => Promise<T>): Promise<T> {
  const original = Deno.watchFs;
  let calls = 0;
  Deno.watchFs = ((...args: Parameters<typeof Deno.watchFs>) => {
    calls += 1;
    return original(...args);
  }) as typeof Deno.watchFs;
  try {
    return await fn(() => calls);
  } finally {
    Deno.watchFs = original;
  }
}

Deno.test("follow: a follower of a finished run reads it to its end without starting a watcher", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  await record(3);
  await plane.close("completed", null);
  await lease.release();
  await countingWatchers(async (watchers) => {
    const types: string[] = [];
    for await (const item of followRun(storeRoot, RUN_ID, { from: "start", pollMs: 60_000 })) {
      types.push(String(item.type));
    }
    assert.equal(types.filter((t) => t === "message_streamed").length, 3);
    assert.equal(types.at(-1), "run_finished");
    assert.equal(watchers(), 0, "no watcher for a stream that ended in the first read");
  });
});

Deno.test("follow: a live follower arms its watcher at its first wait, and a line written then wakes it", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  await countingWatchers(async (watchers) => {
    const ac = new AbortController();
    const seqs: number[] = [];
    let idles = 0;
    // A poll of a minute: only the watcher can wake the follower within the test.
    const opts = { from: "start" as const, signal: ac.signal, pollMs: 60_000, onIdle: () => idles++ };
    const follower = (async () => {
      for await (const item of followRun(storeRoot, RUN_ID, opts)) {
        if (typeof item.seq === "number") seqs.push(item.seq);
      }
    })();
    try {
      await record(2);
      await waitFor(() => seqs.length >= 2 && idles >= 2, { what: "the follower to read, arm and wait" });
      assert.equal(watchers(), 1, "one watcher, armed at the first wait");
      await record(1);
      await waitFor(() => seqs.length >= 3, { what: "the line written after the watcher was armed" });
      assert.equal(watchers(), 1);
    } finally {
      ac.abort();
      await follower;
      await plane.close("completed", null);
      await lease.release();
    }
  });
});
