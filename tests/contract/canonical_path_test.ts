/** canonicalPath(): symlinks of the longest existing prefix resolved, a missing tail kept verbatim. */
import assert from "node:assert/strict";
import { canonicalJoin, canonicalPath } from "../../src/contract/paths.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("canonicalPath() resolves an existing path, a missing tail under a link, a dangling link and a file prefix", async () => {
  await using dir = await tempDir();
  const real = Deno.realPathSync(dir.path);
  await Deno.mkdir(`${real}/repo/sub`, { recursive: true });
  await Deno.writeTextFile(`${real}/repo/sub/f.txt`, "x");
  await Deno.symlink(`${real}/repo`, `${real}/link`);
  await Deno.symlink(`${real}/repo/nowhere`, `${real}/repo/dangling`);
  assert.equal(canonicalPath(`${real}/link/sub/f.txt`), `${real}/repo/sub/f.txt`, "an existing path through a link");
  assert.equal(canonicalPath(`${real}/link/sub`), `${real}/repo/sub`);
  assert.equal(canonicalPath(`${real}/link/new/deeper.txt`), `${real}/repo/new/deeper.txt`, "a missing tail");
  assert.equal(canonicalPath(`${real}/link/dangling`), `${real}/repo/dangling`, "a dangling link is a missing tail");
  assert.equal(canonicalPath(`${real}/link/sub/f.txt/under`), `${real}/repo/sub/f.txt/under`, "below a file");
  assert.equal(canonicalPath("/"), "/");
  assert.equal(canonicalJoin(`${real}/link`, "sub/../sub/f.txt"), `${real}/repo/sub/f.txt`);
});
