/**
 * No vacuous verdicts ahead of the run (docs/lint.md): `packet preflight` runs the runner's own vacuous check on the
 * current tree for every prompt not yet completed (amendments folded; commands only under `--strict`), and a
 * `--remaining` question reports passing prompts as pre-flight completions instead.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";

/** Already satisfied by the scratch repo (README.md exists). */
const VACUOUS = "verify:\n  files_exist: [README.md]\nsimulate:\n  attempts:\n    - messages: [done]";
/** Needs the session's file. */
const REAL = "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]";
/** A later prompt that depends on 02 yet does not need its work: still vacuous. */
const LATER_VACUOUS = "depends_on: ['02']\n" + VACUOUS;
/** A command (`true`) beside a satisfied file: only --strict evaluates commands. */
const WITH_COMMAND =
  'verify:\n  files_exist: [README.md]\n  commands:\n    - {exec: "true", args: [], timeout_ms: 10000}';

interface Finding {
  kind: string;
  prompt_id: string;
  file: string;
  message: string;
}

function findings(stdout: string): Finding[] {
  const report = JSON.parse(stdout.trim());
  assert.ok(Array.isArray(report.vacuous), "the --json report carries a vacuous list");
  return report.vacuous;
}

Deno.test("packet preflight flags every not-yet-completed prompt whose contract already passes, the later one too", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", VACUOUS),
    "02_b.prompt.md": promptFile("2", REAL),
    "03_c.prompt.md": promptFile("3", LATER_VACUOUS),
    "04_d.prompt.md": promptFile("4", WITH_COMMAND),
  });
  const r = await runCli(["packet", "preflight", pkt, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const f = findings(r.stdout);
  assert.deepEqual(f.map((x) => [x.kind, x.prompt_id, x.file]), [
    ["vacuous", "01", "prompts/01_a.prompt.md"],
    ["vacuous", "03", "prompts/03_c.prompt.md"],
  ]);
  assert.match(f[0]!.message, /prompt 01's contract already passes .*vacuous/);
  assert.equal(JSON.parse(r.stdout).runtime_ready, true, "without --strict a vacuous contract is a warning");

  const human = await runCli(["packet", "preflight", pkt]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(
    human.stdout,
    /WARNING {2}prompts\/01_a\.prompt\.md {2}vacuous\n {11}prompt 01's contract already passes/,
  );
  assert.match(human.stdout, /WARNING {2}prompts\/03_c\.prompt\.md {2}vacuous/);
  assert.doesNotMatch(human.stdout, /02_b|04_d/);
  assert.match(human.stdout, /Runtime ready\./);
});

Deno.test("packet preflight --strict makes a vacuous contract an error (exit 1) and evaluates commands for it", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", WITH_COMMAND),
    "02_b.prompt.md": promptFile("2", REAL),
  });
  const lax = await runCli(["packet", "preflight", pkt, "--json"]);
  assert.equal(lax.code, 0, lax.stderr);
  assert.deepEqual(findings(lax.stdout), [], "commands are not run without --strict, so 01 cannot be shown to pass");
  const strict = await runCli(["packet", "preflight", pkt, "--strict", "--json"]);
  assert.equal(strict.code, 1, strict.stderr);
  const report = JSON.parse(strict.stdout);
  assert.deepEqual(report.vacuous.map((x: Finding) => x.prompt_id), ["01"]);
  assert.equal(report.runtime_ready, false);
  assert.ok(report.readiness_errors.some((e: { kind: string }) => e.kind === "vacuous"));
  assert.match(strict.stderr, /error: preflight failed\n {2}prompt 01's contract already passes/);
  const human = await runCli(["packet", "preflight", pkt, "--strict"]);
  assert.equal(human.code, 1);
  assert.match(human.stdout, /ERROR {4}prompts\/01_a\.prompt\.md {2}vacuous/);
});

Deno.test("packet preflight --remaining reports passing prompts as pre-flight completions, never vacuous", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", VACUOUS),
    "02_b.prompt.md": promptFile("2", REAL),
  });
  const r = await runCli(["packet", "preflight", pkt, "--remaining", "--strict", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const f = findings(r.stdout);
  assert.deepEqual(f.map((x) => [x.kind, x.prompt_id]), [["preflight_completion", "01"]]);
  assert.match(f[0]!.message, /run --remaining will complete it by pre-flight verification/);
  const human = await runCli(["packet", "preflight", pkt, "--remaining"]);
  assert.match(human.stdout, /NOTE {5}prompts\/01_a\.prompt\.md {2}preflight_completion/);
  assert.doesNotMatch(human.stdout, /WARNING|vacuous\n/);
});

Deno.test("packet preflight skips completed prompts and folds amendments into the contract it checks", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", VACUOUS),
    "02_b.prompt.md": promptFile("2", VACUOUS),
  });
  const ran = await runCli(["run", pkt, "1"]);
  assert.equal(ran.code, 0, ran.stderr);
  // An amendment adds a check the tree does not satisfy: 02's enforced contract no longer passes beforehand.
  const amend = await runCli(
    ["control", "amend", pkt, "2", "--add-file", "c.txt", "--reason", "needs its own file", "--author", "ada"],
  );
  assert.equal(amend.code, 0, amend.stderr);
  const r = await runCli(["packet", "preflight", pkt, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(findings(r.stdout), [], "01 is completed; 02's amended contract does not pass yet");
  await Deno.writeTextFile(`${pkt}/app/c.txt`, "x\n");
  const again = await runCli(["packet", "preflight", pkt, "--json", "--allow-dirty"]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(findings(again.stdout).map((x) => x.prompt_id), ["02"]);
});

Deno.test("packet preflight names a corrupt progress.log it cannot check against, fails, and still prints the report", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", VACUOUS) });
  await Deno.mkdir(`${pkt}/.prompt_runner`, { recursive: true });
  await Deno.writeTextFile(`${pkt}/.prompt_runner/progress.log`, "this is not a progress line\n");
  const r = await runCli(["packet", "preflight", pkt, "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.deepEqual(report.vacuous, []);
  const err = report.readiness_errors.find((e: { kind: string }) => e.kind === "vacuous_check_failed");
  assert.ok(err, r.stdout);
  assert.match(err.message, /cannot check for vacuous contracts: .*progress\.log/);
  assert.match(r.stderr, /error: preflight failed\n {2}cannot check for vacuous contracts/);
});

Deno.test("packet preflight names a state.json it cannot read instead of reading it as no leftovers", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", REAL) });
  await Deno.mkdir(`${pkt}/.prompt_runner/state.json`, { recursive: true }); // a directory where the file belongs
  for (const command of ["preflight", "doctor"]) {
    const r = await runCli(["packet", command, pkt, "--json"]);
    const report = JSON.parse(r.stdout);
    const err = report.readiness_errors.find((e: { kind: string }) => e.kind === "state_store_invalid");
    assert.ok(err, r.stdout);
    assert.match(err.message, /cannot read the run state: .*state\.json/);
    assert.equal(report.runtime_ready, false);
    assert.equal(r.code, command === "preflight" ? 1 : 0, r.stderr);
  }
});
