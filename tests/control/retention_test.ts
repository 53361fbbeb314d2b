/**
 * Retention of earlier runs' event archives (docs/reference/control-plane.md §5.5): applied when a plane opens,
 * whole runs newest first, by count and by size, never the opening run's own segments, and on the record (one
 * `retention` entry in the audit log and a notice).
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { storePaths } from "../../src/store/paths.ts";
import { DEFAULT_RETENTION } from "../../src/control/retention.ts";

/** Earlier runs' archives, oldest first, `size` bytes each (the third also has a sealed segment). */
async function seedArchives(store: string, count: number, size = 1000): Promise<string[]> {
  const p = storePaths(store);
  await Deno.mkdir(p.eventsArchive, { recursive: true });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `20261101T${String(100000 + i).slice(1)}0Z-OLD${String(i).padStart(3, "0")}`;
    ids.push(id);
    const files = [p.archivedEvents(id)];
    if (i === 2) files.push(p.eventSegment(id, 1));
    for (const f of files) {
      await Deno.writeTextFile(f, "x".repeat(size - 1) + "\n");
      const t = new Date(Date.UTC(2026, 10, 1, 0, i));
      await Deno.utime(f, t, t);
    }
  }
  // The opening run's own sealed segment, older than everything: never pruned.
  await Deno.writeTextFile(p.eventSegment(RUN_ID, 1), "{}\n");
  await Deno.utime(p.eventSegment(RUN_ID, 1), new Date(0), new Date(0));
  return ids;
}

function remaining(store: string): string[] {
  return [...Deno.readDirSync(storePaths(store).eventsArchive)].map((e) => e.name).sort();
}

async function retentionEntries(store: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(storePaths(store).log).catch(() => "");
  return text.split("\n").filter((l) => l).map((l) => JSON.parse(l)).filter((e) => e.command === "retention");
}

Deno.test("opening a run keeps the newest N earlier runs' archives, logs and announces what it removed", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const ids = await seedArchives(store, 5);
  const { plane, hooks } = await testPlane(store, { retention: { keepRuns: 2, keepBytes: Infinity } });
  await plane.close("completed", null);
  assert.deepEqual(remaining(store), [`${ids[3]}.jsonl`, `${ids[4]}.jsonl`, `${RUN_ID}.000001.jsonl`]);
  const [entry, ...more] = await retentionEntries(store);
  assert.equal(more.length, 0);
  assert.equal(entry?.outcome, "applied");
  assert.equal(entry?.author, "runner");
  assert.equal(entry?.run_id, RUN_ID);
  const pruned = (entry?.params as { pruned: { run_id: string; files: number; bytes: number }[] }).pruned;
  assert.deepEqual(pruned.map((r) => r.run_id), [ids[0], ids[1], ids[2]]);
  assert.deepEqual(pruned.map((r) => r.files), [1, 1, 2], "a run goes with all its segments");
  assert.ok(hooks.notices.some((n) => /pruned the event archives of 3 earlier runs /.test(n.text)), "announced");
});

Deno.test("a size cap drops the oldest runs first and never leaves an older run behind a dropped one", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const ids = await seedArchives(store, 4, 1000);
  // 2,500 bytes: the newest (1,000) fits; the next holds 2,000 (a segment too) and does not; the two older ones
  // would fit in what is left, but are dropped too: what is kept is always the newest runs, without a hole.
  const { plane } = await testPlane(store, { retention: { keepRuns: 20, keepBytes: 2500 } });
  await plane.close("completed", null);
  assert.deepEqual(remaining(store), [`${ids[3]}.jsonl`, `${RUN_ID}.000001.jsonl`]);
  // Nothing to prune: no entry, no notice.
  const again = await testPlane(store, { retention: { keepRuns: 20, keepBytes: 2500 }, resumed: true });
  await again.plane.close("completed", null);
  assert.equal((await retentionEntries(store)).length, 1);
  assert.equal(again.hooks.notices.filter((n) => /pruned/.test(n.text)).length, 0);
});

Deno.test("the default keeps the 20 newest earlier runs", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const ids = await seedArchives(store, 23, 10);
  assert.equal(DEFAULT_RETENTION.keepRuns, 20);
  const { plane } = await testPlane(store);
  await plane.close("completed", null);
  const left = remaining(store);
  assert.equal(left.length, 21, "20 runs plus the live run's segment");
  for (const id of ids.slice(0, 3)) assert.ok(!left.some((n) => n.startsWith(id)), `${id} pruned`);
});
