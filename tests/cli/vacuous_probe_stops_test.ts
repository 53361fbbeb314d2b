/**
 * The vacuous probe (src/run/vacuous.ts, docs/lint.md) evaluates a contract only up to its first item that does not
 * pass: a prompt whose files do not exist yet — the usual case — costs the probe one missing entry, not every clause
 * (docs/bench.md, "Per-prompt cost"). Counted by a `--strict` command that appends a line each time it runs: after a
 * missing file it runs once (the verification of the session's work), not twice; with the file already there the
 * probe goes on and runs it as well.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "../run/support.ts";

/** A prompt checking `file` first, then a command that appends one line to `counter` per run. */
function counted(file: string, counter: string): string {
  return `verify:\n  files_exist: [${file}]\n  commands:\n` +
    `    - {exec: sh, args: ["-c", "echo run >> '${counter}'"], timeout_ms: 10000}\n` +
    "simulate:\n  attempts:\n    - writes: [{path: b.txt, text: ok}]";
}

async function runsOf(counter: string): Promise<number> {
  const text = await Deno.readTextFile(counter).catch(() => "");
  return text.split("\n").filter((l) => l === "run").length;
}

Deno.test("the vacuous probe stops at the first item that does not pass; a passing one goes on", async () => {
  await using dir = await tempDir();
  const missing = `${dir.path}/missing_runs.txt`;
  const present = `${dir.path}/present_runs.txt`;
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", counted("b.txt", missing)),
    "02_b.prompt.md": promptFile("2", counted("README.md", present)),
  });
  const r = await runCli(["run", pkt, "--strict", "--no-commit", "--keep-going"]);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]?.status, "completed", r.stderr);
  assert.equal(await runsOf(missing), 1, "b.txt is missing before the session: the probe never ran the command");
  assert.equal(prompts["02"]?.status, "failed", "README.md already exists: vacuous under --strict");
  assert.equal(prompts["02"]?.result?.failure_class, "vacuous_contract");
  assert.equal(await runsOf(present), 1, "the probe evaluated the command after the passing file");
});
