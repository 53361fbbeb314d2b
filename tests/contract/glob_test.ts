import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { globProblem } from "../../src/contract/clauses/glob.ts";
import { loadGlobMatcher } from "../../src/contract/clauses/glob_matcher.ts";

Deno.test("verifyContract() glob counts matches against min and max", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "lib/a.ex": "a", "lib/b.ex": "b", "lib/c.txt": "c" });
  const items = await itemsOf(dir.path, {
    glob: [
      "lib/*.ex",
      { path: "lib/*.ex", max_matches: 1 },
      { path: "test/*.exs" },
      { path: "test/*.exs", min_matches: 0 },
    ],
  });
  assert.deepEqual(items.map((i) => [i.status, i.details]), [
    ["pass", "2 match(es)"],
    ["fail", "2 match(es)"],
    ["fail", "0 match(es)"],
    ["pass", "0 match(es)"],
  ]);
  assert.deepEqual(items[0]!.matches, ["lib/a.ex", "lib/b.ex"]);
});

Deno.test("verifyContract() glob non_empty fails on empty files and directories", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "out/a.txt": "a", "out/b.txt": "" });
  await Deno.mkdir(`${dir.path}/out/sub`);
  const items = await itemsOf(dir.path, {
    glob: [{ path: "out/*", non_empty: true }, { path: "out/a.txt", non_empty: true }],
  });
  assert.equal(items[0]!.status, "fail");
  assert.equal(items[0]!.details, "3 match(es); 2 empty/non-file");
  assert.equal(items[1]!.status, "pass");
  assert.equal(items[1]!.details, "1 match(es)");
});

Deno.test("verifyContract() glob with an unbalanced pattern fails as invalid", async () => {
  await using dir = await tempDir();
  const items = await itemsOf(dir.path, { glob: ["lib/[a.ex"] });
  assert.equal(items[0]!.status, "fail");
  assert.match(items[0]!.details, /^invalid glob: /);
  assert.equal(globProblem("src/**/*.ts", await loadGlobMatcher()), null);
});

Deno.test("verifyContract() glob does not follow a symlinked directory out of the repositories", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "repo/docs/a.md": "a", "repo/shared/b.md": "b", "outside/c.md": "c" });
  await Deno.symlink(`${dir.path}/outside`, `${dir.path}/repo/docs/ext`);
  await Deno.symlink(`${dir.path}/repo/shared`, `${dir.path}/repo/docs/shared`);
  const item = await oneItem(`${dir.path}/repo`, { glob: { path: "docs/**/*.md", max_matches: 2 } });
  assert.deepEqual(item.matches, ["docs/a.md", "docs/shared/b.md"]);
  assert.equal(item.status, "pass");
});

Deno.test("verifyContract() glob fails on a matching symlink that leads a file out of the repositories, naming it", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "repo/docs/a.md": "a", "repo/shared/b.md": "b", "outside/c.md": "c" });
  // A link into the repos counts as the file it names; one to a file outside is not the repo's file.
  await Deno.symlink(`${dir.path}/repo/shared/b.md`, `${dir.path}/repo/docs/b.md`);
  await Deno.symlink(`${dir.path}/outside/c.md`, `${dir.path}/repo/docs/c.md`);
  const atLeast = await oneItem(`${dir.path}/repo`, { glob: { path: "docs/*.md", min_matches: 3 } });
  assert.deepEqual(atLeast.matches, ["docs/a.md", "docs/b.md"], "the outside link is not a match");
  assert.equal(atLeast.status, "fail");
  assert.equal(atLeast.details, "2 match(es); a symlink leads docs/c.md out of the repositories (not counted)");
  assert.deepEqual(atLeast.symlinks_outside, ["docs/c.md"]);
  // Nor can it be left out of a count that asserts absence: the path is in the tree.
  const none = await oneItem(`${dir.path}/repo`, { glob: { path: "docs/c*", min_matches: 0, max_matches: 0 } });
  assert.equal(none.status, "fail");
  assert.match(none.details, /^0 match\(es\); a symlink leads docs\/c\.md out of the repositories/);
  // A plain path (no glob characters) is refused by the entry's own resolution, as in every path clause.
  const plain = await oneItem(`${dir.path}/repo`, { glob: { path: "docs/c.md" } });
  assert.deepEqual([plain.status, plain.details], ["fail", "a symlink leads this path out of the repositories"]);
  assert.equal((await oneItem(`${dir.path}/repo`, { glob: { path: "docs/b.md" } })).status, "pass", "a link inside");
  // Without the link the same clauses judge the tree as before.
  await Deno.remove(`${dir.path}/repo/docs/c.md`);
  assert.equal(
    (await oneItem(`${dir.path}/repo`, { glob: { path: "docs/c*", min_matches: 0, max_matches: 0 } })).status,
    "pass",
  );
  const two = await oneItem(`${dir.path}/repo`, { glob: { path: "docs/*.md", min_matches: 2 } });
  assert.deepEqual([two.status, two.details, two.symlinks_outside], ["pass", "2 match(es)", undefined]);
});
