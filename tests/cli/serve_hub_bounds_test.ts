/**
 * The memory bounds of `control serve`'s shared follower (src/cli/serve/hub.ts, server.ts), by design rather than by
 * timing: the ring holds at most its byte bound (frames plus their index), a client that stops reading holds only its
 * cursor while the hub moves on and then catches up from the file, a young run's hub holds it from seq 1 so clients
 * from the start share its bytes, closed clients release their streams and the hub, and an idle run costs the hub a
 * read per poll, not a loop.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { waitFor, within } from "../support/wait.ts";
import { RUN_ID } from "../control/_harness.ts";
import { fallbackEnd, hubRun } from "./_hub_support.ts";
import { EventHub } from "../../src/cli/serve/hub.ts";
import { hubFrames } from "../../src/cli/serve/hub_frames.ts";
import { startServer } from "../../src/cli/serve/server.ts";
import { TokenTable } from "../../src/cli/serve/tokens.ts";
import type { SseFrame } from "../../src/cli/serve/sse.ts";

const ids = (v: SseFrame | Uint8Array): number[] =>
  v instanceof Uint8Array ? [...new TextDecoder().decode(v).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])) : [];

Deno.test("hub bounds: the ring stays within its byte bound while a client that stopped reading keeps only its cursor, then gets every seq", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const bound = 16 * 1024;
  const hub = new EventHub({ storeRoot, runId: RUN_ID }, { bytes: bound });
  const ac = new AbortController();
  try {
    await waitFor(async () => {
      await record(1);
      return hub.edge() >= 1;
    }, { what: "the hub to follow the stream" });
    const client = hubFrames(hub, "start", ac.signal, fallbackEnd)[Symbol.asyncIterator]();
    const got = ids((await client.next()).value!);
    assert.ok(got.length > 0 && got[0] === 1);
    // The client reads nothing more while the run writes many times the ring's bound.
    let peak = 0;
    for (let b = 0; b < 40; b++) {
      await record(25);
      peak = Math.max(peak, hub.held.cost);
    }
    await waitFor(() => hub.edge() >= 1000, { what: "the hub to take every event" });
    const largest = 64 * 1024 + 1024; // one chunk (a read, at most 64 KiB and a frame) may exceed the bound alone
    assert.ok(peak <= bound + largest, `the ring held ${peak} bytes (bound ${bound})`);
    assert.ok(hub.held.frames < hub.edge(), "the oldest frames left the ring");
    assert.equal(hub.batch(0), "behind", "the slow client's position is no longer in the ring");
    await plane.close("completed", null);
    for (let r = await client.next(); !r.done; r = await client.next()) got.push(...ids(r.value));
    assert.deepEqual(got, got.map((_, i) => i + 1), "every seq once, in order, read back from the file");
    assert.ok(got.length > 1000);
  } finally {
    ac.abort();
    hub.close();
    await lease.release();
  }
});

Deno.test("hub bounds: a young run's hub reads it from seq 1, so a client from the start is served the ring's bytes", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const ac = new AbortController();
  await record(5);
  const hub = new EventHub({ storeRoot, runId: RUN_ID }, undefined, "start");
  try {
    await waitFor(() => hub.caughtUp && hub.edge() >= 5, { what: "the hub to read the run from its start" });
    const whole = hub.batch(0);
    assert.ok(typeof whole !== "string");
    assert.equal(ids(whole.bytes)[0], 1);
    const value = (await hubFrames(hub, "start", ac.signal, fallbackEnd)[Symbol.asyncIterator]().next()).value;
    assert.strictEqual(value, whole.bytes, "the ring's bytes, not a read of its own");
    // A client from "current" starts past what the hub read, not at the start of its ring.
    const current = hubFrames(hub, "current", ac.signal, fallbackEnd)[Symbol.asyncIterator]();
    const first = current.next();
    await record(2);
    const fresh = ids((await first).value!);
    assert.ok(fresh.length > 0 && fresh[0]! > ids(whole.bytes).at(-1)!, `from=current got ${fresh.join(",")}`);
  } finally {
    ac.abort();
    hub.close();
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("serve bounds: closed clients release their streams and the run's shared follower", async () => {
  await using tmp = await tempDir();
  const storeRoot = `${tmp.path}/.prompt_runner`;
  const { lease, plane, record } = await hubRun(storeRoot);
  const token = "t".repeat(32);
  const srv = await startServer({
    targets: [{ id: "p", kind: "packet", packetDir: tmp.path, storeRoot }],
    tokens: await TokenTable.of([[token, { name: "reader", role: "read" }]]),
    hostname: "127.0.0.1",
    port: 0,
  });
  const acs = [new AbortController(), new AbortController(), new AbortController()];
  try {
    const bodies = await Promise.all(acs.map(async (ac) => {
      const r = await fetch(new URL("/api/v1/targets/p/events", srv.url), {
        headers: { authorization: `Bearer ${token}` },
        signal: ac.signal,
      });
      assert.equal(r.status, 200);
      return r.body!.getReader();
    }));
    await record(3);
    for (const b of bodies) assert.ok(!(await b.read()).done);
    assert.equal(srv.streams(), 3);
    assert.equal(srv.hubs(), 1, "one shared follower for the three clients");
    for (const [i, ac] of acs.entries()) {
      ac.abort();
      await bodies[i]!.cancel().catch(() => {});
    }
    await waitFor(() => srv.streams() === 0 && srv.hubs() === 0, { what: "every stream and the hub released" });
  } finally {
    for (const ac of acs) ac.abort();
    await srv.shutdown();
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("hub bounds: on an idle live run the shared follower reads once per poll, not in a loop woken by its own snapshot reads", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const hub = new EventHub({ storeRoot, runId: RUN_ID });
  const ac = new AbortController();
  try {
    await waitFor(async () => {
      await record(1);
      return hub.edge() >= 1;
    }, { what: "the hub to follow the stream" });
    // The hub wakes its clients after every read of the stream, so counting wakes counts its reads. It polls every
    // 500 ms; a follower woken by its own reads (the bug this guards) read thousands of times in the same window.
    let reads = 0;
    const counting = (async () => {
      while (!ac.signal.aborted) {
        await hub.changed(ac.signal);
        reads += 1;
      }
    })();
    await within(new Promise<never>(() => {}), 2_000, null); // the window observed: the run writes nothing in it
    ac.abort();
    await counting;
    assert.ok(reads <= 20, `${reads} reads of an idle run in 2 s`);
  } finally {
    ac.abort();
    hub.close();
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("hub: a seq is found in a chunk where a gap item shifts the frames after it", async () => {
  await using tmp = await tempDir();
  const storeRoot = tmp.path;
  const { lease, plane, record } = await hubRun(storeRoot);
  const hub = new EventHub({ storeRoot, runId: RUN_ID });
  try {
    await waitFor(async () => {
      await record(1);
      return hub.edge() >= 1;
    }, { what: "the hub to follow the stream" });
    // Two lines after a hole in the seqs, in one write: one read, one chunk [gap, n+3, n+4].
    const events = `${storeRoot}/control/events.jsonl`;
    const last = JSON.parse((await Deno.readTextFile(events)).trimEnd().split("\n").at(-1)!) as { seq: number };
    const line = (seq: number) => JSON.stringify({ ...last, seq });
    await waitFor(() => hub.indexFor(last.seq + 1) === hub.edge(), { what: "the hub to hold the last line" });
    const at = hub.edge();
    await Deno.writeTextFile(events, `${line(last.seq + 3)}\n${line(last.seq + 4)}\n`, { append: true });
    await waitFor(() => hub.edge() >= at + 3, { what: "the gap and the two lines in the hub" });
    assert.equal(hub.indexFor(last.seq + 3), at + 1);
    assert.equal(hub.indexFor(last.seq + 4), at + 2);
    assert.equal(hub.indexFor(last.seq + 1), null, "a seq the gap skipped is not there");
  } finally {
    hub.close();
    await plane.close("completed", null);
    await lease.release();
  }
});
