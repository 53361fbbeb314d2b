/**
 * No vacuous verdicts, part one (docs/lint.md): `run`, `start` and `repair` refuse with exit 3, naming file and
 * field, every lint finding that would make a check silently not happen — and nothing is run or written.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { commitCount, makePacket, promptFile } from "../run/support.ts";

const OK = "verify:\n  files_exist: [ok.txt]\nsimulate:\n  attempts:\n    - writes: [{path: ok.txt}]";

async function storeExists(pkt: string): Promise<boolean> {
  return await Deno.stat(`${pkt}/.prompt_runner/state.json`).then(() => true, () => false);
}

async function refused(args: string[], pkt: string, kind: string, file: string, field: string): Promise<void> {
  const r = await runCli(args);
  assert.equal(r.code, 3, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
  const first = r.stderr.split("\n")[0]!;
  assert.ok(first.startsWith(`error: refusing to run: ${file}: ${field}`), first);
  assert.ok(!first.includes(`${field}: ${field}`), `the field is named once: ${first}`);
  const j = await runCli([...args, "--json"]);
  assert.equal(j.code, 3);
  assert.match(j.stdout + j.stderr, new RegExp(`"code":\\s*"${kind}"`));
  assert.equal(await storeExists(pkt), false, "nothing ran: no state was written");
  assert.equal(await commitCount(`${pkt}/app`), 1, "nothing was committed");
}

Deno.test("run refuses a misspelt verify clause (exit 3, file and field named) where it used to pass vacuously", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  file_exist: [never.txt]"),
  });
  await refused(["run", pkt], pkt, "unknown_verify_clause", "prompts/01_a.prompt.md", "verify.file_exist");
  const r = await runCli(["run", pkt]);
  assert.match(r.stderr, /did you mean "files_exist"\?/);
  assert.doesNotMatch(r.stdout, /completed/);
  // A dry run is gated too: a plan that prints is a plan that would start.
  const dry = await runCli(["run", pkt, "--dry-run"]);
  assert.equal(dry.code, 3, dry.stderr);
});

Deno.test("run refuses a malformed clause entry, an unknown simulate key and a contract with no evaluable item", async () => {
  await using dir = await tempDir();
  const cases: [string, string, string][] = [
    ["verify:\n  contains: [{text: hello}]", "invalid_verify_entry", "verify.contains[1]"],
    [
      "verify:\n  files_exist: [ok.txt]\nsimulate:\n  attempts:\n    - write: [{path: ok.txt}]",
      "unknown_simulate_key",
      "simulate.attempts[1].write",
    ],
    [
      "verify:\n  files_exist: [ok.txt]\nsimulate:\n  attempts:\n    - writes: [{pth: ok.txt}]",
      "unknown_simulate_key",
      "simulate.attempts[1].writes[1].pth",
    ],
    ["verify:\n  files_exist: [ok.txt]\nsimulate:\n  atempts: []", "unknown_simulate_key", "simulate.atempts"],
    ["verify: {}", "contract_without_items", "verify"],
    ["verify:\n  files_exist: []\n  commands: []", "contract_without_items", "verify"],
  ];
  let n = 0;
  for (const [yaml, kind, field] of cases) {
    const pkt = await makePacket(`${dir.path}/${n++}`, { "01_a.prompt.md": promptFile("1", yaml) });
    await refused(["run", pkt], pkt, kind, "prompts/01_a.prompt.md", field);
  }
});

Deno.test("start and repair refuse the same findings before anything is spawned", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  file_exist: [never.txt]"),
  });
  await refused(["start", pkt], pkt, "unknown_verify_clause", "prompts/01_a.prompt.md", "verify.file_exist");
  await refused(["repair", pkt, "1"], pkt, "unknown_verify_clause", "prompts/01_a.prompt.md", "verify.file_exist");
  assert.equal(await Deno.stat(`${pkt}/.prompt_runner/logs`).then(() => true, () => false), false, "no runner log");
});

Deno.test("the gate looks at the selected prompts only; tolerated findings keep running unless --strict", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", `${OK}\nmystery_key: 1`),
    "02_b.prompt.md": promptFile("2", "verify:\n  file_exist: [x]"),
  }, "shiny_new_key: true\n");
  // An unknown front-matter key and an unknown manifest key are warnings (as in the sdk): 01 runs.
  const lint = await runCli(["packet", "lint", pkt, "--json"]);
  const kinds = (JSON.parse(lint.stdout).findings as { kind: string }[]).map((f) => f.kind);
  assert.ok(kinds.includes("unknown_front_matter_key") && kinds.includes("unknown_manifest_key"), kinds.join());
  const strict = await runCli(["run", pkt, "1", "--strict"]);
  assert.equal(strict.code, 3, strict.stderr);
  assert.match(strict.stderr, /^error: refusing to run: prompt_runner_packet\.md: shiny_new_key: /);
  assert.match(strict.stderr, /prompts\/01_a\.prompt\.md: mystery_key: /);
  assert.equal(await storeExists(pkt), false);
  const r = await runCli(["run", pkt, "1"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /✓ Prompt 01 completed/);
  // Prompt 02's misspelt clause refuses as soon as 02 is selected.
  const all = await runCli(["run", pkt, "2"]);
  assert.equal(all.code, 3);
  assert.match(all.stderr, /prompts\/02_b\.prompt\.md: verify\.file_exist: /);
});

Deno.test("file naming findings the sdk tolerated keep running", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "07_a.prompt.md": promptFile("1", OK) });
  const lint = await runCli(["packet", "lint", pkt]);
  assert.equal(lint.code, 3, "the lint error exists");
  assert.match(lint.stdout + lint.stderr, /prompt_id_filename_mismatch|does not match the file name/);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
});

Deno.test("run refuses a misspelt verify: key and a clause written beside verify: instead of under it", async () => {
  await using dir = await tempDir();
  const cases: [string, string, RegExp][] = [
    ["verfy:\n  files_exist: [never.txt]", "verfy", /verfy is not a front-matter key; did you mean "verify"\?/],
    ["Verify:\n  files_exist: [never.txt]", "Verify", /did you mean "verify"\?/],
    ["files_exist: [never.txt]", "files_exist", /files_exist is a verify clause; it belongs under verify:/],
    ["file_exist: [never.txt]", "file_exist", /looks like the verify clause "files_exist"; it belongs under verify:/],
  ];
  let n = 0;
  for (const [yaml, key, message] of cases) {
    const pkt = await makePacket(`${dir.path}/${n++}`, { "01_a.prompt.md": promptFile("1", yaml) });
    await refused(["run", pkt], pkt, "stray_verify_key", "prompts/01_a.prompt.md", key);
    const r = await runCli(["run", pkt]);
    assert.match(r.stderr.split("\n")[0]!, message);
    const lint = await runCli(["packet", "lint", pkt]);
    assert.equal(lint.code, 3, "packet lint fails on it too");
  }
});

Deno.test("run refuses a packet with no prompts (a prompt_dir typo, an empty prompts/) instead of completing nothing", async () => {
  await using dir = await tempDir();
  const typo = await makePacket(`${dir.path}/typo`, { "01_a.prompt.md": promptFile("1", OK) }, "prompt_dir: promtps\n");
  await refused(["run", typo], typo, "packet_without_prompts", "prompt_runner_packet.md", "prompt_dir");
  const r = await runCli(["run", typo]);
  assert.match(r.stderr, /no prompts found in promtps\/ \(prompt_dir: promtps\): the directory does not exist/);
  assert.match(r.stderr, /did you mean "prompts"\?/);
  const lint = await runCli(["packet", "lint", typo]);
  assert.equal(lint.code, 3);
  assert.match(lint.stdout, /packet_without_prompts/);
  const empty = await makePacket(`${dir.path}/empty`, {});
  await refused(["run", empty], empty, "packet_without_prompts", "prompt_runner_packet.md", "prompt_dir");
  await refused(["start", empty], empty, "packet_without_prompts", "prompt_runner_packet.md", "prompt_dir");
});
