/**
 * A prompt flagged vacuous in its run (docs/lint.md) stays visible after the run: `status` (human and `--json`) names
 * it, and its `prompt_finished` event carries `vacuous: true` (absent for the others).
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";

const VACUOUS = "verify:\n  files_exist: [README.md]\nsimulate:\n  attempts:\n    - messages: [done]";
const REAL = "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]";

Deno.test("status and the prompt_finished event carry vacuous for a prompt flagged in its run", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", VACUOUS),
    "02_b.prompt.md": promptFile("2", REAL),
    "03_c.prompt.md": promptFile("3", VACUOUS),
  });
  const run = await runCli(["run", pkt]);
  assert.equal(run.code, 0, run.stderr);

  const json = await runCli(["status", pkt, "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).vacuous, ["01", "03"]);
  const human = await runCli(["status", pkt]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /\n {2}vacuous {4}01, 03 \(contract passed before any session ran\)\n/);

  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "prompt_finished");
  const byId = new Map(events.map((e) => [e.prompt_id, e.data]));
  assert.deepEqual([...byId.keys()], ["01", "02", "03"]);
  assert.equal(byId.get("01").vacuous, true);
  assert.equal(byId.get("03").vacuous, true);
  assert.equal("vacuous" in byId.get("02"), false, "the field is absent, not false, for a prompt that was not flagged");

  // A later run that does not flag the prompt replaces its result: status no longer names it.
  await Deno.writeTextFile(`${pkt}/prompts/01_a.prompt.md`, promptFile("1", REAL.replaceAll("b.txt", "a.txt")));
  const rerun = await runCli(["run", pkt, "1", "--new-run"]);
  assert.equal(rerun.code, 0, rerun.stderr);
  const after = await runCli(["status", pkt, "--json"]);
  assert.deepEqual(JSON.parse(after.stdout).vacuous, []);
  const afterHuman = await runCli(["status", pkt]);
  assert.doesNotMatch(afterHuman.stdout, /vacuous/);
});

Deno.test("status of a packet that never ran has an empty vacuous list and no vacuous row", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", VACUOUS) });
  const json = await runCli(["status", pkt, "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).vacuous, []);
  assert.doesNotMatch((await runCli(["status", pkt])).stdout, /vacuous/);
});
