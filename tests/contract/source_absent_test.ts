import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";

Deno.test("verifyContract() source_absent finds forbidden lines and prunes default directories", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "lib/a.ts": "const x = 1;\nconsole.log(x);\n",
    "lib/b.ts": "// ok\n",
    "lib/c.md": "console.log in docs\n",
    "lib/node_modules/dep.ts": "console.log(1)\n",
    "lib/gen/skip.ts": "console.log(2)\n",
  });
  const item = await oneItem(dir.path, {
    source_absent: { path: "lib", patterns: ["console\\.log", "debugger"], extensions: [".ts"], prune: ["gen"] },
  });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "1 forbidden source match(es)");
  assert.equal(item.files_checked, 2);
  assert.deepEqual(item.findings, [{ file: "lib/a.ts", line: 2, pattern: "console\\.log", text: "console.log(x);" }]);
});

Deno.test("verifyContract() source_absent passes clean sources and accepts a single file and `pattern`", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "main.ts": "export const a = 1;\n" });
  const item = await oneItem(dir.path, { source_absent: { path: "main.ts", pattern: "TODO" } });
  assert.equal(item.status, "pass");
  assert.equal(item.details, "ok");
  assert.equal(item.files_checked, 1);
});

Deno.test("verifyContract() source_absent fails on a missing path, no patterns, or an invalid pattern", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "main.ts": "x\n" });
  const items = await itemsOf(dir.path, {
    source_absent: [{ path: "gone", patterns: ["x"] }, "main.ts", { path: "main.ts", patterns: ["("] }],
  });
  assert.deepEqual(items.map((i) => i.status), ["fail", "fail", "fail"]);
  assert.equal(items[0]!.details, "source path is missing");
  assert.equal(items[1]!.details, "source_absent requires at least one pattern");
  assert.match(items[2]!.details, /^invalid source_absent pattern: /);
});

Deno.test("verifyContract() source_absent does not follow symlinked directories", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "outside/bad.ts": "FORBIDDEN\n", "src/ok.ts": "fine\n" });
  await Deno.symlink(`${dir.path}/outside`, `${dir.path}/src/linked`);
  const item = await oneItem(dir.path, { source_absent: { path: "src", patterns: ["FORBIDDEN"] } });
  assert.equal(item.status, "pass");
  assert.equal(item.files_checked, 1);
});

Deno.test("verifyContract() source_absent fails, never passes, on a source path it cannot read", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "main.ts": "x\n" });
  // A device where a source file is expected: stat says it is there, it is not a file to scan. (The device's
  // directory is a repo here: a link out of the repositories fails before anything is looked at.)
  await Deno.symlink("/dev/null", `${dir.path}/dev.ts`);
  const item = await oneItem(dir.path, { source_absent: { path: "dev.ts", patterns: ["TODO"] } }, {
    repos: { app: dir.path, packet: `${dir.path}/packet`, devices: "/dev" },
  });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "source path is not a regular file or directory");
  // A FIFO is refused the same way, without being opened (opening it would block the verifier).
  const mk = await new Deno.Command("mkfifo", { args: [`${dir.path}/pipe.ts`] }).output();
  assert.ok(mk.success, "mkfifo is available");
  const fifo = await oneItem(dir.path, { source_absent: { path: "pipe.ts", patterns: ["TODO"] } });
  assert.equal(fifo.status, "fail");
  assert.equal(fifo.details, "source path is not a regular file or directory");
});

Deno.test("verifyContract() source_absent fails naming a source file that exists but cannot be read (EIO)", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "lib/a.ts": "clean\n" });
  // A link to a file every read of which fails with EIO: before, the file was skipped and the clause passed.
  await Deno.symlink("/proc/self/mem", `${dir.path}/lib/mem.ts`);
  // The link's target is inside a repo of the index (else it would fail unread, as leading out of them).
  const item = await oneItem(dir.path, { source_absent: { path: "lib", patterns: ["TODO"] } }, {
    repos: { app: dir.path, packet: `${dir.path}/packet`, proc: "/proc/self" },
  });
  assert.equal(item.status, "fail");
  assert.match(String(item.details), /^cannot read lib\/mem\.ts \(.*\)$/);
});

Deno.test("verifyContract() source_absent fails, unread, on a symlinked file that leads out of the repositories", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "repo/lib/a.ts": "clean\n", "repo/lib/b.ts": "clean\n", "outside/c.ts": "clean\n" });
  await Deno.symlink(`${dir.path}/outside/c.ts`, `${dir.path}/repo/lib/c.ts`);
  await Deno.symlink(`${dir.path}/repo/lib/a.ts`, `${dir.path}/repo/lib/d.ts`);
  const item = await oneItem(`${dir.path}/repo`, { source_absent: { path: "lib", patterns: ["TODO"] } });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "cannot read lib/c.ts (a symlink leading out of the repositories)");
  assert.equal(item.files_checked, 3);
});

Deno.test("verifyContract() source_absent splits lines at a lone CR and at U+2028 as well as at LF and CRLF", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "cr.ts": "ok();\rconsole.log(1);\r",
    "ls.ts": "ok();\u2028console.log(2);\n",
    "crlf.ts": "ok();\r\nok();\r\nconsole.log(3);\r\n",
  });
  const item = await oneItem(dir.path, { source_absent: { path: ".", patterns: ["^\\s*console\\.log"] } });
  assert.equal(item.status, "fail");
  assert.deepEqual((item.findings as { file: string; line: number }[]).map((f) => [f.file, f.line]), [
    ["cr.ts", 2],
    ["crlf.ts", 3],
    ["ls.ts", 2],
  ]);
});
