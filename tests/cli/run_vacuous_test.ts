/**
 * No vacuous verdicts, part two (docs/lint.md): a prompt whose contract already passes before its first session is
 * flagged `vacuous` (warning line, prompt result, run summary); `--strict` fails it without a session; requested
 * pre-flight completion is an intended skip and never vacuous.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { commitCount, history, makePacket, promptFile, readPrompts } from "../run/support.ts";

/** Already satisfied by the scratch repo (README.md exists): the session's work is not what the verdict checks. */
const VACUOUS = "verify:\n  files_exist: [README.md]\nsimulate:\n  attempts:\n    - messages: [done]";
/** Needs the session's file. */
const REAL = "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]";
/** Needs the session's file; lint-clean, so `--strict` lets it run. */
const REAL_STRICT =
  "verify:\n  contains: [{path: b.txt, text: ok}]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt, text: ok}]";
/** A command (`true`) beside a satisfied file: only --strict evaluates commands before the session. */
const WITH_COMMAND =
  'verify:\n  files_exist: [README.md]\n  commands:\n    - {exec: "true", args: [], timeout_ms: 10000}';

Deno.test("a contract that passes before the first session is flagged vacuous in the output, the result and the summary", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", VACUOUS),
    "02_b.prompt.md": promptFile("2", REAL),
  });
  const r = await runCli(["run", pkt, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: prompt 01's contract already passes before any session ran; its verdict is vacuous/);
  assert.doesNotMatch(r.stderr, /prompt 02's contract/);
  assert.match(r.stderr, /warning: vacuous verdicts in this run: 01 /);
  const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert.equal(summary.type, "run_summary");
  assert.deepEqual(summary.vacuous, ["01"]);
  assert.equal(summary.prompts[0].vacuous, true);
  assert.equal(summary.prompts[1].vacuous, undefined);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]?.status, "completed", "without --strict the prompt still runs and completes");
  assert.equal(prompts["01"]?.result?.vacuous, true);
  assert.equal(prompts["02"]?.result?.vacuous, undefined);
});

Deno.test("--strict fails a vacuous prompt before any session and evaluates commands for the rule", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", WITH_COMMAND),
    "02_b.prompt.md": promptFile("2", REAL_STRICT),
  });
  // Without --strict the command is not run beforehand, so the contract cannot be shown to pass: not vacuous.
  const lax = await runCli(["run", pkt, "1", "--no-commit"]);
  assert.equal(lax.code, 0, lax.stderr);
  assert.doesNotMatch(lax.stderr, /vacuous/);
  assert.equal((await readPrompts(pkt))["01"]?.result?.vacuous, undefined);
  const strict = await runCli(["run", pkt, "--strict", "--new-run", "--keep-going"]);
  assert.equal(strict.code, 1, strict.stderr);
  assert.match(strict.stderr, /error: prompt 01: vacuous contract: it already passes before any session ran/);
  const prompts = await readPrompts(pkt);
  const p = prompts["01"]!;
  assert.equal(p.status, "failed");
  assert.equal(p.result?.failure_class, "vacuous_contract");
  assert.equal(p.result?.session_ran, false);
  assert.equal(p.result?.vacuous, true);
  const thisRun = p.result?.run_id;
  assert.equal(p.attempts.filter((a) => a.run_id === thisRun).length, 0, "no session was started");
  assert.equal(prompts["02"]?.status, "completed", "--keep-going goes on to the next prompt");
  assert.equal(await commitCount(`${pkt}/app`), 2, "only prompt 02 was committed");
});

Deno.test("requested pre-flight completion is an intended skip, never vacuous; repair is not probed", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", WITH_COMMAND) });
  const r = await runCli(["run", pkt, "--remaining", "--strict"]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /vacuous/);
  let p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.result?.source, "preflight_verify");
  assert.equal(p.result?.vacuous, undefined);
  const forced = await runCli(["run", pkt, "1", "--verify-first", "--strict", "--no-commit"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.doesNotMatch(forced.stderr, /vacuous/);
  const repair = await runCli(["repair", pkt, "1", "--strict", "--no-commit"]);
  assert.equal(repair.code, 0, repair.stderr);
  assert.doesNotMatch(repair.stderr, /vacuous/);
  p = (await readPrompts(pkt))["01"]!;
  assert.equal(history(p).at(-1), "repair:completed");
  assert.equal(p.result?.vacuous, undefined);
});
