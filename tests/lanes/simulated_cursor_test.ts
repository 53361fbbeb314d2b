/** The simulated lane's crash-safe script cursor: applied writes are skipped, a torn append is cut back once. */
import assert from "node:assert/strict";
import { readCursor, type ScriptWrite, ScriptWriter } from "../../src/lanes/simulated_cursor.ts";
import { writeTotals } from "../../src/util/read_meter.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("a continuing writer skips applied writes and redoes a pending append exactly once", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/log.txt`;
  const first = `${dir.path}/cursor/01.1.json`;
  const w1 = await ScriptWriter.open({ path: first, continueFrom: null, previous: null }, 1);
  await w1.apply({ path: file, text: "one\n", append: true });
  assert.deepEqual(
    await readCursor(first),
    { script: 1, applied: 0, pending: { index: 0, path: file, size: 0 } },
    "an append is recorded before it is made, and stays pending after",
  );
  // The runner died right after the second append reached the file, before the cursor recorded it.
  await Deno.writeTextFile(
    first,
    JSON.stringify({ script: 1, applied: 1, pending: { index: 1, path: file, size: 4 } }),
  );
  await Deno.writeTextFile(file, "two\n", { append: true });

  const second = `${dir.path}/cursor/01.2.json`;
  const w2 = await ScriptWriter.open({ path: second, continueFrom: { path: first, attempt: 1 }, previous: null }, 2);
  assert.deepEqual(await readCursor(second), await readCursor(first), "the new cursor starts where the old stopped");
  await w2.apply({ path: file, text: "one\n", append: true }); // applied before the crash: skipped
  await w2.apply({ path: file, text: "two\n", append: true }); // pending: cut back to 4 bytes, then redone
  await w2.apply({ path: file, text: "three\n", append: true });
  assert.equal(await Deno.readTextFile(file), "one\ntwo\nthree\n");
  assert.deepEqual(await readCursor(second), { script: 1, applied: 2, pending: { index: 2, path: file, size: 8 } });
  assert.equal(w2.script, 1, "the recovery attempt continues script entry 1");
});

Deno.test("a pending write that never reached the file is applied once; a missing cursor replays from the start", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/log.txt`;
  const old = `${dir.path}/01.1.json`;
  await Deno.writeTextFile(file, "one\n");
  await Deno.writeTextFile(old, JSON.stringify({ script: 1, applied: 1, pending: { index: 1, path: file, size: 4 } }));
  const w = await ScriptWriter.open({
    path: `${dir.path}/01.2.json`,
    continueFrom: { path: old, attempt: 1 },
    previous: null,
  }, 2);
  await w.apply({ path: file, text: "one\n", append: true });
  await w.apply({ path: file, text: "two\n", append: true });
  assert.equal(await Deno.readTextFile(file), "one\ntwo\n");

  const fresh = `${dir.path}/fresh.txt`;
  const none = await ScriptWriter.open({
    path: `${dir.path}/02.2.json`,
    continueFrom: { path: `${dir.path}/nope.json`, attempt: 1 },
    previous: null,
  }, 2);
  await none.apply({ path: fresh, text: "x\n", append: true });
  assert.equal(await Deno.readTextFile(fresh), "x\n");
});

Deno.test("the attempt after a recovered one plays the next script entry, not one numbered like the attempt", async () => {
  await using dir = await tempDir();
  const crashed = `${dir.path}/01.1.json`;
  await Deno.writeTextFile(crashed, JSON.stringify({ script: 1, applied: 0, pending: null }));
  const recovered = await ScriptWriter.open({
    path: `${dir.path}/01.2.json`,
    continueFrom: { path: crashed, attempt: 1 },
    previous: null,
  }, 2);
  assert.equal(recovered.script, 1);
  const repair = await ScriptWriter.open({
    path: `${dir.path}/01.3.json`,
    continueFrom: null,
    previous: `${dir.path}/01.2.json`,
  }, 3);
  assert.equal(repair.script, 2, "attempt 3 plays simulate.attempts[1]");
  const plain = await ScriptWriter.open({
    path: `${dir.path}/02.4.json`,
    continueFrom: null,
    previous: `${dir.path}/none.json`,
  }, 4);
  assert.equal(plain.script, 4, "without a previous cursor the entry is numbered like the attempt");
});

Deno.test("readCursor(): absent reads as nothing applied; a cursor path that cannot be read is an error naming it", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/01.1.json`;
  assert.deepEqual(await readCursor(path), { script: null, applied: 0, pending: null });
  await Deno.mkdir(path);
  await assert.rejects(() => readCursor(path), (e: Error) => e.message.includes(path));
  await Deno.remove(path);
  await Deno.symlink(`${dir.path}/elsewhere.json`, path);
  await assert.rejects(() => readCursor(path), (e: Error) => e.message.includes(path));
});

Deno.test("an overwrite writes no cursor; an append writes one, before it lands; a plain start writes none", async () => {
  await using dir = await tempDir();
  const cursor = `${dir.path}/cursor/01.1.json`;
  const before = writeTotals("simulated cursor");
  const w = await ScriptWriter.open({ path: cursor, continueFrom: null, previous: null }, 1);
  await w.apply({ path: `${dir.path}/out/a.txt`, text: "a\n", append: false });
  assert.equal(writeTotals("simulated cursor") - before, 0, "a trivial prompt's one overwrite writes no cursor");
  assert.equal(await readCursor(cursor).then((c) => c.applied), 0);
  await assert.rejects(() => Deno.stat(`${dir.path}/cursor`), Deno.errors.NotFound, "not even its directory");
  await w.apply({ path: `${dir.path}/out/log.txt`, text: "x\n", append: true });
  assert.equal(writeTotals("simulated cursor") - before, 1);
  assert.deepEqual(await readCursor(cursor), {
    script: 1,
    applied: 1,
    pending: { index: 1, path: `${dir.path}/out/log.txt`, size: 0 },
  });
  // A renumbered script is saved at once: a missing file would read as the attempt's own entry.
  const shifted = `${dir.path}/cursor/01.3.json`;
  await Deno.writeTextFile(`${dir.path}/cursor/01.2.json`, JSON.stringify({ script: 1, applied: 0, pending: null }));
  await ScriptWriter.open({ path: shifted, continueFrom: null, previous: `${dir.path}/cursor/01.2.json` }, 3);
  assert.deepEqual(await readCursor(shifted), { script: 2, applied: 0, pending: null });
});

