/**
 * A session may not change the contract that judges it (src/run/contract_guard.ts, docs/amendments.md): a simulated
 * agent rewrites its own prompt file's `verify:` to something weaker. The run verifies what it loaded and ends the
 * attempt as a verifier fault; `plan`, `run --dry-run`, `run --remaining` and `start` refuse the prompt (exit 3) while
 * the edited contract is on disk; restoring it or `--accept-contract-edits` (on the audit log) lifts that. A session
 * that edits only the prompt's text, and a persisted `control amend`, are no contract edits.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "./support.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { ContractGuard } from "../../src/run/contract_guard.ts";
import { loadPacket } from "../../src/packet/load.ts";

const STRONG = 'verify:\n  files_exist: [required.txt]\n  commands: ["test -f required.txt"]\n';
const WEAK = "---\nid: 1\nverify:\n  files_exist: [other.txt]\n---\nDo it.\n";

/** A prompt whose agent rewrites its own prompt file with `rewrite` (and writes other.txt, never required.txt). */
function selfEditing(rewrite: string): string {
  return promptFile(
    "1",
    STRONG + "recovery: {repair: {enabled: false}}\nsimulate:\n  attempts:\n    - writes:\n" +
      `        - {path: ../prompts/01_a.prompt.md, text: ${JSON.stringify(rewrite)}}\n` +
      "        - {path: other.txt, text: x}",
  );
}

async function logEntries(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log).catch(() => "");
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
}

Deno.test("a session that weakens its own verify: is a verifier fault, and the prompt is refused until it is undone", async () => {
  await using t = await tempDir();
  const pkt = await makePacket(t.path, { "01_a.prompt.md": selfEditing(WEAK) });
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1, first.stderr);
  assert.match(first.stderr, /error: no verdict stands for prompt 01/);
  assert.match(first.stderr, /prompts\/01_a\.prompt\.md: verify: was changed during prompt 01's session \(attempt 1\)/);
  assert.doesNotMatch(first.stderr, /infrastructure fault/);
  assert.equal(await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`), WEAK, "the session did edit it");
  const record = JSON.parse(await Deno.readTextFile(storePaths(storeRootForPacket(pkt)).contractEditFile("01")));
  assert.deepEqual(record.verify_after, { files_exist: ["other.txt"] });
  assert.deepEqual(record.verify_before, { files_exist: ["required.txt"], commands: ["test -f required.txt"] });

  // Every command that would run it refuses it, naming the file, the field and what it was before.
  for (const args of [["plan", pkt], ["run", pkt, "--dry-run"], ["run", pkt, "--remaining"], ["start", pkt]]) {
    const r = await runCli(args);
    assert.equal(r.code, 3, `${args.join(" ")}: ${r.stderr}`);
    assert.match(
      r.stderr,
      /refusing to run: prompts\/01_a\.prompt\.md: verify: is the contract prompt 01's own session wrote \(run \S+, attempt 1\); before it: \{"files_exist":\["required\.txt"\]/,
      args.join(" "),
    );
  }
  const json = await runCli(["run", pkt, "--remaining", "--json"]);
  assert.equal(JSON.parse(json.stdout.trim().split("\n").at(-1)!).error.code, "contract_edited_in_session");

  // Restored: the refusal is lifted, and the prompt runs under its own contract again (and fails it honestly).
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile("1", STRONG + "recovery: {repair: {enabled: false}}"),
  );
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 1, again.stderr);
  assert.doesNotMatch(again.stderr, /refusing to run/);
  assert.match(again.stdout, /Prompt 01: its verify: (is restored|changed again)/);
  assert.match(again.stderr, /required\.txt: missing/);
});

Deno.test("--accept-contract-edits keeps the session's verify:, on the audit log under the operator's name", async () => {
  await using t = await tempDir();
  const pkt = await makePacket(t.path, { "01_a.prompt.md": selfEditing(WEAK) });
  assert.equal((await runCli(["run", pkt])).code, 1);
  const r = await runCli(["run", pkt, "--remaining", "--accept-contract-edits", "--author", "ana"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(
    r.stdout,
    /Prompt 01: the verify: its session wrote is kept \(--accept-contract-edits, on the audit log\)/,
  );
  const accepted = (await logEntries(pkt)).filter((e) => e.command === "accept_contract_edit");
  assert.equal(accepted.length, 1);
  assert.equal(accepted[0]!.author, "ana");
  assert.equal(accepted[0]!.prompt_id, "01");
  assert.deepEqual((accepted[0]!.params as Record<string, unknown>).verify_after, { files_exist: ["other.txt"] });
  const gone = await Deno.stat(storePaths(storeRootForPacket(pkt)).contractEditFile("01")).catch(() => null);
  assert.equal(gone, null, "the record is settled");
});

Deno.test("a session that edits only its prompt's text is no contract edit", async () => {
  await using t = await tempDir();
  const text = promptFile("1", STRONG + "recovery: {repair: {enabled: false}}") + "A note the agent added.\n";
  const pkt = await makePacket(t.path, {
    "01_a.prompt.md": promptFile(
      "1",
      STRONG + "recovery: {repair: {enabled: false}}\nsimulate:\n  attempts:\n    - writes:\n" +
        `        - {path: ../prompts/01_a.prompt.md, text: ${JSON.stringify(text)}}\n` +
        "        - {path: required.txt, text: x}",
    ),
  });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /verify: was changed/);
});

Deno.test("ContractGuard: a verify: changed by a persisted control amend is not the session's edit", async () => {
  await using t = await tempDir();
  const pkt = await makePacket(t.path, {
    "01_a.prompt.md": promptFile("1", STRONG),
  });
  const prompt = (await loadPacket(pkt)).prompts[0]!;
  const store = storeRootForPacket(pkt);
  const guard = new ContractGuard();
  guard.begin(prompt);
  const amend = await runCli([
    "control",
    "amend",
    pkt,
    "01",
    "--add-file",
    "NOTES.md",
    "--reason",
    "scope",
    "--persist",
  ]);
  assert.equal(amend.code, 0, amend.stderr);
  assert.match(await Deno.readTextFile(prompt.file), /NOTES\.md/);
  assert.equal(await guard.edited(prompt, store, "r1", 1), null);
  // The same change by hand is an edit.
  guard.begin(prompt);
  await Deno.writeTextFile(prompt.file, (await Deno.readTextFile(prompt.file)).replace("NOTES.md", "OTHER.md"));
  const edit = await guard.edited(prompt, store, "r1", 1);
  assert.ok(edit !== null);
  assert.equal(edit.file, "prompts/01_a.prompt.md");
});
