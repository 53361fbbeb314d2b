/**
 * Following a run across segment seals (docs/reference/control-plane.md §5.2, §11): a follower attached before
 * the first event, a follower that stalls while several segments are sealed, a cursor inside a later segment, and
 * an archived segmented run — every seq delivered once, in order, with no gap.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { followRun, type StreamItem } from "../../src/control/follow.ts";
import { sealedSegments } from "../../src/control/segments.ts";
import { acquireLease } from "../../src/store/lease.ts";

const CTX = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: null };
const turn = () => new Promise((r) => setTimeout(r, 0));

function checkContinuous(items: StreamItem[], first = 1): void {
  const odd = items.filter((i) => i.type === "gap" || i.type === "resync" || i.synthetic === true);
  assert.deepEqual(odd, [], "no gap, resync or synthetic item");
  const seqs = items.map((i) => i.seq as number);
  assert.deepEqual(seqs, seqs.map((_, k) => first + k), "every seq once, in order");
  assert.equal(items.at(-1)?.type, "run_finished");
}

Deno.test("a follower attached before the first event follows across every seal without loss or duplicates", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane } = await testPlane(store, { segmentBytes: 4096 });
  const items: StreamItem[] = [];
  const following = (async () => {
    for await (const item of followRun(store, RUN_ID, { pollMs: 20 })) items.push(item);
  })();
  for (let i = 0; i < 1500; i++) {
    plane.record({ type: "message_streamed", data: { delta: `token ${i} ` } }, CTX);
    plane.boundary();
    if (i % 25 === 0) await turn(); // the follower reads while the writer seals
  }
  await plane.close("completed", null);
  await following;
  await lease.release();
  assert.ok(sealedSegments(store, RUN_ID).length >= 10);
  checkContinuous(items);
  assert.equal(items.length, 1502);
});

Deno.test("a follower that stalls while several segments are sealed reads them all in order", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const { plane } = await testPlane(store, { segmentBytes: 4096 });
  plane.record({ type: "message_streamed", data: { delta: "first" } }, CTX);
  plane.boundary();
  const it = followRun(store, RUN_ID, { pollMs: 20 })[Symbol.asyncIterator]();
  const items: StreamItem[] = [(await it.next()).value as StreamItem];
  const before = sealedSegments(store, RUN_ID).length;
  // The follower holds the first file open and reads nothing while the runner seals several segments.
  for (let i = 0; i < 600; i++) {
    plane.record({ type: "message_streamed", data: { delta: `token ${i} ` } }, CTX);
    plane.boundary();
  }
  assert.ok(sealedSegments(store, RUN_ID).length - before >= 3, "several seals happened while the follower stalled");
  const closing = plane.close("completed", null);
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    items.push(r.value);
  }
  await closing;
  checkContinuous(items);
  assert.equal(items.length, 603);
});

Deno.test("a cursor inside a later segment starts there; an archived segmented run reads in full", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const { plane } = await testPlane(store, { segmentBytes: 4096 });
  for (let i = 0; i < 500; i++) plane.record({ type: "message_streamed", data: { delta: `token ${i} ` } }, CTX);
  await plane.close("completed", null);
  assert.ok(sealedSegments(store, RUN_ID).length >= 3);
  const from = async (cursor: number | "start") => {
    const out: StreamItem[] = [];
    for await (const item of followRun(store, RUN_ID, { from: cursor, pollMs: 20 })) out.push(item);
    return out;
  };
  checkContinuous(await from(400), 400);
  // The next run archives the live file: the earlier run is still read whole, segments first.
  const next = await testPlane(store, { runId: "20261201T090000Z-NEXT01" });
  await next.plane.close("completed", null);
  const archived = await from("start");
  checkContinuous(archived);
  assert.equal(archived.length, 502);
});
