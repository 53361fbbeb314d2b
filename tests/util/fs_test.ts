import assert from "node:assert/strict";
import { atomicWriteChunks, nullIfAbsent, readTextOrNull, writeViaTemp } from "../../src/util/fs.ts";
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

Deno.test("writeViaTemp(): with or without an fsync, the file lands whole, private, with no temp left", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/snapshot.json`;
  await Deno.writeTextFile(path, "old");
  for (const fsync of [false, true]) {
    const text = `{"fsync":${fsync},"pad":"${"é".repeat(70_000)}"}`;
    await writeViaTemp(`${dir.path}/.snapshot.json.1.a.tmp`, path, text, { fsync });
    assert.equal(await Deno.readTextFile(path), text);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["snapshot.json"]);
    await writeViaTemp(`${dir.path}/.snapshot.json.1.b.tmp`, path, new TextEncoder().encode("bytes"), { fsync });
    assert.equal(await Deno.readTextFile(path), "bytes");
  }
});

Deno.test("writeViaTemp(): a rename that fails removes the temp it wrote; a missing directory leaves nothing", async () => {
  await using dir = await tempDir();
  // The target is a non-empty directory: the temp is written, the rename over it fails.
  const target = `${dir.path}/doc`;
  await Deno.mkdir(target);
  await Deno.writeTextFile(`${target}/keep`, "x");
  for (const fsync of [false, true]) {
    await assert.rejects(writeViaTemp(`${dir.path}/.doc.tmp`, target, "{}", { fsync }));
    assert.deepEqual([...Deno.readDirSync(dir.path)].map((e) => e.name), ["doc"], `fsync ${fsync}`);
    assert.equal(await Deno.readTextFile(`${target}/keep`), "x");
    await assert.rejects(
      writeViaTemp(`${dir.path}/no/.doc.tmp`, `${dir.path}/no/doc`, "{}", { fsync }),
      Deno.errors.NotFound,
    );
  }
});
