import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { MAX_READ_BYTES } from "../../src/contract/clauses/_common.ts";
import { readCapped } from "../../src/util/fs.ts";

Deno.test("verifyContract() contains checks literal text byte-for-byte", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "NOTES.md": "## Usage\nrun it (now)\n" });
  const items = await itemsOf(dir.path, {
    contains: [
      { path: "NOTES.md", text: "run it (now)" },
      { path: "NOTES.md", contains: "## Usage" },
      { path: "NOTES.md", text: "## usage" },
      { path: "GONE.md", text: "x" },
      "NOTES.md",
    ],
  });
  assert.deepEqual(items.map((i) => [i.status, i.details]), [
    ["pass", "ok"],
    ["pass", "ok"],
    ["fail", 'missing text "## usage"'],
    ["fail", "missing file"],
    ["pass", "ok"],
  ]);
});

Deno.test("verifyContract() contains quotes at most the first 80 characters of missing text", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a.txt": "x" });
  const item = await oneItem(dir.path, { contains: { path: "a.txt", text: "y".repeat(100) } });
  assert.equal(item.details, `missing text "${"y".repeat(80)}"`);
});

Deno.test("verifyContract() reports an unreadable file (a directory) with its reason", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/adir`);
  const item = await oneItem(dir.path, { contains: { path: "adir", text: "x" } });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "unreadable file (is a directory)");
});

Deno.test("verifyContract() matches uses ECMAScript regexes with the u flag", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a.ex": "defmodule Demo.Report do\n  ✓ done\nend\n" });
  const items = await itemsOf(dir.path, {
    matches: [
      { path: "a.ex", pattern: "defmodule\\s+Demo\\.Report" },
      { path: "a.ex", matches: "\\n\\s+\\u{2713} done" },
      { path: "a.ex", pattern: "^defmodule Other" },
      { path: "a.ex", pattern: "(" },
      { path: "nope.ex", pattern: "x" },
    ],
  });
  assert.deepEqual(items.map((i) => i.status), ["pass", "pass", "fail", "fail", "fail"]);
  assert.equal(items[2]!.details, "no match for /^defmodule Other/");
  assert.match(items[3]!.details, /^invalid pattern: /);
  assert.equal(items[4]!.details, "missing file");
  assert.equal(items[0]!.kind, "matches");
});

Deno.test("content clauses read only regular files: a FIFO or a device fails its item instead of blocking or never ending", async () => {
  await using dir = await tempDir();
  const mk = await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe.md`] }).output();
  assert.ok(mk.success, "mkfifo is available");
  await Deno.symlink("/dev/zero", `${dir.path}/zero.json`);
  const items = await itemsOf(dir.path, {
    contains: [{ path: "pipe.md", text: "x" }, { path: "zero.json", text: "x" }],
    matches: [{ path: "pipe.md", pattern: "x" }, { path: "zero.json", pattern: "x" }],
    doc: ["pipe.md", "zero.json"],
    yaml: ["pipe.md", "zero.json"],
    json: ["pipe.md", "zero.json"],
  }, { repos: { app: dir.path, packet: `${dir.path}/packet`, devices: "/dev" } }); // the link leads into a repo
  assert.equal(items.length, 10);
  for (const i of items) {
    assert.deepEqual([i.id, i.status, i.details], [i.id, "fail", "unreadable file (not a regular file)"]);
  }
});

Deno.test("content clauses fail a file larger than 64 MiB unread", async () => {
  await using dir = await tempDir();
  // Sparse: no disk and no memory spent on it unless it is read.
  await Deno.writeTextFile(`${dir.path}/big.log`, "needle\n");
  await Deno.truncate(`${dir.path}/big.log`, MAX_READ_BYTES + 1);
  const items = await itemsOf(dir.path, {
    contains: [{ path: "big.log", text: "needle" }],
    source_absent: [{ path: ".", patterns: ["FORBIDDEN"] }],
  });
  assert.deepEqual(items.map((i) => [i.status, i.details]), [
    ["fail", "unreadable file (larger than 64 MiB)"],
    ["fail", "cannot read big.log (larger than 64 MiB)"],
  ]);
});

Deno.test("readCapped() stops at its limit even when the file grew past the size its stat gave", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/f`, "0123456789");
  assert.equal(await readCapped(`${dir.path}/f`, 9, 4), null);
  assert.equal(new TextDecoder().decode((await readCapped(`${dir.path}/f`, 10, 4))!), "0123456789");
  assert.equal(new TextDecoder().decode((await readCapped(`${dir.path}/f`, 64, 0))!), "0123456789");
});
