import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { followRun, type StreamItem } from "../../src/control/follow.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { EventAppender } from "../../src/control/event_log.ts";

const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: null };
const notice = (i: number) => ({
  type: "notice" as const,
  data: { level: "info" as const, code: "n", message: `m${i}` },
});

/** Collect a follower's items while `act` runs against the live plane. */
async function follow(store: string, act: (seen: () => number) => Promise<void>): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  let failed: unknown = null;
  const done = (async () => {
    for await (const x of followRun(store, RUN_ID, { pollMs: 20 })) items.push(x);
  })().catch((e) => (failed = e));
  await until(() => items.length >= 1 || failed !== null, "the follower's first item");
  await act(() => items.length);
  await done;
  if (failed !== null) throw failed;
  return items;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("a follower of a truncated events.jsonl reports the lost seq range as a gap, then keeps following", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane, paths } = await testPlane(store);
  try {
    const items = await follow(store, async (seen) => {
      for (let i = 0; i < 3; i++) plane.record(notice(i), ctx);
      await plane.sync();
      await until(() => seen() >= 4, "the first four events"); // run_opened + 3
      plane.record(notice(3), ctx); // seq 5, lands before the truncation
      await plane.sync();
      await Deno.truncate(paths.events, 0);
      for (let i = 4; i < 7; i++) plane.record(notice(i), ctx); // seq 6..8 into the truncated file
      await plane.sync();
      await plane.close("completed", null);
    });
    const seqs = items.map((e) => e.seq);
    const gap = items.find((e) => e.type === "gap");
    const delivered = items.filter((e) => typeof e.seq === "number").map((e) => e.seq as number);
    // Every seq 1..9 is either delivered or inside the announced gap: nothing is lost silently.
    const covered = new Set(delivered);
    if (gap) {
      const d = gap.data as { from_seq: number; to_seq: number; reason: string };
      for (let s = d.from_seq; s <= d.to_seq; s++) covered.add(s);
      assert.ok(["truncated", "missing"].includes(d.reason), d.reason);
    }
    for (let s = 1; s <= 9; s++) assert.ok(covered.has(s), `seq ${s} delivered or announced (${JSON.stringify(seqs)})`);
    assert.equal(items.at(-1)!.type, "run_finished");
    assert.equal(items.at(-1)!.synthetic, undefined, "the real run_finished line, not a synthetic end");
    assert.deepEqual(delivered, [...delivered].sort((a, b) => a - b), "in order, no duplicates");
    assert.equal(new Set(delivered).size, delivered.length);
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("rename-and-recreate of events.jsonl: the runner reopens the path and followers see the rest", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane, paths } = await testPlane(store);
  try {
    const items = await follow(store, async (seen) => {
      plane.record(notice(0), ctx);
      await plane.sync();
      await until(() => seen() >= 2, "the first events");
      await Deno.rename(paths.events, `${tmp.path}/moved.jsonl`);
      await Deno.writeTextFile(paths.events, "");
      for (let i = 1; i < 4; i++) plane.record(notice(i), ctx); // seq 3..5 must reach the new file
      await plane.sync();
      await plane.close("completed", null);
    });
    const delivered = items.filter((e) => typeof e.seq === "number").map((e) => e.seq);
    assert.deepEqual(delivered, [1, 2, 3, 4, 5, 6], JSON.stringify(items));
    assert.equal(items.at(-1)!.type, "run_finished");
    assert.equal(items.at(-1)!.synthetic, undefined);
    const text = await Deno.readTextFile(paths.events);
    assert.match(text, /"seq":3,/, "the runner wrote into the file now at the path");
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("EventAppender reopens a removed file but never opens a symlink or FIFO put in its place", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/events.jsonl`;
  const a = new EventAppender(path, false);
  a.push("one");
  a.flush();
  await Deno.remove(path);
  a.push("two");
  a.flush();
  assert.equal(a.reopened, 1);
  assert.equal(await Deno.readTextFile(path), "two\n");
  await Deno.remove(path);
  await Deno.writeTextFile(`${tmp.path}/elsewhere`, "");
  await Deno.symlink(`${tmp.path}/elsewhere`, path);
  a.push("three");
  a.flush();
  assert.equal(await Deno.readTextFile(`${tmp.path}/elsewhere`), "", "nothing written through the symlink");
  await Deno.remove(path);
  const mk = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(mk.success);
  a.push("four");
  a.flush(); // would block forever if it opened the FIFO
  a.close();
  assert.equal(a.reopened, 1);
});

Deno.test("control log following: a truncated log.jsonl is announced as a log_gap entry, and later entries still arrive", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane, paths } = await testPlane(store);
  const { followLog } = await import("../../src/control/mod.ts");
  const { body, dropRaw, reqName } = await import("./_harness.ts");
  try {
    const got: { command: string; request: string | null }[] = [];
    const done = (async () => {
      for await (const e of followLog({ storeRoot: store, runId: RUN_ID }, { pollMs: 20 })) got.push(e);
    })();
    const first = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
    plane.boundary();
    await until(() => got.some((e) => e.request === first), "the first entry");
    await Deno.truncate(paths.log, 0);
    await until(() => got.some((e) => e.command === "log_gap"), "the gap entry");
    const second = await dropRaw(store, reqName(), body("set_view", { diff: "stat" }));
    plane.boundary();
    await until(() => got.some((e) => e.request === second), "the entry after the truncation");
    await plane.close("completed", null);
    await lease.release();
    await done;
    assert.deepEqual(got.map((e) => e.command), ["set_view", "log_gap", "set_view"]);
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("the runner's audit writer reopens a log.jsonl renamed away under it", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  const { body, dropRaw, reqName, lines } = await import("./_harness.ts");
  try {
    const a = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
    plane.boundary();
    await Deno.rename(paths.log, `${tmp.path}/old-log.jsonl`);
    const b = await dropRaw(store, reqName(), body("set_view", { diff: "stat" }));
    plane.boundary();
    assert.deepEqual((await lines(paths.log)).map((e) => e.request), [b]);
    assert.deepEqual((await lines(`${tmp.path}/old-log.jsonl`)).map((e) => e.request), [a]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("property: under any mix of truncation, rename-and-recreate and removal, a follower loses nothing silently", async () => {
  const fc = (await import("fast-check")).default;
  const op = fc.oneof(
    fc.record({ kind: fc.constant("append" as const), n: fc.integer({ min: 1, max: 5 }) }),
    fc.constant({ kind: "truncate" as const, n: 0 }),
    fc.constant({ kind: "recreate" as const, n: 0 }),
    fc.constant({ kind: "remove" as const, n: 0 }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
      await using tmp = await tempDir();
      const store = `${tmp.path}/s`;
      const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
      const { plane, paths } = await testPlane(store);
      try {
        let i = 0;
        const items = await follow(store, async () => {
          for (const o of ops) {
            if (o.kind === "append") { for (let k = 0; k < o.n; k++) plane.record(notice(i++), ctx); }
            else if (o.kind === "truncate") await Deno.truncate(paths.events, 0).catch(() => {});
            else if (o.kind === "recreate") {
              await Deno.rename(paths.events, `${tmp.path}/old-${i}`).catch(() => {});
              await Deno.writeTextFile(paths.events, "").catch(() => {});
            } else await Deno.remove(paths.events).catch(() => {});
            await plane.sync();
            await new Promise((r) => setTimeout(r, 5));
          }
          await plane.close("completed", null);
        });
        const last = i + 2; // run_opened + i notices + run_finished
        const covered = new Set<number>();
        const delivered: number[] = [];
        for (const e of items) {
          if (typeof e.seq === "number") {
            delivered.push(e.seq);
            covered.add(e.seq);
          } else if (e.type === "gap") {
            const d = e.data as { from_seq: number; to_seq: number };
            for (let s = d.from_seq; s <= d.to_seq; s++) covered.add(s);
          }
        }
        assert.equal(items.at(-1)!.type, "run_finished");
        assert.equal(items.at(-1)!.synthetic, undefined, "the run's own run_finished line, not a synthetic end");
        assert.deepEqual(delivered, [...new Set(delivered)].sort((a, b) => a - b), "ordered, no duplicates");
        for (let s = 1; s <= last; s++) assert.ok(covered.has(s), `seq ${s} delivered or announced`);
      } finally {
        await plane.close("completed", null);
        await lease.release();
      }
    }),
    {
      numRuns: 20,
      // Found by this property: truncated, then removed before the follower reopened it.
      examples: [[[
        { kind: "truncate", n: 0 },
        { kind: "recreate", n: 0 },
        { kind: "recreate", n: 0 },
        { kind: "remove", n: 0 },
        { kind: "append", n: 1 },
        { kind: "truncate", n: 0 },
      ]]],
    },
  );
});
