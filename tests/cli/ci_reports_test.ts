/**
 * `--report junit|summary|json=PATH` (docs/ci.md), black-box on the simulated provider, the JUnit read by a real
 * consumer (fast-xml-parser): a passing run with a partial selection, a failing and faulted run, an interrupted run,
 * and a run refused before it started each leave their reports.
 */
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readSnapshot } from "../run/support.ts";
import { waitFor } from "../support/wait.ts";

type Node = Record<string, unknown>;

/** The `<testsuite>` of a JUnit file, validated and parsed by fast-xml-parser (attributes as `@_name`). */
export async function readJunit(path: string): Promise<{ suite: Node; cases: Node[] }> {
  const xml = await Deno.readTextFile(path);
  assert.equal(XMLValidator.validate(xml), true, `well-formed XML: ${path}`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => ["testcase", "property", "testsuite"].includes(name),
  });
  const doc = parser.parse(xml) as { testsuites: { testsuite: Node[] } };
  const suites = doc.testsuites.testsuite;
  assert.equal(suites.length, 1, "one testsuite per run");
  const suite = suites[0]!;
  return { suite, cases: (suite.testcase as Node[] | undefined) ?? [] };
}

/** A testcase's properties as a map. */
export function props(c: Node): Record<string, string> {
  const list = ((c.properties as Node | undefined)?.property as Node[] | undefined) ?? [];
  return Object.fromEntries(list.map((p) => [String(p["@_name"]), String(p["@_value"])]));
}

const WRITES = (id: string, file: string) =>
  promptFile(id, `verify:\n  files_exist: [${file}]\nsimulate:\n  attempts:\n    - writes: [{path: ${file}}]`);

Deno.test("a passing run of a partial selection: one testcase per selected prompt, summary and json reports", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": WRITES("1", "a.txt"),
    "02_b.prompt.md": WRITES("2", "b.txt"),
    "03_c.prompt.md": WRITES("3", "c.txt"),
  });
  const out = `${dir.path}/out`;
  const r = await runCli([
    "run",
    pkt,
    "--through",
    "2",
    "--report",
    `junit=${out}/junit.xml`,
    "--report",
    `summary=${out}/summary.md`,
    "--report",
    `json=${out}/summary.json`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const { suite, cases } = await readJunit(`${out}/junit.xml`);
  assert.equal(suite["@_name"], "scenario");
  assert.deepEqual([suite["@_tests"], suite["@_failures"], suite["@_errors"], suite["@_skipped"]], [
    "2",
    "0",
    "0",
    "0",
  ]);
  assert.deepEqual(cases.map((c) => c["@_name"]), ["01 Prompt 1", "02 Prompt 2"], "prompt 3 was not selected");
  assert.ok(cases.every((c) => c["@_classname"] === "scenario"));
  assert.ok(cases.every((c) => !("failure" in c) && !("error" in c) && !("skipped" in c)));
  const p1 = props(cases[0]!);
  assert.equal(p1.attempts, "1");
  assert.equal(p1.modes, "run");
  assert.equal(p1.steered, "false");
  assert.equal(p1.amended, "false");
  assert.match(p1.commit ?? "", /^[0-9a-f]{40}$/);
  const json = JSON.parse(await Deno.readTextFile(`${out}/summary.json`));
  assert.equal(json.type, "run_summary");
  assert.equal(p1.run_id, json.run_id);
  // The json report is the document `run --json` ends with (the same as `status --summary --json`).
  const status = await runCli(["status", pkt, "--summary", "--json"]);
  assert.deepEqual(JSON.parse(status.stdout), json);
  const md = await Deno.readTextFile(`${out}/summary.md`);
  assert.match(md, /^## prompt_runner: scenario — ✅ completed/);
  assert.match(md, /\| 01 Prompt 1 \| run \| ✅ completed \| `[0-9a-f]{8}` \|/);
  assert.doesNotMatch(md, /Prompt 3/);
});

Deno.test("a failing and faulted run: a verification failure is <failure> with its checks, a verifier fault <error>", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [never.txt]\nrecovery: {repair: {enabled: false}}"),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  commands:\n    - {exec: definitely-not-a-command-xyz, timeout_ms: 5000}",
    ),
    "03_c.prompt.md": WRITES("3", "c.txt"),
  });
  const report = `${dir.path}/junit.xml`;
  const r = await runCli(["run", pkt, "--keep-going", "--report", `junit=${report}`]);
  assert.equal(r.code, 1, r.stderr);
  const { suite, cases } = await readJunit(report);
  assert.deepEqual([suite["@_tests"], suite["@_failures"], suite["@_errors"], suite["@_skipped"]], [
    "3",
    "1",
    "1",
    "1",
  ]);
  const failure = cases[0]!.failure as Node;
  assert.equal(failure["@_type"], "verification_failed");
  assert.match(String(failure["#text"]), /files_exist never\.txt: missing/);
  const error = cases[1]!.error as Node;
  assert.equal(error["@_type"], "verifier_fault");
  assert.match(String(error["#text"]), /commands definitely-not-a-command-xyz: .*\(fault\)/);
  assert.equal(props(cases[1]!).status, "verifier_fault");
  // A verifier fault halts the run even under --keep-going (docs/reference/contract.md §8): prompt 3 is not reached.
  assert.match(String((cases[2]!.skipped as Node)["@_message"]), /not reached/);
});

