/**
 * Spare attempt files (src/run/spare_files.ts, docs/bench.md "Eighth pass"): an attempt's log and events files are
 * named by a link to a file made ahead, not created at the attempt's start. Counted, not timed: the create-new opens
 * an attempt's start makes, and what is left in `logs/`.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { createAttemptLog } from "../../src/run/attempt.ts";
import { closeSpareFiles, openSpareFiles } from "../../src/run/spare_files.ts";
import { StoreIntegrityError } from "../../src/util/safe_fs.ts";
import { runScalePacket } from "./_scale_run.ts";

/** Run `fn` counting the create-new opens it makes. */
function creates<T>(fn: () => T): { value: T; creates: number } {
  const openSync = Deno.openSync;
  let n = 0;
  Deno.openSync = (path, opts) => {
    if (opts?.createNew) n++;
    return openSync(path, opts);
  };
  try {
    return { value: fn(), creates: n };
  } finally {
    Deno.openSync = openSync;
  }
}

Deno.test("an attempt's log is a spare made ahead, named by a link: no create at the attempt's start", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/.prompt_runner`;
  await Deno.mkdir(`${store}/logs`, { recursive: true, mode: 0o700 });
  const spares = openSpareFiles(store);
  try {
    await spares.settled();
    assert.equal(spares.ready, 2, "made at once when logs/ is there");
    const first = creates(() => createAttemptLog(store, "01", "20261202T000000Z", spares));
    assert.equal(first.creates, 0);
    first.value.file.writeSync(new TextEncoder().encode("header\n"));
    first.value.file.close();
    assert.equal(await Deno.readTextFile(first.value.log), "header\n", "the handle writes the named file");
    const info = await Deno.lstat(first.value.log);
    assert.ok(info.isFile && info.nlink === 1, "one name: the spare's is gone");
    assert.equal(info.mode! & 0o777, 0o600);
    // The same stamp again: the taken name is skipped (the spare kept), the next suffix takes it.
    const second = creates(() => createAttemptLog(store, "01", "20261202T000000Z", spares));
    second.value.file.close();
    assert.equal(second.creates, 0);
    assert.equal(second.value.rel, "logs/prompt-01-20261202T000000Z-2");
    assert.equal(spares.ready, 0);
    // None ready: the file is created as before (the two taken names tried first by their create-new opens).
    const third = creates(() => createAttemptLog(store, "01", "20261202T000000Z", spares));
    third.value.file.close();
    assert.equal(third.creates, 3);
    spares.refill();
    await spares.settled();
    assert.equal(spares.ready, 2, "made again");
  } finally {
    await closeSpareFiles(spares);
  }
  const left = [...Deno.readDirSync(`${store}/logs`)].map((e) => e.name).sort();
  assert.deepEqual(left, [
    "prompt-01-20261202T000000Z-2.log",
    "prompt-01-20261202T000000Z-3.log",
    "prompt-01-20261202T000000Z.log",
  ], "the spares are removed when the run closes");
});

Deno.test("a spare swapped for a link is refused by name; its target is never written", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/.prompt_runner`;
  await Deno.mkdir(`${store}/logs`, { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(`${dir.path}/target`, "keep\n");
  const spares = openSpareFiles(store);
  try {
    await spares.settled();
    for (const p of spares.paths) {
      await Deno.remove(p);
      await Deno.symlink(`${dir.path}/target`, p);
    }
    assert.throws(
      () => createAttemptLog(store, "01", "20261202T000000Z", spares),
      (e) => e instanceof StoreIntegrityError && e.path === `${store}/logs/prompt-01-20261202T000000Z.log`,
    );
  } finally {
    await closeSpareFiles(spares);
  }
  assert.equal(await Deno.readTextFile(`${dir.path}/target`), "keep\n");
});

Deno.test("a run names its attempts' files from spares, leaves none behind, and replaces a killed run's", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/p`;
  await writeScalePacket(pkt, 3);
  const openSync = Deno.openSync;
  let created = 0;
  Deno.openSync = (path, opts) => {
    if (opts?.createNew && /\/logs\/prompt-.*\.(log|events\.jsonl)$/.test(String(path))) created++;
    return openSync(path, opts);
  };
  try {
    await runScalePacket(pkt);
  } finally {
    Deno.openSync = openSync;
  }
  // The first prompt creates its two files (a new store has no logs/ to make spares in at the open); the next ones
  // take the spares made while the prompt before them recorded its result (the baseline's git query leaves time).
  assert.ok(created >= 2 && created < 6, `attempt files created at their attempt's start: ${created} of 6`);
  const logs = `${pkt}/.prompt_runner/logs`;
  const names = () => [...Deno.readDirSync(logs)].map((e) => e.name).sort();
  assert.deepEqual(names().filter((n) => n.startsWith(".")), [], "no spare is left by a run");
  assert.equal(names().filter((n) => n.endsWith(".log")).length, 3);
  // A killed run's spares (an empty file and a link) are removed and made again by the next run, then removed.
  await Deno.remove(`${pkt}/.prompt_runner/progress.log`);
  await Deno.writeTextFile(`${logs}/.spare-1`, "");
  await Deno.symlink(`${dir.path}/elsewhere`, `${logs}/.spare-2`);
  const spares = openSpareFiles(`${pkt}/.prompt_runner`);
  await spares.settled();
  assert.equal(spares.ready, 2);
  for (const p of spares.paths) assert.ok((await Deno.lstat(p)).isFile, p);
  await closeSpareFiles(spares);
  await runScalePacket(pkt);
  assert.deepEqual(names().filter((n) => n.startsWith(".")), []);
  assert.equal(names().filter((n) => n.endsWith(".events.jsonl")).length, 6, "every attempt has its events file");
  await assert.rejects(Deno.lstat(`${dir.path}/elsewhere`), Deno.errors.NotFound);
});
