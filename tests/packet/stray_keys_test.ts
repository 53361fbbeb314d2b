/** Typos that used to turn a check off silently are lint findings (docs/lint.md): a misspelt or misplaced `verify:`. */
import assert from "node:assert/strict";
import { lintPacket } from "../../src/contract/packet_lint.ts";
import { strayVerifyKey } from "../../src/contract/lint.ts";
import { RUN_REFUSALS } from "../../src/run/lint_gate.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

Deno.test("strayVerifyKey(): verify misspelt or in another case, and clauses at the top level; other keys are not", () => {
  for (const k of ["verfy", "Verify", "VERIFY", "verifiy", "verif"]) {
    assert.match(strayVerifyKey(k) ?? "", /^\w+ is not a front-matter key; did you mean "verify"\?/, k);
  }
  assert.match(strayVerifyKey("files_exist")!, /^files_exist is a verify clause; it belongs under verify:/);
  assert.match(strayVerifyKey("doc")!, /belongs under verify:/);
  assert.match(strayVerifyKey("file_exist")!, /looks like the verify clause "files_exist"; it belongs under verify:/);
  assert.match(strayVerifyKey("Commands")!, /"commands"; it belongs under verify:/);
  // Known keys, sdk extras and short words near a short clause name stay ordinary unknown keys.
  for (const k of ["verify", "validation", "references", "ver", "docs", "jsons", "notes", "owner", "mission"]) {
    assert.equal(strayVerifyKey(k), null, k);
  }
});

Deno.test("packet lint: a stray verify key is an error that refuses a run, reported once (not also as unknown)", async () => {
  await using dir = await tempDir();
  await writePacket(dir.path, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\nverfy:\n  files_exist: [a]\n"),
    "02_b.prompt.md": promptText("id: 2\nfiles_exist: [b]\n"),
    "03_c.prompt.md": promptText("id: 3\nverify:\n  files_exist: [c]\nVerify:\n  commands: [x]\nmystery: 1\n"),
  });
  const r = await lintPacket(dir.path);
  const of = (id: string) =>
    r.findings.filter((f) => f.prompt_id === id).map((f) => `${f.severity}:${f.kind}:${f.key}`).sort();
  assert.deepEqual(of("01"), ["error:stray_verify_key:verfy", "warning:prompt_without_verify:verify"]);
  assert.deepEqual(of("02"), ["error:stray_verify_key:files_exist", "warning:prompt_without_verify:verify"]);
  assert.deepEqual(of("03"), [
    "error:stray_verify_key:Verify",
    "warning:contract_without_commands:verify",
    "warning:unknown_front_matter_key:mystery",
  ]);
  const f = r.findings.find((f) => f.key === "verfy")!;
  assert.equal(f.file, "prompts/01_a.prompt.md");
  assert.ok(RUN_REFUSALS.has("stray_verify_key"));
  assert.equal(r.pass, false);
});

Deno.test("packet lint: a packet without prompts is an error naming the directory looked in, with a did-you-mean", async () => {
  await using dir = await tempDir();
  const typo = await writePacket(`${dir.path}/typo`, "name: p\nprompt_dir: promtps\n", {
    "01_a.prompt.md": promptText("id: 1\nverify:\n  files_exist: [a]\n"),
  });
  const r = await lintPacket(typo);
  const f = r.findings.find((f) => f.kind === "packet_without_prompts");
  assert.equal(f?.severity, "error");
  assert.equal(f?.file, "prompt_runner_packet.md");
  assert.equal(f?.key, "prompt_dir");
  assert.match(f!.message, /no prompts found in promtps\/ \(prompt_dir: promtps\): the directory does not exist/);
  assert.match(f!.message, /did you mean "prompts"\?$/);
  assert.ok(RUN_REFUSALS.has("packet_without_prompts"));
  const empty = await writePacket(`${dir.path}/empty`, "name: p\n", {}, { "prompts/notes.txt": "x" });
  const e = (await lintPacket(empty)).findings.find((f) => f.kind === "packet_without_prompts");
  assert.match(e!.message, /no prompts found in prompts\/: it holds no \*\.prompt\.md \(or \*\.md\) file/);
  await Deno.remove(`${empty}/prompts`, { recursive: true });
  const gone = (await lintPacket(empty)).findings.find((f) => f.kind === "packet_without_prompts");
  assert.match(gone!.message, /prompts\/: the directory does not exist; a run would check nothing$/);
  const fine = await writePacket(`${dir.path}/fine`, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\nverify:\n  files_exist: [a]\n"),
  });
  assert.ok(!(await lintPacket(fine)).findings.some((f) => f.kind === "packet_without_prompts"));
});

Deno.test("packet lint warns about prompt-dir entries that look like prompts but are not read", async () => {
  await using dir = await tempDir();
  const pkt = await writePacket(dir.path, "name: p\n", {
    "01_a.prompt.md": promptText("id: 1\nverify:\n  files_exist: [a]\n"),
    "02_b.promt.md": promptText("id: 2\n"),
    "03_c.prompt.txt": "x",
    "notes.md": "x",
    "README.md": "x",
    "01_a.checklist.md": "- [ ] x\n",
    "01_a.prompt.md~": "x",
    "data.json": "{}",
  });
  await Deno.mkdir(`${pkt}/prompts/04_d.prompt.md`);
  await Deno.mkdir(`${pkt}/prompts/assets`);
  const fifo = new Deno.Command("mkfifo", { args: [`${pkt}/prompts/05_e.prompt.md`] });
  assert.equal((await fifo.output()).code, 0);
  const r = await lintPacket(pkt);
  const ignored = r.findings.filter((f) => f.kind === "prompt_file_ignored");
  assert.deepEqual(ignored.map((f) => [f.severity, f.file]), [
    ["warning", "prompts/02_b.promt.md"],
    ["warning", "prompts/03_c.prompt.txt"],
    ["warning", "prompts/04_d.prompt.md"],
    ["warning", "prompts/05_e.prompt.md"],
    ["warning", "prompts/notes.md"],
  ]);
  assert.match(ignored[2]!.message, /04_d\.prompt\.md is a directory, not a prompt file; it is not read/);
  assert.match(ignored[3]!.message, /05_e\.prompt\.md is not a regular file \(a FIFO/);
  assert.match(ignored[0]!.message, /is not read as a prompt: this directory's prompts are its \*\.prompt\.md files/);
  assert.equal(r.packet?.prompts.length, 1);
});
