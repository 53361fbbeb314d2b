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
