/** The simulated lane's crash-safe script cursor: applied writes are skipped, a torn append is cut back once. */
import assert from "node:assert/strict";
import { readCursor, ScriptWriter } from "../../src/lanes/simulated_cursor.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("a continuing writer skips applied writes and redoes a pending append exactly once", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/log.txt`;
  const first = `${dir.path}/cursor/01.1.json`;
  const w1 = await ScriptWriter.open({ path: first, continueFrom: null, previous: null }, 1);
  await w1.apply({ path: file, text: "one\n", append: true });
  assert.deepEqual(await readCursor(first), { script: 1, applied: 1, pending: null });
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
  assert.deepEqual(await readCursor(second), { script: 1, applied: 3, pending: null });
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