// Thirty seconds of session: the SIGINT lands while it runs however loaded the machine is.
const SLOW = "verify:\n  files_exist: [slow.txt]\nsimulate:\n  attempts:\n    - delay_ms: 3000\n" +
  "      messages: [one, two, three, four, five, six, seven, eight, nine, ten]\n      writes: [{path: slow.txt}]";

Deno.test("an interrupted run: the running prompt is <error>, the prompt not reached is <skipped>", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", SLOW),
    "02_b.prompt.md": WRITES("2", "b"),
  });
  const report = `${dir.path}/junit.xml`;
  const json = `${dir.path}/summary.json`;
  const child = spawnCli(["run", pkt, "--report", `junit=${report}`, "--report", `json=${json}`]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true, { timeoutMs: 60_000 });
  child.kill("SIGINT");
  const out = await child.output();
  assert.equal(out.code, 130);
  const { suite, cases } = await readJunit(report);
  assert.deepEqual([suite["@_tests"], suite["@_errors"], suite["@_skipped"]], ["2", "1", "1"]);
  assert.equal((cases[0]!.error as Node)["@_type"], "interrupted");
  assert.match(String((cases[0]!.error as Node)["@_message"]), /interrupted/);
  assert.match(String((cases[1]!.skipped as Node)["@_message"]), /not reached/);
});

Deno.test("a run refused before it starts still writes its reports: one errored testcase named run", async () => {
  await using dir = await tempDir();
  const report = `${dir.path}/junit.xml`;
  const md = `${dir.path}/summary.md`;
  // A stale report from an earlier run is replaced, never left for the CI job to read.
  await Deno.writeTextFile(report, "stale");
  const r = await runCli([
    "run",
    `${dir.path}/no-such-packet`,
    "--report",
    `junit=${report}`,
    "--report",
    `summary=${md}`,
  ]);
  assert.notEqual(r.code, 0);
  const { suite, cases } = await readJunit(report);
  assert.deepEqual([suite["@_tests"], suite["@_errors"]], ["1", "1"]);
  assert.equal(cases[0]!["@_name"], "run");
  assert.match(String((cases[0]!.error as Node)["@_message"]), /no-such-packet/);
  assert.match(await Deno.readTextFile(md), /❌ aborted/);
});

Deno.test("--report refuses a bad value with a usage error naming it", async () => {
  const a = await runCli(["run", ".", "--report", "xml=out.xml"]);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /--report "xml=out\.xml": the format must be one of junit, summary, json/);
  const b = await runCli(["run", ".", "--report", "junit"]);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--report "junit": expected FORMAT=PATH/);
});

Deno.test("a second signal (a CI cancel: SIGINT, then SIGTERM) still writes the reports before exiting 130", async () => {
  await using dir = await tempDir();
  const cli = `${dir.path}/fake-claude`;
  const init = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });
  // A provider that ignores both signals: only the second one can end this run (the hard stop).
  await Deno.writeTextFile(
    cli,
    `#!/bin/bash\n[ "$1" = "--version" ] && { echo "2.1.0 (Claude Code)"; exit 0; }\n` +
      `trap '' INT TERM; echo '${init}'; while :; do sleep 0.2; done\n`,
  );
  await Deno.chmod(cli, 0o755);
  const yaml = `provider: claude\nmodel: m\nclaude_opts: {cli_path: ${cli}}\ntimeout: 600000\n` +
    "recovery: {interrupt_grace_ms: 60000}\nverify:\n  files_exist: [hello.txt]";
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", yaml),
    "02_b.prompt.md": WRITES("2", "b"),
  });
  const report = `${dir.path}/junit.xml`;
  const json = `${dir.path}/summary.json`;
  const child = spawnCli(["run", pkt, "--report", `junit=${report}`, "--report", `json=${json}`]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true, { timeoutMs: 60_000 });
  child.kill("SIGINT");
  child.kill("SIGTERM"); // a different signal: never coalesced with the first
  const out = await child.output();
  assert.equal(out.code, 130);
  const { suite, cases } = await readJunit(report);
  assert.deepEqual([suite["@_tests"], suite["@_errors"], suite["@_skipped"]], ["2", "1", "1"]);
  const runProps = Object.fromEntries(
    ((suite.properties as Node).property as Node[]).map((p) => [p["@_name"], p["@_value"]]),
  );
  assert.deepEqual([runProps.status, runProps.reason, runProps.exit_code], ["failed", "interrupted", "130"]);
  assert.ok("error" in cases[0]!, "the prompt the signals stopped is an error");
  // Both reports come from one snapshot of the state (docs/ci.md, "A second Ctrl-C"): the same prompts, the same verdict.
  const doc = JSON.parse(await Deno.readTextFile(json));
  assert.deepEqual([doc.status, doc.reason, doc.exit_code], ["failed", "interrupted", 130]);
  assert.deepEqual(doc.prompts.map((p: { id: string }) => p.id), ["01", "02"]);
  assert.equal(doc.prompts.length, Number(suite["@_tests"]));
  assert.notEqual(doc.prompts[0].status, "completed");
});

Deno.test("a run with nothing left to run replaces the report with an empty suite", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": WRITES("1", "a.txt") });
  const report = `${dir.path}/junit.xml`;
  assert.equal((await runCli(["run", pkt, "--report", `junit=${report}`])).code, 0);
  assert.equal((await readJunit(report)).cases.length, 1);
  const again = await runCli(["run", pkt, "--remaining", "--report", `junit=${report}`]);
  assert.equal(again.code, 0, again.stderr);
  const { suite, cases } = await readJunit(report);
  assert.deepEqual([suite["@_tests"], cases.length], ["0", 0]);
});