/** A script of overwrites and appends, some to the same file. */
function script(root: string): ScriptWrite[] {
  return [
    { path: `${root}/a.txt`, text: "A1", append: false },
    { path: `${root}/log.txt`, text: "1\n", append: true },
    { path: `${root}/a.txt`, text: "A22", append: false },
    { path: `${root}/log.txt`, text: "2\n", append: true },
    { path: `${root}/a.txt`, text: "+", append: true },
    { path: `${root}/b.txt`, text: "B", append: false },
    { path: `${root}/log.txt`, text: "3\n", append: true },
  ];
}

Deno.test("a script killed after any write, and its continuation killed after any write, ends as if never killed", async () => {
  const writes = script("").length;
  for (let first = 0; first < writes; first++) {
    for (let second = -1; second < writes; second++) {
      await using dir = await tempDir();
      const at = (n: number) => `${dir.path}/simulated/01.${n}.json`;
      const steps = script(`${dir.path}/w`);
      const w1 = await ScriptWriter.open({ path: at(1), continueFrom: null, previous: null }, 1);
      for (const s of steps.slice(0, first + 1)) await w1.apply(s);
      // Killed here; the recovery continues attempt 1 (and is itself killed after its write `second`, -1: never).
      let from = { path: at(1), attempt: 1 };
      if (second >= 0) {
        const w2 = await ScriptWriter.open({ path: at(2), continueFrom: from, previous: null }, 2);
        for (const s of steps.slice(0, second + 1)) await w2.apply(s);
        from = { path: at(2), attempt: 2 };
      }
      const last = await ScriptWriter.open({ path: at(3), continueFrom: from, previous: null }, 3);
      for (const s of steps) await last.apply(s);
      const read = (n: string) => Deno.readTextFile(`${dir.path}/w/${n}`);
      const got = [await read("a.txt"), await read("log.txt"), await read("b.txt")];
      assert.deepEqual(got, ["A22+", "1\n2\n3\n", "B"], `killed after write ${first}, then after ${second}`);
      assert.equal(last.script, 1);
    }
  }
});

Deno.test("the cursor's directory is made from the store root at the first cursor write, never through a link", async () => {
  await using dir = await tempDir();
  const root = `${dir.path}/store`;
  await Deno.mkdir(`${root}/runs/R1`, { recursive: true });
  const path = `${root}/runs/R1/simulated/01.1.json`;
  const w = await ScriptWriter.open({ path, continueFrom: null, previous: null, storeRoot: root }, 1);
  await w.apply({ path: `${dir.path}/a.txt`, text: "a", append: false });
  await assert.rejects(() => Deno.lstat(`${root}/runs/R1/simulated`), Deno.errors.NotFound, "no cursor, no directory");
  await w.apply({ path: `${dir.path}/log.txt`, text: "x\n", append: true });
  assert.equal((await readCursor(path)).pending?.index, 1);

  await Deno.mkdir(`${dir.path}/elsewhere`);
  await Deno.symlink(`${dir.path}/elsewhere`, `${root}/runs/R1/planted`);
  const linked = await ScriptWriter.open({
    path: `${root}/runs/R1/planted/01.2.json`,
    continueFrom: null,
    previous: null,
    storeRoot: root,
  }, 2);
  await assert.rejects(() => linked.apply({ path: `${dir.path}/log.txt`, text: "y\n", append: true }));
  assert.deepEqual([...Deno.readDirSync(`${dir.path}/elsewhere`)], [], "nothing written through the link");
});

Deno.test("a continuation killed before it wrote its cursor is continued from where the attempt it continued stood", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/log.txt`;
  // Attempt 1 played script entry 1: one append applied, a second pending when it was killed.
  const a1 = `${dir.path}/01.1.json`;
  await Deno.writeTextFile(a1, JSON.stringify({ script: 1, applied: 1, pending: { index: 1, path: file, size: 4 } }));
  await Deno.writeTextFile(file, "one\n");
  // Attempt 2 continued attempt 1 and was killed before its session opened: no cursor of its own.
  const a2 = `${dir.path}/01.2.json`;
  const a3 = `${dir.path}/01.3.json`;
  const continued = { path: a2, attempt: 2, origins: [{ path: a1, attempt: 1 }] };
  const w = await ScriptWriter.open({ path: a3, continueFrom: continued, previous: null }, 3);
  assert.equal(w.script, 1, "script entry 1, not an entry numbered like attempt 2");
  await w.apply({ path: file, text: "one\n", append: true }); // applied: skipped
  await w.apply({ path: file, text: "two\n", append: true }); // pending: done once
  assert.equal(await Deno.readTextFile(file), "one\ntwo\n");
  // Without the origins the missing cursor reads as attempt 2's own script (what a plain attempt 2 would play).
  const bare = await ScriptWriter.open({
    path: `${dir.path}/01.4.json`,
    continueFrom: { path: a2, attempt: 2 },
    previous: null,
  }, 4);
  assert.equal(bare.script, 2);
});
