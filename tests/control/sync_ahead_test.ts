/**
 * The events appender fsyncs a segment being filled ahead, off the runner's thread, so the seal's own fsync (which the
 * record needs before the rename) finds little left to write (docs/bench.md, "Control under full load").
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { EventAppender } from "../../src/control/event_log.ts";

async function linesOf(files: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) out.push(...(await Deno.readTextFile(f)).split("\n").filter((l) => l !== ""));
  return out;
}

/** Push `count` lines of about 1 KiB, flushing every 16 (and, with `settle`, letting a sync ahead end after each). */
async function fill(a: EventAppender, count: number, settle = false): Promise<string[]> {
  const lines: string[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const line = JSON.stringify({ seq, pad: "z".repeat(1000) });
    lines.push(line);
    a.push(line);
    if (seq % 16 === 0) {
      a.flush();
      if (settle) await a.syncedAheadIdle();
    }
  }
  a.flush();
  return lines;
}

Deno.test("a segment being filled is fsynced ahead every syncAheadBytes, across seals, losing no line", async () => {
  await using tmp = await tempDir();
  const live = `${tmp.path}/events.jsonl`;
  const sealed: string[] = [];
  const a = new EventAppender(live, false, {
    maxBytes: 100 * 1024,
    nextSegment: () => {
      const p = `${tmp.path}/seg.${sealed.length + 1}.jsonl`;
      sealed.push(p);
      return p;
    },
    syncAheadBytes: 32 * 1024,
  });
  const lines = await fill(a, 300, true); // ~300 KiB: two seals or more, about three syncs ahead in each segment
  await a.syncedAheadIdle();
  assert.ok(a.sealed >= 2, `sealed ${a.sealed}`);
  assert.ok(a.syncedAhead >= 2 * a.sealed, `synced ahead ${a.syncedAhead} times over ${a.sealed} sealed segments`);
  a.close();
  await a.syncedAheadIdle();
  assert.deepEqual(await linesOf([...sealed, live]), lines, "every line once, in order, across the segments");
});

Deno.test("no fsync ahead without a segment policy, with syncAheadBytes 0, or below the threshold", async () => {
  await using tmp = await tempDir();
  const cases: [string, ConstructorParameters<typeof EventAppender>[2]][] = [
    ["no policy", null],
    ["0", { maxBytes: 1 << 30, nextSegment: () => `${tmp.path}/never`, syncAheadBytes: 0 }],
    ["default (8 MiB)", { maxBytes: 1 << 30, nextSegment: () => `${tmp.path}/never` }],
  ];
  for (const [what, policy] of cases) {
    const a = new EventAppender(`${tmp.path}/${what}.jsonl`, false, policy);
    await fill(a, 300, true);
    assert.equal(a.syncedAhead, 0, what);
    a.close();
  }
});

Deno.test("a stream that never yields starts one fsync ahead at a time and still loses no line", async () => {
  await using tmp = await tempDir();
  const live = `${tmp.path}/events.jsonl`;
  const a = new EventAppender(live, false, {
    maxBytes: 1 << 30,
    nextSegment: () => `${tmp.path}/never`,
    syncAheadBytes: 32 * 1024,
  });
  const lines = await fill(a, 300); // ~300 KiB without a turn of the event loop
  assert.equal(a.syncedAhead, 1, "the first is still in flight: no second one is queued behind it");
  a.close();
  await a.syncedAheadIdle();
  assert.deepEqual(await linesOf([live]), lines);
});
