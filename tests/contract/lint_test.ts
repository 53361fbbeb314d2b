import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { packetFixture, promptFixture } from "./_helpers.ts";
import { editDistance, lintContract, suggestClause } from "../../src/contract/lint.ts";
import type { Finding } from "../../src/packet/types.ts";

async function lint(verify: Record<string, unknown>, legacyCommands: string[] = []): Promise<Finding[]> {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "app/README.md": "r", "packet/prompts/x": "" });
  const prompt = promptFixture({ verify: verify as Record<string, unknown[]>, cwd: `${dir.path}/app`, legacyCommands });
  return lintContract(prompt, packetFixture(`${dir.path}/packet`, [prompt], { app: `${dir.path}/app` }));
}

const kinds = (f: Finding[]) => f.map((x) => `${x.severity}:${x.kind}`);

Deno.test("lintContract() reports unknown clauses with a did-you-mean", async () => {
  const f = await lint({ file_exists: ["a"], zzz_top: ["b"], contains: [{ path: "a", text: "x" }] });
  assert.deepEqual(f.slice(0, 2).map((x) => [x.kind, x.severity, x.message, x.key, x.prompt_id, x.file]), [
    [
      "unknown_verify_clause",
      "error",
      '"file_exists" is not a verify clause; did you mean "files_exist"?',
      "verify.file_exists",
      "03",
      "prompts/03_write_guide.prompt.md",
    ],
    [
      "unknown_verify_clause",
      "error",
      `"zzz_top" is not a verify clause; expected one of: files_exist, files_absent, contains, matches, doc, yaml, json, glob, source_absent, commands, changed_paths_only, repos_clean`,
      "verify.zzz_top",
      "03",
      "prompts/03_write_guide.prompt.md",
    ],
  ]);
  assert.equal(suggestClause("file_exist"), "files_exist");
  assert.equal(editDistance("kitten", "sitting"), 3);
});

Deno.test("lintContract() reports unknown repos but always accepts packet", async () => {
  const f = await lint({
    files_exist: [{ repo: "ghost", path: "a" }, "packet:prompts/x", "app:README.md"],
    repos_clean: ["app", "nope"],
    contains: [{ path: "README.md", text: "r" }],
  });
  assert.deepEqual(kinds(f), ["error:unknown_verify_repo", "error:unknown_verify_repo"]);
  assert.equal(f[0]!.message, 'files_exist[1] names unknown repo "ghost"; known: app, packet');
  assert.equal(f[1]!.key, "verify.repos_clean[2]");
});

Deno.test("lintContract() reports invalid entries and source_absent without patterns", async () => {
  const f = await lint({
    contains: [{ text: "x" }],
    source_absent: ["lib"],
    commands: [{ exec: "x", timeout_ms: -1 }],
  });
  assert.deepEqual(kinds(f), [
    "error:invalid_verify_entry",
    "error:source_absent_without_patterns",
    "error:invalid_verify_entry",
  ]);
  assert.equal(f[0]!.message, 'contains[1]: contains entry is missing "path" (a non-empty string)');
  assert.equal(f[2]!.message, 'commands[1]: commands "timeout_ms" must be a positive integer (milliseconds)');
});

Deno.test("lintContract() reports invalid regexes and globs", async () => {
  const f = await lint({
    matches: [{ path: "a", pattern: "(" }],
    source_absent: [{ path: "lib", patterns: ["ok", "[z-a]"] }],
    commands: [{ exec: "x", timeout_ms: 1000, stdout_matches: "*" }],
    glob: ["lib/[a", "lib/*.ex"],
    changed_paths_only: ["src/{a,b"],
  });
  assert.deepEqual(kinds(f), [
    "error:invalid_regex",
    "error:invalid_regex",
    "error:invalid_regex",
    "error:invalid_glob",
    "error:invalid_glob",
  ]);
  assert.match(f[0]!.message, /^matches\[1\] pattern \/\(\/ is invalid: /);
  assert.match(f[2]!.message, /^commands\[1\] stdout_matches \/\*\/ is invalid: /);
});

Deno.test("lintContract() warns about commands: legacy shell strings and default timeouts", async () => {
  const f = await lint({
    commands: [{ exec: "mix", args: ["test"], timeout_ms: 1000 }, { exec: "mix" }, "mix test", { run: "x" }],
  });
  assert.deepEqual(f.map((x) => [x.kind, x.message]), [
    ["verify_command_without_timeout", "commands[2] relies on the 10-minute default timeout"],
    ["legacy_shell_command", "commands[3] is a shell string run with bash -c; prefer {exec, args}"],
    ["legacy_shell_command", "commands[4] is a shell string run with bash -c; prefer {exec, args}"],
  ]);
});

Deno.test("lintContract() warns about empty and content-free contracts", async () => {
  assert.deepEqual(kinds(await lint({})), ["warning:prompt_without_verify"]);
  assert.deepEqual(kinds(await lint({}, ["mix test"])), []);
  assert.deepEqual(kinds(await lint({ files_exist: ["README.md"] })), ["warning:contract_without_commands"]);
});

Deno.test("lintContract() warns when changed_paths_only sits next to repos_clean", async () => {
  const f = await lint({ changed_paths_only: ["a"], repos_clean: ["app"], doc: ["README.md"] });
  assert.deepEqual(kinds(f), ["warning:changed_paths_only_vacuous"]);
});

Deno.test("lintContract() warns about paths escaping their repo and contains without text", async () => {
  const f = await lint({
    files_exist: ["../outside.txt", "a/../README.md", "packet:../app/README.md"],
    contains: ["README.md", { path: "README.md", text: "" }, { path: "README.md", text: "r" }],
  });
  assert.deepEqual(kinds(f), [
    "warning:verify_path_escapes_repo",
    "warning:verify_path_escapes_repo",
    "warning:contains_without_text",
    "warning:contains_without_text",
  ]);
  assert.match(f[0]!.message, /^files_exist\[1\] path "\.\.\/outside\.txt" resolves outside its repo root /);
  assert.equal(f[1]!.key, "verify.files_exist[3]");
});

Deno.test("lintContract() sees a symlinked parent that leaves the repo", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "app/README.md": "r", "elsewhere/x.md": "x", "packet/p": "" });
  await Deno.symlink(`${dir.path}/elsewhere`, `${dir.path}/app/link`);
  const prompt = promptFixture({ verify: { doc: ["link/x.md"] }, cwd: `${dir.path}/app` });
  const f = await lintContract(prompt, packetFixture(`${dir.path}/packet`, [prompt], { app: `${dir.path}/app` }));
  assert.deepEqual(kinds(f), ["warning:verify_path_escapes_repo"]);
});

Deno.test("lintContract() warns on an empty clause next to others: it checks nothing", async () => {
  const found = await lint({ files_exist: ["README.md"], changed_paths_only: [], repos_clean: null });
  const empty = found.filter((f) => f.kind === "empty_verify_clause");
  assert.deepEqual(empty.map((f) => [f.severity, f.key]), [
    ["warning", "verify.changed_paths_only"],
    ["warning", "verify.repos_clean"],
  ]);
  assert.match(empty[0]!.message, /does not mean "nothing may change"/);
});
