import assert from "node:assert/strict";
import { gitPathDiff } from "../../src/render/git_diff.ts";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";

Deno.test("gitPathDiff() maps the working-tree diff of a tracked file to +/-/context lines", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path, { "lib/a.ex": "one\ntwo\nthree\n" });
  await writeFiles(dir.path, { "lib/a.ex": "one\nTWO\nthree\nfour\n" });
  assert.deepEqual(gitPathDiff(dir.path)("lib/a.ex"), ["  one", "- two", "+ TWO", "  three", "+ four"]);
  assert.deepEqual(gitPathDiff(dir.path)(`${dir.path}/lib/a.ex`), ["  one", "- two", "+ TWO", "  three", "+ four"]);
});

Deno.test("gitPathDiff() diffs an untracked file against /dev/null", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path);
  await writeFiles(dir.path, { "new.txt": "hello\nworld\n" });
  assert.deepEqual(gitPathDiff(dir.path)("new.txt"), ["+ hello", "+ world"]);
});

Deno.test("gitPathDiff() returns null for an unchanged file, a deleted untracked path, or no cwd", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path, { "same.txt": "x\n" });
  assert.equal(gitPathDiff(dir.path)("same.txt"), null);
  assert.equal(gitPathDiff(dir.path)("never-existed.txt"), null);
  assert.equal(gitPathDiff("")("same.txt"), null);
  await git(dir.path, "rm", "-q", "same.txt");
  assert.equal(gitPathDiff(dir.path)("same.txt"), null, "staged deletions are not working-tree changes");
});

Deno.test("gitPathDiff() shows a deleted tracked file as removed lines", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path, { "gone.txt": "a\nb\n" });
  await Deno.remove(`${dir.path}/gone.txt`);
  assert.deepEqual(gitPathDiff(dir.path)("gone.txt"), ["- a", "- b"]);
});
