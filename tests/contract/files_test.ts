import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";

Deno.test("verifyContract() files_exist passes for an existing file or directory and fails with 'missing'", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "hello.txt": "hi\n", "lib/a.ts": "x" });
  const items = await itemsOf(dir.path, { files_exist: ["hello.txt", "lib", "nope.txt"] });
  assert.deepEqual(items.map((i) => [i.id, i.status, i.details]), [
    ["files_exist#1", "pass", "ok"],
    ["files_exist#2", "pass", "ok"],
    ["files_exist#3", "fail", "missing"],
  ]);
  assert.equal(items[0]!.kind, "file_exists");
  assert.equal(items[0]!.repo, "app");
  assert.equal(items[0]!.path, "hello.txt");
  assert.equal(items[0]!.resolved_path, `${dir.path}/hello.txt`);
  assert.equal(items[2]!.pass, false);
  assert.equal(items[2]!.fault, null);
});

Deno.test("verifyContract() files_absent fails with 'present' and passes when the path is gone", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "tmp.log": "x" });
  const items = await itemsOf(dir.path, { files_absent: ["tmp.log", { path: "gone.log" }] });
  assert.deepEqual(items.map((i) => [i.kind, i.status, i.details]), [
    ["file_absent", "fail", "present"],
    ["file_absent", "pass", "ok"],
  ]);
});

Deno.test("verifyContract() entries resolve through name:rel, {repo, path} and the packet alias", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "other/x.md": "x", "packet/notes.md": "n" });
  const items = await itemsOf(dir.path, {
    files_exist: ["lib:x.md", "other:x.md", { repo: "other", path: "x.md" }, "packet:notes.md", "nope:y"],
  }, { repos: { app: dir.path, other: `${dir.path}/other`, packet: `${dir.path}/packet` } });
  assert.deepEqual(items.map((i) => [i.repo, i.path, i.status]), [
    ["app", "lib:x.md", "fail"],
    ["other", "x.md", "pass"],
    ["other", "x.md", "pass"],
    ["packet", "notes.md", "pass"],
    ["app", "nope:y", "fail"],
  ]);
  assert.equal(items[1]!.resolved_path, `${dir.path}/other/x.md`);
});

Deno.test("verifyContract() an entry naming an unknown repo fails with 'unknown repo: <name>'", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, { files_exist: [{ repo: "ghost", path: "a.txt" }] });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "unknown repo: ghost");
  assert.equal(item.repo, "ghost");
  assert.equal(item.resolved_path, undefined);
});

Deno.test("verifyContract() resolved_path resolves symlinked components of the existing prefix", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "real/inner/a.txt": "a" });
  await Deno.symlink(`${dir.path}/real`, `${dir.path}/link`);
  const items = await itemsOf(dir.path, { files_exist: ["link/inner/a.txt", "link/missing/b.txt"] });
  assert.equal(items[0]!.resolved_path, `${dir.path}/real/inner/a.txt`);
  assert.equal(items[0]!.status, "pass");
  assert.equal(items[1]!.resolved_path, `${dir.path}/real/missing/b.txt`);
});

Deno.test("verifyContract() the default scope's repo is the deepest repo containing it", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "sub/a.txt": "a" });
  const item = await oneItem(dir.path, { files_exist: "a.txt" }, {
    defaultScope: `${dir.path}/sub`,
    repos: { app: dir.path, sub: `${dir.path}/sub`, packet: `${dir.path}/packet` },
  });
  assert.equal(item.repo, "sub");
  assert.equal(item.status, "pass");
});

Deno.test("verifyContract() a malformed entry fails its item naming the problem", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, { files_exist: [{ repo: "app" }] });
  assert.equal(item.status, "fail");
  assert.match(item.details, /missing "path"/);
});

