/** canonicalPath(): symlinks of the longest existing prefix resolved, a missing tail kept verbatim. */
import assert from "node:assert/strict";
import { canonicalJoin, canonicalPath, resolvePath } from "../../src/contract/paths.ts";
import { rememberedCanonicalPath } from "../../src/contract/lint.ts";
import { tempDir } from "../support/fs.ts";

/**
 * Under `dir` (returned canonical): `repo/sub/f.txt`, `link` → `repo`, and `repo/dangling` → a missing
 * `repo/nowhere`.
 */
async function linkedTree(dir: string): Promise<string> {
  const real = Deno.realPathSync(dir);
  await Deno.mkdir(`${real}/repo/sub`, { recursive: true });
  await Deno.writeTextFile(`${real}/repo/sub/f.txt`, "x");
  await Deno.symlink(`${real}/repo`, `${real}/link`);
  await Deno.symlink(`${real}/repo/nowhere`, `${real}/repo/dangling`);
  return real;
}

Deno.test("canonicalPath() resolves an existing path, a missing tail under a link, a dangling link and a file prefix", async () => {
  await using dir = await tempDir();
  const real = await linkedTree(dir.path);
  assert.equal(canonicalPath(`${real}/link/sub/f.txt`), `${real}/repo/sub/f.txt`, "an existing path through a link");
  assert.equal(canonicalPath(`${real}/link/sub`), `${real}/repo/sub`);
  assert.equal(canonicalPath(`${real}/link/new/deeper.txt`), `${real}/repo/new/deeper.txt`, "a missing tail");
  assert.equal(canonicalPath(`${real}/link/dangling`), `${real}/repo/dangling`, "a dangling link is a missing tail");
  assert.equal(canonicalPath(`${real}/link/sub/f.txt/under`), `${real}/repo/sub/f.txt/under`, "below a file");
  assert.equal(canonicalPath("/"), "/");
  assert.equal(canonicalJoin(`${real}/link`, "sub/../sub/f.txt"), `${real}/repo/sub/f.txt`);
  // The remembered resolver (a missing path's parent through the memory) answers the same, asked twice.
  const remembered = rememberedCanonicalPath();
  for (const p of ["sub/f.txt", "sub", "new/deeper.txt", "new/other.txt", "dangling", "sub/f.txt/under"]) {
    for (let i = 0; i < 2; i++) assert.equal(remembered(`${real}/link/${p}`), canonicalPath(`${real}/link/${p}`), p);
  }
  assert.equal(remembered("/"), "/");
});

/** Counts the file-system calls canonicalPath() makes while `fn` runs (the test's own seam over `Deno`). */
function countingCalls(fn: () => void): { realpath: number; stat: number } {
  const counts = { realpath: 0, stat: 0 };
  const realPathSync = Deno.realPathSync;
  const statSync = Deno.statSync;
  Deno.realPathSync = (p) => (counts.realpath++, realPathSync(p));
  Deno.statSync = (p) => (counts.stat++, statSync(p));
  try {
    fn();
  } finally {
    Deno.realPathSync = realPathSync;
    Deno.statSync = statSync;
  }
  return counts;
}

Deno.test("canonicalPath() costs one realpath per prefix tried and no stat (a missing file under an existing dir: two)", async () => {
  await using dir = await tempDir();
  const real = Deno.realPathSync(dir.path);
  await Deno.mkdir(`${real}/repo/sub`, { recursive: true });
  await Deno.writeTextFile(`${real}/repo/sub/f.txt`, "x");
  let out = "";
  assert.deepEqual(countingCalls(() => out = canonicalPath(`${real}/repo/sub/f.txt`)), { realpath: 1, stat: 0 });
  assert.equal(out, `${real}/repo/sub/f.txt`);
  assert.deepEqual(countingCalls(() => out = canonicalPath(`${real}/repo/sub/new.txt`)), { realpath: 2, stat: 0 });
  assert.equal(out, `${real}/repo/sub/new.txt`);
  assert.deepEqual(countingCalls(() => out = canonicalPath(`${real}/repo/a/b/c.txt`)), { realpath: 4, stat: 0 });
  assert.equal(out, `${real}/repo/a/b/c.txt`);
  assert.deepEqual(countingCalls(() => out = canonicalPath(`${real}/repo/sub/f.txt/under`)), { realpath: 2, stat: 0 });
  assert.equal(out, `${real}/repo/sub/f.txt/under`);
});

Deno.test("resolvePath() tells whether the whole path was there from its first realpath", async () => {
  await using dir = await tempDir();
  const real = await linkedTree(dir.path);
  assert.deepEqual(resolvePath(`${real}/link/sub/f.txt`), { path: `${real}/repo/sub/f.txt`, exists: true });
  assert.deepEqual(resolvePath(`${real}/link/sub`), { path: `${real}/repo/sub`, exists: true });
  assert.deepEqual(resolvePath(`${real}/link/new.txt`), { path: `${real}/repo/new.txt`, exists: false });
  assert.deepEqual(resolvePath(`${real}/link/dangling`), { path: `${real}/repo/dangling`, exists: false });
  assert.deepEqual(resolvePath(`${real}/repo/sub/f.txt/under`), {
    path: `${real}/repo/sub/f.txt/under`,
    exists: false,
  });
});
