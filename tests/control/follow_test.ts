import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { followRun, type StreamItem } from "../../src/control/follow.ts";
import { LineReader, rawLineOf } from "../../src/control/tail.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { subscribe } from "../../src/control/mod.ts";
import { openCount, waitFor } from "../support/wait.ts";

const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: null };

function notice(i: number) {
  return { type: "notice" as const, data: { level: "info" as const, code: "n", message: `m${i}` } };
}

async function collect(it: AsyncIterable<StreamItem>, limit = 10_000, out: StreamItem[] = []): Promise<StreamItem[]> {
  for await (const x of it) {
    out.push(x);
    if (out.length >= limit) break;
  }
  return out;
}

/** Collect in the background: `items` grows as they arrive, `done` resolves with all of them. */
function collecting(it: AsyncIterable<StreamItem>): { items: StreamItem[]; done: Promise<StreamItem[]> } {
  const items: StreamItem[] = [];
  return { items, done: collect(it, 10_000, items) };
}

/** Wait until this process holds one more descriptor on `path` than `before` (a follower opened it). */
async function opened(path: string, before: number): Promise<void> {
  await waitFor(async () => await openCount(Deno.pid, path) > before, { what: `a follower opening ${path}` });
}

Deno.test("followRun() replays from start, follows live appends and ends with run_finished", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane } = await testPlane(store);
  try {
    plane.record(notice(1), ctx);
    await plane.sync();
    const got = collecting(followRun(store, RUN_ID, { pollMs: 20 }));
    for (let i = 2; i <= 5; i++) {
      // Each append lands while the follower waits at the end of what it has delivered (seq i).
      await waitFor(() => got.items.some((e) => e.seq === i), { what: `seq ${i} delivered` });
      plane.record(notice(i), ctx);
      plane.boundary();
    }
    await plane.close("completed", null);
    const items = await got.done;
    assert.deepEqual(items.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7]);
    assert.equal(items.at(-1)!.type, "run_finished");
    assert.equal((items.at(-1)!.data as { status: string }).status, "completed");
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("followRun() cursors: number, current, run:seq of another run (resync rotated), ahead (resync)", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane, paths } = await testPlane(store);
  try {
    for (let i = 0; i < 4; i++) plane.record(notice(i), ctx);
    await plane.sync();
    const fromThree = await collect(followRun(store, RUN_ID, { from: 3, follow: false }));
    assert.deepEqual(fromThree.map((e) => e.seq), [3, 4, 5]);
    const ahead = await collect(followRun(store, RUN_ID, { from: 99, follow: false }));
    assert.equal(ahead[0]!.type, "resync");
    assert.equal((ahead[0]!.data as { reason: string }).reason, "cursor_ahead");
    assert.deepEqual(ahead.slice(1).map((e) => e.seq), [1, 2, 3, 4, 5]);
    const rotated = await collect(
      followRun(store, RUN_ID, { from: { runId: "20260101T000000Z-AAAAAA", seq: 7 }, follow: false }),
    );
    assert.deepEqual(rotated[0], {
      type: "resync",
      data: {
        reason: "rotated",
        cursor: { runId: "20260101T000000Z-AAAAAA", seq: 7 },
        run_id: RUN_ID,
        first_seq: 1,
      },
    });
    const sameRun = await collect(followRun(store, RUN_ID, { from: { runId: RUN_ID, seq: 5 }, follow: false }));
    assert.deepEqual(sameRun.map((e) => e.seq), [5]);
    // "current": only what arrives after subscribing.
    const before = await openCount(Deno.pid, paths.events);
    const cur = collect(followRun(store, RUN_ID, { from: "current", pollMs: 20 }));
    await opened(paths.events, before);
    plane.record(notice(9), ctx);
    await plane.close("completed", null);
    assert.deepEqual((await cur).map((e) => e.seq), [6, 7]);
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("followRun() ends with a synthetic abandoned run_finished when the runner dies", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane } = await testPlane(store);
  plane.record(notice(1), ctx);
  await plane.sync();
  const got = collecting(followRun(store, RUN_ID, { pollMs: 20 }));
  await waitFor(() => got.items.length >= 2, { what: "the follower live at the end of the stream" });
  // The runner "dies": the lease lock drops while the snapshot still says running.
  const pid = `${store}/run.pid`;
  const pidText = await Deno.readTextFile(pid);
  await lease.release();
  await Deno.writeTextFile(pid, pidText);
  const items = await got.done;
  assert.deepEqual(items.map((e) => e.seq), [1, 2, null]);
  assert.equal(items.at(-1)!.type, "run_finished");
  assert.equal((items.at(-1)!.data as { status: string }).status, "abandoned");
  await plane.close("failed", null);
});

