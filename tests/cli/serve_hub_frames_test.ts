/**
 * The streaming mechanisms of `control serve`'s hub (src/cli/serve/hub.ts) and the follower under it
 * (src/control/follow.ts): a frame is the event's line exactly as written, a coalesced follower still delivers every
 * seq once in order, clients in step share one byte array, and a client that leaves stops waiting on the hub.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../support/fs.ts";
import { waitFor, within } from "../support/wait.ts";
import { RUN_ID } from "../control/_harness.ts";
import { fallbackEnd, HUB_CTX, hubRun } from "./_hub_support.ts";
import { LineReader } from "../../src/control/tail.ts";
import { followRun } from "../../src/control/follow.ts";
import { EventHub } from "../../src/cli/serve/hub.ts";
import { hubFrames } from "../../src/cli/serve/hub_frames.ts";
import { itemFrame } from "../../src/cli/serve/frames.ts";
import type { SseFrame } from "../../src/cli/serve/sse.ts";

Deno.test("hub frame: the data is the line exactly as written, not a re-serialisation; a synthetic item is serialised", async () => {
  await using tmp = await tempDir();
  const path = join(tmp.path, "events.jsonl");
  const line = `{"seq": 3,  "type":"message_streamed" , "data":{"b":1,"a":"\\u00e9"}}`;
  await Deno.writeTextFile(path, `${line}\n`);
  const raw = LineReader.open(path, "start", true)!;
  const plain = LineReader.open(path, "start")!;
  try {
    const [item] = raw.readChunk().items;
    assert.equal(new TextDecoder().decode(itemFrame(item!)), `id: 3\ndata: ${line}\n\n`);
    const [copy] = plain.readChunk().items;
    assert.equal(new TextDecoder().decode(itemFrame(copy!)), `id: 3\ndata: ${JSON.stringify(copy)}\n\n`);
    const gap = { type: "gap", seq: null, data: { from_seq: 1 } };
    assert.equal(new TextDecoder().decode(itemFrame(gap)), `data: ${JSON.stringify(gap)}\n\n`);
  } finally {
    raw.close();
    plain.close();
  }
});

Deno.test("follow: a coalescing follower (one read per 40 ms at most) delivers every seq once, in order, through run_finished", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane } = await hubRun(storeRoot);
  const ctx = HUB_CTX;
  try {
    let idles = 0;
    const seqs: number[] = [];
    const follower = (async () => {
      const opts = { from: "start" as const, pollMs: 200, coalesceMs: 40, rawLines: true, onIdle: () => idles++ };
      for await (const item of followRun(storeRoot, RUN_ID, opts)) {
        if (typeof item.seq === "number") seqs.push(item.seq);
      }
    })();
    for (let b = 0; b < 20; b++) {
      for (let i = 0; i < 50; i++) plane.record({ type: "message_streamed", data: { delta: `m${b}.${i} ` } }, ctx);
      plane.boundary();
      await plane.sync();
    }
    await plane.close("completed", null);
    await follower;
    assert.ok(seqs.length > 1000, `every message and the run's own events (${seqs.length})`);
    assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "every seq once, in order");
    assert.ok(idles < seqs.length / 10, `reads are batched (${idles} idles for ${seqs.length} events)`);
  } finally {
    await lease.release();
  }
});

Deno.test("hub: clients in step share one byte array per batch, and a client that leaves stops waiting on the hub", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const hub = new EventHub({ storeRoot, runId: RUN_ID });
  const fallback = fallbackEnd;
  const acs = [new AbortController(), new AbortController(), new AbortController()];
  try {
    // The hub follows from the end of the stream once it is open: record until it has taken something.
    await waitFor(async () => {
      await record(1);
      return hub.edge() >= 1;
    }, { what: "the hub to follow the stream" });
    const [a, b, c] = acs.map((ac) => hubFrames(hub, "current", ac.signal, fallback)[Symbol.asyncIterator]());
    const pa = a!.next();
    const pb = b!.next();
    const pc = c!.next();
    await waitFor(() => hub.waiting === 3, { what: "three clients waiting" });
    acs[2]!.abort();
    await waitFor(() => hub.waiting === 2, { what: "the aborted client to stop waiting" });
    await pc;
    const at = hub.edge();
    await record(10);
    const [va, vb] = [(await pa).value, (await pb).value];
    assert.ok(va instanceof Uint8Array && vb instanceof Uint8Array);
    assert.strictEqual(va, vb, "the same bytes, not a copy per client");
    // Several frames already there: one byte array holding them all, built once for every client asking.
    await waitFor(() => hub.edge() >= at + 10, { what: "the hub to take the ten events" });
    const one = hub.batch(at);
    const two = hub.batch(at);
    assert.ok(typeof one !== "string" && one.end - one.start >= 10);
    assert.strictEqual(one, two);
    assert.equal((new TextDecoder().decode(one.bytes).match(/^id: /gm) ?? []).length, one.end - one.start);
  } finally {
    for (const ac of acs) ac.abort();
    hub.close();
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("hub: a client that caught up from the start waits on the hub (no follower of its own), and gets every seq once through end", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const hub = new EventHub({ storeRoot, runId: RUN_ID });
  const fallback = fallbackEnd;
  const ac = new AbortController();
  try {
    await record(3);
    await waitFor(async () => {
      await record(1);
      return hub.edge() >= 1;
    }, { what: "the hub to follow the stream" });
    const client = hubFrames(hub, "start", ac.signal, fallback)[Symbol.asyncIterator]();
    const ids: number[] = [];
    let last = "";
    const take = (v: SseFrame | Uint8Array) => {
      const text = v instanceof Uint8Array ? new TextDecoder().decode(v) : `event: ${v.event}\n`;
      for (const m of text.matchAll(/^id: (\d+)$/gm)) ids.push(Number(m[1]));
      last = text;
    };
    // The client reads what is there from seq 1 (before the hub's first frame) on its own, then waits on the hub.
    let pending = client.next();
    await waitFor(async () => {
      const r = await within(pending, 50, null);
      if (r === null) return hub.waiting === 1;
      take(r.value!);
      pending = client.next();
      return false;
    }, { what: "the caught-up client to wait on the hub" });
    await record(5);
    await plane.close("completed", null);
    for (let r = await pending; !r.done; r = await client.next()) take(r.value);
    assert.deepEqual(ids, ids.map((_, i) => i + 1), "every seq once, in order");
    assert.ok(ids.length >= 10);
    assert.match(last, /^event: end/);
    assert.doesNotMatch(last, /fallback/);
  } finally {
    ac.abort();
    hub.close();
    await lease.release();
  }
});
