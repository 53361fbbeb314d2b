import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";

const PROMPT_01 = [
  "---",
  "id: 1",
  "verify:",
  "  files_exist: [hello.txt]",
  "  contains:",
  "    - {path: hello.txt, text: hello}",
  "  commands:",
  "    - {exec: deno, args: [test, -A]}",
  "  changed_paths_only: [hello.txt]",
  "---",
  "# Create hello",
  "",
].join("\n");

const PROMPT_02 = [
  "---",
  "id: 2",
  "name: Everything",
  "verify:",
  "  yaml: [conf.yml]",
  "  repos_clean: [app, {repo: app, pushed: true}, {}]",
  '  files_absent: ["app:tmp.log"]',
  "  doc: [{path: GUIDE.md, min_lines: 12}, README.md]",
  '  matches: [{repo: app, path: lib/a.ex, pattern: "defmodule\\\\s+A"}]',
  "  json: [data.json]",
  '  glob: ["lib/*.ex"]',
  "  source_absent: [{path: lib, patterns: [IO.inspect]}]",
  '  contains: [{path: NOTES.md, text: "' + "x".repeat(70) + '"}]',
  "  commands: [mix test --trace]",
  "---",
  "# Everything",
  "",
].join("\n");

async function makePacket(root: string): Promise<string> {
  await Deno.mkdir(`${root}/app`, { recursive: true });
  const packet = `${root}/demo`;
  await writeFiles(packet, {
    "prompt_runner_packet.md":
      "---\nname: demo\nprovider: simulated\nrepos:\n  app:\n    path: ../app\n    default: true\n---\n",
    "prompts/01_create_hello.prompt.md": PROMPT_01,
    "prompts/02_everything.prompt.md": PROMPT_02,
    "prompts/03_empty.prompt.md": "---\nid: 3\n---\n# Empty\n",
  });
  return packet;
}

Deno.test("checklist sync writes checklist files with the docs/reference/packet.md §8 labels and layout", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  const r = await runCli(["checklist", "sync", packet]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    "wrote prompts/01_create_hello.prompt.checklist.md\nwrote prompts/02_everything.prompt.checklist.md\n" +
      "wrote prompts/03_empty.prompt.checklist.md\n",
  );
  assert.equal(r.stderr, "warning: prompt 03 (03_empty.prompt.md) has no verification items\n");
  assert.equal(
    await Deno.readTextFile(`${packet}/prompts/01_create_hello.prompt.checklist.md`),
    [
      "# Checklist 01: Create hello",
      "",
      "Generated from the prompt verification contract.",
      "",
      "## Verification Items",
      "",
      "- [ ] changed path allowed: hello.txt",
      "- [ ] command: deno test -A",
      '- [ ] contains: hello.txt — "hello"',
      "- [ ] file exists: hello.txt",
      "",
    ].join("\n"),
  );
  assert.equal(
    await Deno.readTextFile(`${packet}/prompts/02_everything.prompt.checklist.md`),
    [
      "# Checklist 02: Everything",
      "",
      "Generated from the prompt verification contract.",
      "",
      "## Verification Items",
      "",
      "- [ ] command: mix test --trace",
      `- [ ] contains: NOTES.md — "${"x".repeat(60)}"`,
      "- [ ] doc: GUIDE.md (non-blank; 12 lines advisory)",
      "- [ ] doc: README.md (non-blank; 1 lines advisory)",
      "- [ ] file absent: app:tmp.log",
      "- [ ] glob contract: lib/*.ex",
      "- [ ] JSON contract: data.json",
      "- [ ] matches: app:lib/a.ex — /defmodule\\s+A/",
      "- [ ] repo committed: app",
      "- [ ] repo committed and pushed: app",
      "- [ ] repo committed: app",
      "- [ ] forbidden source absent: lib",
      "- [ ] YAML parses: conf.yml",
      "",
    ].join("\n"),
  );
  const empty = await Deno.readTextFile(`${packet}/prompts/03_empty.prompt.checklist.md`);
  assert.match(empty, /^# Checklist 03: Empty\n/);
  assert.match(empty, /## Verification Items\n\nNo verification items yet/);
});

Deno.test("checklist sync --json lists written files and warnings", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  const r = await runCli(["checklist", "sync", packet, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.deepEqual(doc.written, [
    "prompts/01_create_hello.prompt.checklist.md",
    "prompts/02_everything.prompt.checklist.md",
    "prompts/03_empty.prompt.checklist.md",
  ]);
  assert.deepEqual(doc.warnings, ["prompt 03 (03_empty.prompt.md) has no verification items"]);
});
