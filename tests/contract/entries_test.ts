import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { pathEscapes, validateEntry } from "../../src/contract/entries.ts";

Deno.test("validateEntry() accepts every documented entry form", () => {
  const ok: [string, unknown][] = [
    ["files_exist", "a.txt"],
    ["files_exist", { repo: "app", path: "a.txt" }],
    ["files_absent", { path: "x" }],
    ["contains", "a.txt"],
    ["contains", { path: "a", contains: "x" }],
    ["matches", { path: "a", matches: "x+" }],
    ["doc", { path: "a", min_lines: 3, requires_sections: ["## A"], forbids_markers: [] }],
    ["yaml", { path: "a", root: "scalar" }],
    ["json", {
      path: "a",
      root: "map",
      required_paths: ["a.b"],
      array_items_require: { items: ["id"] },
      array_none_match: [{ path: "s", field: "f", equals: 1 }],
    }],
    ["glob", { path: "*.ts", min_matches: 0, max_matches: 2, non_empty: true }],
    ["source_absent", { path: "lib", pattern: "x", extensions: [".ts"], prune: ["gen"] }],
    ["commands", "mix test"],
    ["commands", { run: "mix test", timeout_ms: 5 }],
    ["commands", {
      exec: "mix",
      args: ["test", 1],
      env: { A: 1 },
      cwd: "sub",
      regenerates: ["out"],
      fault_exit_codes: [2],
    }],
    ["changed_paths_only", "lib/"],
    ["repos_clean", "app"],
    ["repos_clean", { pushed: true, network: true, fetch_timeout_ms: 10 }],
  ];
  for (const [clause, entry] of ok) {
    assert.equal(validateEntry(clause, entry), null, `${clause} ${JSON.stringify(entry)}`);
  }
});

Deno.test("validateEntry() names the problem for malformed entries", () => {
  assert.equal(validateEntry("contains", { path: "a" }), 'contains entry is missing "text" (a string)');
  assert.equal(validateEntry("contains", { text: "a" }), 'contains entry is missing "path" (a non-empty string)');
  assert.equal(validateEntry("matches", "a.txt"), 'matches entries must be maps with "path"; got a string');
  assert.equal(validateEntry("files_exist", 3), 'files_exist entries must be a path string or a map with "path"');
  assert.equal(validateEntry("source_absent", { path: "lib" }), "source_absent requires at least one pattern");
  assert.equal(validateEntry("commands", { exec: "x", args: "a b" }), 'commands "args" must be a list of strings');
  assert.equal(validateEntry("commands", { cwd: "x" }), 'commands entry is missing "exec" (a non-empty string)');
  assert.equal(validateEntry("yaml", { path: "a", root: "dict" }), 'yaml "root" must be "map", "list" or "scalar"');
  assert.equal(validateEntry("repos_clean", { pushed: "yes" }), 'repos_clean "pushed" must be true or false');
  assert.equal(validateEntry("nope", "a"), '"nope" is not a verify clause');
});

Deno.test("pathEscapes() flags absolute paths, .. segments and symlinked parents leaving the root", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "repo/in.txt": "i", "out/x.txt": "x" });
  await Deno.symlink(`${dir.path}/out`, `${dir.path}/repo/link`);
  const root = `${dir.path}/repo`;
  assert.equal(await pathEscapes(root, "in.txt"), false);
  assert.equal(await pathEscapes(root, "new/dir/file.txt"), false);
  assert.equal(await pathEscapes(root, "/etc/passwd"), true);
  assert.equal(await pathEscapes(root, "a/../in.txt"), true);
  assert.equal(await pathEscapes(root, "link/x.txt"), true);
  assert.equal(await pathEscapes(root, "link/new.txt"), true);
});

Deno.test("validateEntry() refuses an unknown key of a map entry: a misspelt option must not switch its check off", () => {
  const bad: [string, unknown, string][] = [
    ["commands", { exec: "cat", args: ["a"], stdout_contain: "x" }, "stdout_contain"],
    ["commands", { exec: "cat", stdout_matche: "^x" }, "stdout_matche"],
    ["doc", { path: "a", requires_section: ["Usage"] }, "requires_section"],
    ["yaml", { path: "a", rot: "list" }, "rot"],
    ["json", { path: "a", required_path: ["a.b"] }, "required_path"],
    ["glob", { path: "*.md", min_match: 1 }, "min_match"],
    ["source_absent", { path: ".", patterns: ["x"], extension: [".md"] }, "extension"],
    ["files_exist", { path: "a", rep: "app" }, "rep"],
    ["contains", { path: "a", text: "x", extra: 1 }, "extra"],
    ["repos_clean", { repo: "app", pushd: true }, "pushd"],
  ];
  for (const [clause, entry, key] of bad) {
    const problem = validateEntry(clause, entry);
    assert.ok(problem !== null && problem.includes(`"${key}"`), `${clause} ${JSON.stringify(entry)}: ${problem}`);
  }
});
