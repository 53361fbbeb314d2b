/**
 * The follower's batches (src/control/follow.ts `followRunBatches`, `subscribeBatches` in src/control/mod.ts), which
 * `control serve`'s shared follower takes one read at a time: the same items in the same order as item by item, in
 * far fewer batches, live and replayed, through `run_finished`; and a raw line kept with its item is never serialised.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID } from "./_harness.ts";
import { HUB_CTX, hubRun } from "../cli/_hub_support.ts";
import { followRun, followRunBatches, type StreamItem } from "../../src/control/follow.ts";
import { rawLineOf, subscribeBatches } from "../../src/control/mod.ts";
import { storePaths } from "../../src/store/paths.ts";

Deno.test("followRunBatches: live and replayed, the same items in the same order as followRun, in far fewer batches", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane } = await hubRun(storeRoot);
  try {
    const batches: StreamItem[][] = [];
    const live = (async () => {
      for await (const b of subscribeBatches({ storeRoot, runId: RUN_ID }, { from: "start", pollMs: 100 })) {
        batches.push(b);
      }
    })();
    for (let b = 0; b < 20; b++) {
      for (let i = 0; i < 50; i++) plane.record({ type: "message_streamed", data: { delta: `m${b}.${i} ` } }, HUB_CTX);
      plane.boundary();
      await plane.sync();
    }
    await plane.close("completed", null);
    await live;
    const flat = batches.flat();
    assert.ok(flat.length > 1000, `every message and the run's own events (${flat.length})`);
    assert.deepEqual(flat.map((e) => e.seq), flat.map((_, i) => i + 1), "every seq once, in order");
    assert.equal(flat.at(-1)!.type, "run_finished");
    assert.ok(batches.every((b) => b.length > 0), "no empty batch");
    assert.ok(batches.length < flat.length / 10, `one batch per read (${batches.length} for ${flat.length} items)`);

    // Replayed from a cursor after the run: the same items as one by one.
    const one: StreamItem[] = [];
    for await (const item of followRun(storeRoot, RUN_ID, { from: 500 })) one.push(item);
    const again: StreamItem[] = [];
    for await (const b of followRunBatches(storeRoot, RUN_ID, { from: 500 })) again.push(...b);
    assert.deepEqual(again, one);
    assert.equal(one[0]!.seq, 500);
    assert.deepEqual(one.map((e) => e.seq), flat.slice(499).map((e) => e.seq));
  } finally {
    await lease.release();
  }
});

Deno.test("raw lines: each item's line as written, and never part of the item's JSON or keys", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  try {
    await record(30);
    await plane.close("completed", null);
    const lines = (await Deno.readTextFile(storePaths(storeRoot).events)).trimEnd().split("\n");
    const raw: StreamItem[] = [];
    for await (const b of followRunBatches(storeRoot, RUN_ID, { rawLines: true })) raw.push(...b);
    const plain: StreamItem[] = [];
    for await (const item of followRun(storeRoot, RUN_ID)) plain.push(item);
    assert.equal(raw.length, lines.length);
    for (const [i, item] of raw.entries()) {
      assert.equal(rawLineOf(item), lines[i], `item ${i}: its line as written`);
      assert.equal(JSON.stringify(item), JSON.stringify(plain[i]), `item ${i}: serialised without its line`);
      assert.deepEqual(Object.keys(item), Object.keys(plain[i]!));
      assert.equal(rawLineOf(plain[i]!), undefined, "a plain follower keeps no line");
    }
  } finally {
    await lease.release();
  }
});
