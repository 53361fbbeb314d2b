import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";

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
