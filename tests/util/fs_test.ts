import assert from "node:assert/strict";
import { nullIfAbsent, readTextOrNull } from "../../src/util/fs.ts";
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
