/**
 * Interventions travel with the work (issue #10 item 8): a packet-local run whose packet lies inside a committed
 * target repo commits each prompt's intervention and amendment records with its work, never counted against
 * `changed_paths_only` nor `repos_clean`, and never swept into another prompt's commit.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { manifest, promptFile, readPrompts, readSnapshot } from "../run/support.ts";
import { waitFor } from "../support/wait.ts";

const STORE = "pkt/.prompt_runner";

async function filesOf(repo: string, rev: string): Promise<string[]> {
  return (await git(repo, "show", "--name-only", "--format=", rev)).split("\n").filter(Boolean).sort();
}

Deno.test("a steered, amended prompt's commit carries its records; a later amendment never rides with prompt 02", async () => {
  await using tmp = await tempDir();
  const repo = `${tmp.path}/repo`;
  const pkt = `${repo}/pkt`;
  // The packet is committed inside the repo it works on (repo `app` is the packet's parent).
  await initRepo(repo, {
    "README.md": "# r\n",
    "pkt/prompt_runner_packet.md": manifest().replace("path: app", "path: .."),
    "pkt/prompts/01_a.prompt.md": promptFile(
      "1",
      `verify:
  changed_paths_only: [notes.txt]
  contains:
    - {path: notes.txt, text: "magic"}
simulate:
  attempts:
    - delay_ms: 300
      writes: [{path: notes.txt, text: "magic\\n"}]
      messages: [one, two, three, four, five, six, seven, eight, nine, ten]
  steer:
    messages: ["Adjusting as asked."]`,
    ),
    "pkt/prompts/02_b.prompt.md": promptFile(
      "2",
      `verify:
  changed_paths_only: [second.txt]
simulate:
  attempts:
    - delay_ms: 300
      writes: [{path: second.txt, text: "two\\n"}]
      messages: [one, two, three, four, five, six, seven, eight, nine, ten]`,
    ),
  });
  // A run-local amendment before the run: recorded in the store root, which the repo ignores.
  const pre = await runCli(["control", "amend", pkt, "1", "--add-file", "notes.txt", "--reason", "scope"]);
  assert.equal(pre.code, 0, pre.stderr);
  assert.equal(await git(repo, "status", "--porcelain"), "");

  const child = spawnCli(["run", pkt]);
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    return s?.session_live === true && s.prompt_id === "01";
  });
  const steer = await runCli(["control", "steer", pkt, "--", "mind", "the", "notes"]);
  assert.equal(steer.code, 0, steer.stderr);
  // While prompt 02 works, prompt 01 (already committed, its records tracked) is amended again.
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    return s?.session_live === true && s.prompt_id === "02";
  });
  const late = await runCli(["control", "amend", pkt, "1", "--add-file", "README.md", "--reason", "late"]);
  assert.equal(late.code, 0, late.stderr);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout));

  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]!.status, "completed");
  assert.equal(prompts["01"]!.result?.steered, true);
  assert.equal(prompts["02"]!.status, "completed", "changed_paths_only ignored the modified tracked record");
  // Prompt 01's commit: its work plus its intervention and amendment records, force-added past the .gitignore.
  assert.deepEqual(await filesOf(repo, "HEAD~1"), [
    "notes.txt",
    `${STORE}/amendments/01.jsonl`,
    `${STORE}/interventions/01.jsonl`,
  ]);
  const committed = await git(repo, "show", `HEAD~1:${STORE}/interventions/01.jsonl`);
  assert.equal(JSON.parse(committed).text, "mind the notes");
  assert.equal((await git(repo, "show", `HEAD~1:${STORE}/amendments/01.jsonl`)).split("\n").length, 1);
  // Prompt 02's commit carries only its own work; the late amendment of 01 stays a local modification.
  assert.deepEqual(await filesOf(repo, "HEAD"), ["second.txt"]);
  assert.equal(await git(repo, "status", "--porcelain"), `M ${STORE}/amendments/01.jsonl`);
});

Deno.test("a packet outside its target repo: commits carry no records and the store stays untracked", async () => {
  await using tmp = await tempDir();
  const pkt = `${tmp.path}/pkt`;
  await writeFiles(pkt, {
    "prompt_runner_packet.md": manifest(),
    "prompts/01_a.prompt.md": promptFile("1", `simulate:\n  attempts:\n    - writes: [{path: a.txt, text: "a\\n"}]`),
  });
  await initRepo(`${pkt}/app`);
  const amend = await runCli(["control", "amend", pkt, "1", "--add-file", "a.txt", "--reason", "r"]);
  assert.equal(amend.code, 0, amend.stderr);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await filesOf(`${pkt}/app`, "HEAD"), ["a.txt"]);
});
