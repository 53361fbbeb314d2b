import assert from "node:assert/strict";
import { atomicWriteChunks, nullIfAbsent, readTextOrNull } from "../../src/util/fs.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("nullIfAbsent(): absence (or a path through a file) is null; EISDIR and other errors are thrown again", async () => {
  await using t = await tempDir();
  await Deno.writeTextFile(`${t.path}/file`, "x");
  assert.equal(await Deno.lstat(`${t.path}/missing`).catch(nullIfAbsent), null);
  assert.equal(await Deno.realPath(`${t.path}/file/below`).catch(nullIfAbsent), null);
  await Deno.mkdir(`${t.path}/dir`);
  await assert.rejects(
    () => Deno.readTextFile(`${t.path}/dir`).catch(nullIfAbsent),
    (e: Error) => e.message.includes(`${t.path}/dir`),
  );
});

Deno.test("readTextOrNull(): null only when absent; a directory at the path is an error naming it", async () => {
  await using t = await tempDir();
  assert.equal(await readTextOrNull(`${t.path}/missing`), null);
  await Deno.mkdir(`${t.path}/dir`);
  await assert.rejects(() => readTextOrNull(`${t.path}/dir`), (e: Error) => e.message.includes(`${t.path}/dir`));
});

Deno.test("atomicWriteChunks(): pieces of any size and script land as their concatenation, through a temp file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/doc.json`;
  await Deno.writeTextFile(path, "old");
  // Pieces straddle the 64 Ki gathering size; one alone is bigger than it; multi-byte text is cut nowhere.
  const pieces = ["{", "é✓日本".repeat(30_000), "a".repeat(200_000), "🙂", "}\n", ""];
  await atomicWriteChunks(path, pieces);
  assert.equal(await Deno.readTextFile(path), pieces.join(""));
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["doc.json"]);
  // A piece that throws midway leaves the old file and no temp file behind.
  function* failing(): Generator<string> {
    yield "x".repeat(100_000);
    throw new Error("boom");
  }
  await assert.rejects(() => atomicWriteChunks(path, failing()), /boom/);
  assert.equal(await Deno.readTextFile(path), pieces.join(""));
  assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["doc.json"]);
});
