/**
 * The building blocks of `control serve`'s ring (src/cli/serve/frames.ts, ring.ts): frames built into one buffer are
 * byte for byte the frames built one by one, with offsets that cut them exactly (multi-byte text and a line larger
 * than the buffer included), and the queue keeps its order and positions across its compactions.
 */
import assert from "node:assert/strict";
import { FrameBuilder, itemFrame } from "../../src/cli/serve/frames.ts";
import { Fifo } from "../../src/cli/serve/ring.ts";

Deno.test("FrameBuilder: one buffer, the same bytes as frame by frame, offsets at each frame's end; empty after take()", () => {
  const items = [
    { seq: 1, type: "message_streamed", data: { delta: "plain" } },
    { seq: 2, type: "message_streamed", data: { delta: "é — 漢字 😀" } },
    { seq: null, type: "gap", data: { from_seq: 3, to_seq: 4 } },
    { seq: 5, type: "message_streamed", data: { delta: "x".repeat(200_000) } }, // larger than the 64 KiB buffer
    { seq: 6, type: "run_finished", data: { status: "completed" } },
  ];
  const b = new FrameBuilder();
  for (const item of items) b.add(item);
  assert.equal(b.count, items.length);
  const run = b.take();
  const one = items.map((i) => itemFrame(i));
  assert.deepEqual(run.bytes, new Uint8Array(one.flatMap((f) => [...f])));
  let at = 0;
  for (const [i, f] of one.entries()) {
    assert.deepEqual(run.bytes.subarray(at, run.ends[i]), f, `frame ${i} cut exactly`);
    at = run.ends[i]!;
  }
  assert.deepEqual(run.seqs, [1, 2, null, 5, 6]);
  assert.equal(run.finished, items[4]);
  assert.equal(b.count, 0);
  assert.equal(b.size, 0);
  b.add(items[0]!);
  assert.deepEqual(b.take().bytes, one[0], "a builder reused after a big run starts clean");
});

Deno.test("Fifo: order, length and positions hold across compactions", () => {
  const q = new Fifo<number>();
  for (let i = 0; i < 5000; i++) q.push(i);
  for (let i = 0; i < 3000; i++) assert.equal(q.shift(), i);
  assert.equal(q.length, 2000);
  assert.equal(q.at(0), 3000);
  assert.equal(q.at(1999), 4999);
  assert.equal(q.at(2000), undefined);
  assert.equal(q.at(-1), undefined);
  for (let i = 5000; i < 6000; i++) q.push(i);
  for (let i = 3000; i < 6000; i++) assert.equal(q.shift(), i);
  assert.equal(q.length, 0);
  assert.equal(q.shift(), undefined);
});