Deno.test("followRun() drains a rotated-away run from its archive", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const first = await testPlane(store);
  first.plane.record(notice(1), ctx);
  await first.plane.close("completed", null);
  const second = await testPlane(store, { runId: "20261130T130000Z-BBBBBB" });
  try {
    const items = await collect(followRun(store, RUN_ID, { pollMs: 20 }));
    assert.deepEqual(items.map((e) => e.seq), [1, 2, 3]);
    assert.equal(items.at(-1)!.type, "run_finished");
    // The API replays the earlier run from its archive too.
    const viaApi = await collect(subscribe({ storeRoot: store, runId: RUN_ID }));
    assert.equal(viaApi.length, 3);
  } finally {
    await second.plane.close("completed", null);
    await lease.release();
  }
});

Deno.test("LineReader buffers torn lines, keeps split UTF-8 intact and skips undecodable lines", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/e.jsonl`;
  const enc = new TextEncoder();
  const line1 = enc.encode(JSON.stringify({ seq: 1, text: "héllo €" }) + "\n");
  await Deno.writeFile(path, new Uint8Array(0));
  const reader = LineReader.open(path)!;
  try {
    // Write the line byte by byte; nothing is delivered until its newline, and the € survives the split.
    const got: Record<string, unknown>[] = [];
    for (const b of line1) {
      await Deno.writeFile(path, new Uint8Array([b]), { append: true });
      for (;;) {
        const { items, eof } = reader.readChunk();
        got.push(...items);
        if (eof) break;
      }
      if (b !== 0x0a) assert.equal(got.length, 0);
    }
    assert.deepEqual(got, [{ seq: 1, text: "héllo €" }]);
    await Deno.writeFile(path, new Uint8Array([0xff, 0xfe, 0x0a]), { append: true });
    await Deno.writeFile(path, enc.encode('not json\n[1]\n{"seq":2}\n'), { append: true });
    const more: Record<string, unknown>[] = [];
    for (;;) {
      const { items, eof } = reader.readChunk();
      more.push(...items);
      if (eof) break;
    }
    assert.deepEqual(more, [{ seq: 2 }]);
  } finally {
    reader.close();
  }
});

Deno.test("LineReader: a line with an invalid byte inside its JSON is skipped, one with a written U+FFFD is kept", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/e.jsonl`;
  const enc = new TextEncoder();
  const kept = JSON.stringify({ seq: 2, text: "a \uFFFD b" });
  const bad = enc.encode('{"seq":1,"text":"x y"}\n');
  bad[bad.indexOf(0x20)] = 0xff; // valid JSON once a decoder has replaced the byte: it must not be delivered
  const parts = [enc.encode('{"seq":0}\n'), bad, enc.encode(kept + "\n"), enc.encode('{"seq":3}\n')];
  await Deno.writeFile(path, new Uint8Array(parts.flatMap((p) => [...p])));
  const reader = LineReader.open(path, "start", true)!;
  try {
    const got: Record<string, unknown>[] = [];
    for (;;) {
      const { items, eof } = reader.readChunk();
      got.push(...items);
      if (eof) break;
    }
    assert.deepEqual(got.map((i) => i.seq), [0, 2, 3]);
    assert.equal(got[1]!.text, "a \uFFFD b");
    assert.equal(rawLineOf(got[1]!), kept);
  } finally {
    reader.close();
  }
  // Only replaced characters, valid UTF-8 throughout: the whole read is kept.
  const only = `${tmp.path}/f.jsonl`;
  await Deno.writeTextFile(only, JSON.stringify({ seq: 1, text: "\uFFFD" }) + "\n");
  const r2 = LineReader.open(only)!;
  try {
    assert.deepEqual(r2.readChunk().items, [{ seq: 1, text: "\uFFFD" }]);
  } finally {
    r2.close();
  }
});

Deno.test("subscribe() stops when the signal aborts", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  const { plane } = await testPlane(store);
  try {
    await plane.sync();
    const ac = new AbortController();
    const got = collecting(subscribe({ storeRoot: store, runId: RUN_ID }, { signal: ac.signal, pollMs: 5000 }));
    await waitFor(() => got.items.length >= 1, { what: "run_opened delivered" });
    ac.abort();
    const items = await got.done;
    assert.deepEqual(items.map((e) => e.type), ["run_opened"]);
  } finally {
    await plane.close("completed", null);
    await lease.release();
  }
});