Deno.test("files_exist and files_absent take the answer of the realpath that resolved the path: no stat of their own", async () => {
  await using dir = await tempDir();
  const real = Deno.realPathSync(dir.path);
  await writeFiles(real, { "hello.txt": "hi\n", "lib/a.ts": "x" });
  await Deno.symlink(`${real}/nowhere`, `${real}/dangling`);
  const statSync = Deno.statSync;
  let stats = 0;
  Deno.statSync = (p) => (stats++, statSync(p));
  let items;
  try {
    items = await itemsOf(real, {
      files_exist: ["hello.txt", "lib", "nope.txt", "dangling", "hello.txt/under"],
      files_absent: ["hello.txt", "gone.log"],
    });
  } finally {
    Deno.statSync = statSync;
  }
  assert.deepEqual(items.map((i) => [i.id, i.status, i.details]), [
    ["files_exist#1", "pass", "ok"],
    ["files_exist#2", "pass", "ok"],
    ["files_exist#3", "fail", "missing"],
    ["files_exist#4", "fail", "missing"],
    ["files_exist#5", "fail", "missing"],
    ["files_absent#1", "fail", "present"],
    ["files_absent#2", "pass", "ok"],
  ]);
  assert.equal(stats, 0, `stats: ${stats}`);
});

Deno.test("files_exist and files_absent fail on a symlink loop instead of ending the verification", async () => {
  await using dir = await tempDir();
  await Deno.symlink(`${dir.path}/loop_b`, `${dir.path}/loop_a`);
  await Deno.symlink(`${dir.path}/loop_a`, `${dir.path}/loop_b`);
  const items = await itemsOf(dir.path, { files_exist: ["loop_a"], files_absent: ["loop_a"] });
  assert.deepEqual(items.map((i) => [i.id, i.status, i.details]), [
    ["files_exist#1", "fail", "missing (a symlink loop)"],
    ["files_absent#1", "fail", "present (a symlink loop)"],
  ]);
});

Deno.test("files_absent fails on a dangling symlink left at the path", async () => {
  await using dir = await tempDir();
  await Deno.symlink(`${dir.path}/nowhere`, `${dir.path}/old.log`);
  await Deno.symlink(`${dir.path}/nowhere`, `${dir.path}/lib`);
  const items = await itemsOf(dir.path, { files_absent: ["old.log", "lib/x.ts", "gone.log"] });
  assert.deepEqual(items.map((i) => [i.status, i.details]), [
    ["fail", "present (a dangling symlink)"],
    ["pass", "ok"],
    ["pass", "ok"],
  ]);
});

Deno.test("a path written inside the repo that a symlink leads outside every repo fails unread, in every path clause", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "repo/packet/kept.txt": "kept\n",
    "outside/secret.txt": "SECRET\n",
    "outside/data.json": '{"a": 1}\n',
  });
  const repo = `${dir.path}/repo`;
  await Deno.symlink(`${dir.path}/outside/secret.txt`, `${repo}/notes.txt`);
  await Deno.symlink(`${dir.path}/outside`, `${repo}/vendor`);
  await Deno.symlink(`${repo}/packet/kept.txt`, `${repo}/kept.txt`);
  const items = await itemsOf(repo, {
    files_exist: ["notes.txt", "vendor/data.json", "kept.txt", "../outside/secret.txt"],
    files_absent: ["vendor/gone.txt"],
    contains: [{ path: "notes.txt", text: "SECRET" }, { path: "../outside/secret.txt", text: "SECRET" }],
    matches: [{ path: "vendor/secret.txt", pattern: "SECRET" }],
    doc: ["notes.txt"],
    yaml: ["vendor/data.json"],
    json: ["vendor/data.json"],
    glob: ["vendor/*.json"],
    source_absent: [{ path: "vendor", patterns: ["NOTHING"] }],
  });
  const leaves = "a symlink leads this path out of the repositories";
  assert.deepEqual(items.map((i) => [i.id, i.status, i.details]), [
    ["files_exist#1", "fail", leaves],
    ["files_exist#2", "fail", leaves],
    // A link to another repo of the index is the work; a path written outside the repo is the packet's choice.
    ["files_exist#3", "pass", "ok"],
    ["files_exist#4", "pass", "ok"],
    ["files_absent#1", "fail", leaves],
    ["contains#1", "fail", leaves],
    ["contains#2", "pass", "ok"],
    ["matches#1", "fail", leaves],
    ["doc#1", "fail", leaves],
    ["yaml#1", "fail", leaves],
    ["json#1", "fail", leaves],
    ["glob#1", "fail", leaves],
    ["source_absent#1", "fail", leaves],
  ]);
  assert.equal(items[0]!.resolved_path, `${dir.path}/outside/secret.txt`);
});
