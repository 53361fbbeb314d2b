/**
 * The building blocks of `control serve`'s ring (src/cli/serve/frames.ts, ring.ts): frames built into one buffer are
 * byte for byte the frames built one by one, with offsets that cut them exactly (multi-byte text and a line larger
 * than the buffer included), and the queue keeps its order and positions across its compactions.
 */
import assert from "node:assert/strict";
import { FrameBuilder, itemFrame } from "../../src/cli/serve/frames.ts";
import { Fifo } from "../../src/cli/serve/ring.ts";
import { joinBytes } from "../../src/cli/serve/hub.ts";

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

Deno.test("FrameBuilder: each take() is a view, never written again, and consecutive takes lie end to end until a new buffer", () => {
  const b = new FrameBuilder();
  const taken: { view: Uint8Array; copy: Uint8Array }[] = [];
  // Enough frames of ~1 KiB, taken in small runs, to fill several buffers.
  for (let seq = 1; seq <= 2000; seq++) {
    b.add({ seq, type: "message_streamed", data: { delta: `${seq} `.padEnd(1000, "x") } });
    if (seq % 7 === 0) {
      const view = b.take().bytes;
      taken.push({ view, copy: view.slice() });
    }
  }
  let adjacent = 0, fresh = 0;
  for (const [k, t] of taken.entries()) {
    assert.deepEqual(t.view, t.copy, `take ${k} was overwritten by later frames`);
    const prev = taken[k - 1]?.view;
    if (prev === undefined) continue;
    if (prev.buffer === t.view.buffer) {
      assert.equal(t.view.byteOffset, prev.byteOffset + prev.length, `take ${k} does not follow take ${k - 1}`);
      adjacent++;
    } else fresh++;
  }
  assert.ok(adjacent > fresh && fresh >= 2, `adjacent ${adjacent}, new buffers ${fresh}`);
  const text = new TextDecoder().decode(taken.at(-1)!.view);
  assert.match(text, /^id: 1989\ndata: /);
  assert.match(text, /\nid: 1995\ndata: \{"seq":1995,/);
  assert.ok(text.endsWith("}\n\n"));
});

Deno.test("joinBytes: parts end to end in one buffer become a view of it; any other parts a copy, same bytes", () => {
  const buf = new Uint8Array(64).map((_, i) => i);
  const parts = [buf.subarray(4, 10), buf.subarray(10, 11), buf.subarray(11, 30)];
  const view = joinBytes(parts, 26);
  assert.equal(view.buffer, buf.buffer);
  assert.deepEqual([...view], [...buf.subarray(4, 30)]);
  const gap = [buf.subarray(4, 10), buf.subarray(12, 20)];
  const other = [buf.subarray(4, 10), new Uint8Array([99, 98])];
  for (
    const [ps, want] of [[gap, [...buf.subarray(4, 10), ...buf.subarray(12, 20)]], [other, [
      4,
      5,
      6,
      7,
      8,
      9,
      99,
      98,
    ]]] as const
  ) {
    const out = joinBytes([...ps], want.length);
    assert.notEqual(out.buffer, buf.buffer);
    assert.deepEqual([...out], want);
  }
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
