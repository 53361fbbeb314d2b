/**
 * A misspelt key inside a verify entry (`stdout_contain` for `stdout_contains`) would make the verifier ignore the
 * check it stands for. `packet lint` and `run` refuse it (exit 3), naming the prompt file, the key and the keys
 * expected, and the run starts no session and commits nothing; `control amend` / `relax` refuse such an entry too.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "./support.ts";

const TYPO = `verify:
  commands:
    - {exec: cat, args: [hello.txt], stdout_contain: NOPE, timeout_ms: 5000}
simulate:
  attempts:
    - writes: [{path: hello.txt, text: hello}]`;

Deno.test("a misspelt key in a verify entry is refused by packet lint, run and control relax", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("01", TYPO) });
  const head = await git(`${pkt}/app`, "rev-parse", "HEAD");
  const lint = await runCli(["packet", "lint", pkt]);
  assert.equal(lint.code, 3, lint.stdout + lint.stderr);
  assert.match(lint.stdout + lint.stderr, /01_a\.prompt\.md/);
  assert.match(lint.stdout + lint.stderr, /unknown key "stdout_contain" \(did you mean "stdout_contains"\?\)/);
  const run = await runCli(["run", pkt]);
  assert.equal(run.code, 3, run.stdout + run.stderr);
  assert.match(run.stdout + run.stderr, /stdout_contain/);
  assert.equal(await git(`${pkt}/app`, "rev-parse", "HEAD"), head, "nothing committed");
  const relax = await runCli([
    "control",
    "relax",
    pkt,
    "01",
    "--replace",
    "commands",
    "--entry",
    '{"exec":"cat","args":["hello.txt"],"stdout_contain":"zzz"}',
    "--reason",
    "r",
    "--confirm",
  ]);
  assert.equal(relax.code, 2, relax.stdout + relax.stderr);
  assert.match(relax.stderr, /stdout_contain/);
});
