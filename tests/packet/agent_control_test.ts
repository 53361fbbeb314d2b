import assert from "node:assert/strict";
import { inspectPacket, loadPacket } from "../../src/packet/load.ts";
import { packetFingerprint } from "../../src/packet/fingerprint.ts";
import { tempDir } from "../support/fs.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { promptText, writePacket } from "./_packet.ts";

const NO_ENV = { env: {} };
const STRUCTURAL = "verify: {files_exist: [a.txt]}\n";
const CV = "completion_verify: {files_exist: [done.txt]}";

async function findings(
  manifest: string,
  prompt = STRUCTURAL,
): Promise<{ kind: string; key: string | null; message: string; file: string | null }[]> {
  await using t = await tempDir();
  await writePacket(t.path, `name: ac\n${manifest}`, { "01_a.prompt.md": promptText(prompt) });
  const i = await inspectPacket(t.path, NO_ENV);
  return i.findings.filter((f) => f.severity === "error");
}

Deno.test("agent_control loads with its defaults: enabled, continue, 20 iterations", async () => {
  await using t = await tempDir();
  await writePacket(t.path, `name: ac\nagent_control: {${CV}}\n`, { "01_a.prompt.md": promptText(STRUCTURAL) });
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(p.agentControl, {
    enabled: true,
    default_action: "continue",
    max_iterations: 20,
    completion_verify: { files_exist: ["done.txt"] },
  });
  assert.deepEqual(p.execution, { completion: "verifier_owned", incomplete: "fail" });
});

Deno.test("agent_control disabled loads as no agent control", async () => {
  await using t = await tempDir();
  await writePacket(t.path, "name: ac\nagent_control: {enabled: false}\n", {
    "01_a.prompt.md": promptText(STRUCTURAL),
  });
  assert.equal((await loadPacket(t.path, NO_ENV)).agentControl, null);
});

const BAD_AGENT_CONTROL: [string, string, RegExp][] = [
  ["agent_control: {enabled: true}", "agent_control.completion_verify", /at least one item/],
  ["agent_control: {completion_verify: {}}", "agent_control.completion_verify", /at least one item/],
  [`agent_control: {default_action: finish, ${CV}}`, "agent_control.default_action", /one of continue, repeat/],
  [`agent_control: {max_iterations: 0, ${CV}}`, "agent_control.max_iterations", /a positive integer/],
  [`agent_control: {enabled: "yes", ${CV}}`, "agent_control.enabled", /true or false/],
  [`agent_control: {colour: blue, ${CV}}`, "agent_control.colour", /no such key/],
  ["agent_control: [1]", "agent_control", /a map/],
];

for (const [manifest, key, expected] of BAD_AGENT_CONTROL) {
  Deno.test(`agent_control rejects ${manifest} naming the file, ${key} and what was expected`, async () => {
    const errs = await findings(`${manifest}\n`);
    const hit = errs.find((f) => f.key === key);
    assert.ok(hit, JSON.stringify(errs));
    assert.equal(hit.kind, "invalid_option_value");
    assert.equal(hit.file, "prompt_runner_packet.md");
    assert.match(hit.message, /^prompt_runner_packet\.md: /);
    assert.match(hit.message, expected);
  });
}

// The sdk's valid pairs and the invalid ones it rejects.
const EXECUTION: [string, string | null][] = [
  ["{completion: verifier_owned, incomplete: fail}", null],
  ["{completion: verifier_owned}", null],
  ["{completion: agent_owned, incomplete: repeat}", null],
  ["{completion: agent_owned}", "execution.incomplete"],
  ["{completion: agent_owned, incomplete: fail}", "execution.incomplete"],
  ["{completion: verifier_owned, incomplete: repeat}", "execution.incomplete"],
  ["{completion: nobody, incomplete: fail}", "execution.completion"],
  ["{completion: agent_owned, incomplete: repeat, extra: 1}", "execution.extra"],
  ["fast", "execution"],
];

for (const [value, key] of EXECUTION) {
  Deno.test(`execution ${value} ${key ? `is rejected naming ${key}` : "loads"}`, async () => {
    const errs = await findings(`execution: ${value}\n`);
    if (key === null) return assert.deepEqual(errs, []);
    const hit = errs.find((f) => f.key === key);
    assert.ok(hit, JSON.stringify(errs));
    assert.equal(hit.file, "prompt_runner_packet.md");
    assert.match(hit.message, /expected /);
  });
}

Deno.test("agent-owned completion forbids verify.commands and needs a structural clause, per prompt", async () => {
  const exec = "execution: {completion: agent_owned, incomplete: repeat}\n";
  const cmd = await findings(exec, "verify: {files_exist: [a.txt], commands: [{exec: test, args: [-e, a.txt]}]}\n");
  assert.deepEqual(cmd.map((f) => [f.kind, f.file, f.key]), [[
    "agent_owned_commands",
    "prompts/01_a.prompt.md",
    "verify.commands",
  ]]);
  const none = await findings(exec, "verify: {repos_clean: [app]}\n");
  assert.deepEqual(none.map((f) => [f.kind, f.key]), [["agent_owned_structural", "verify"]]);
  assert.deepEqual(await findings(exec), []);
});

Deno.test("agent_control and execution take part in the packet fingerprint", async () => {
  const fp = async (manifest: string) => {
    await using t = await tempDir();
    await writePacket(t.path, `name: ac\n${manifest}`, { "01_a.prompt.md": promptText(STRUCTURAL) });
    return await packetFingerprint(await loadPacket(t.path, NO_ENV));
  };
  const plain = await fp("");
  const ac = await fp(`agent_control: {${CV}}\n`);
  const ac5 = await fp(`agent_control: {max_iterations: 5, ${CV}}\n`);
  const owned = await fp("execution: {completion: agent_owned, incomplete: repeat}\n");
  assert.equal(new Set([plain, ac, ac5, owned]).size, 4);
  assert.equal(await fp(`agent_control: {${CV}}\n`), ac);
});

Deno.test("version --json lists the installed capabilities agent_control.linear and completion.agent_owned", async () => {
  const r = await runCli(["version", "--json"]);
  assert.equal(r.code, 0);
  const caps = parseJsonOut(r).capabilities as string[];
  for (const c of ["agent_control.linear", "completion.agent_owned"]) assert.ok(caps.includes(c), c);
});

Deno.test("packet lint checks completion_verify like a contract, naming the manifest and the clause", async () => {
  await using t = await tempDir();
  await writePacket(
    t.path,
    "name: ac\nrepos: {app: {path: ./app, default: true}}\nagent_control:\n  completion_verify:\n    fils_exist: [done.txt]\n    matches: [{path: a.txt, pattern: '('}]\n",
    { "01_a.prompt.md": promptText(STRUCTURAL) },
  );
  const r = await runCli(["packet", "lint", t.path, "--json"]);
  assert.equal(r.code, 3);
  const findings = parseJsonOut(r).findings as { kind: string; key: string; file: string; message: string }[];
  const mine = findings.filter((f) => f.key?.startsWith("agent_control.completion_verify"));
  assert.deepEqual(mine.map((f) => [f.kind, f.key, f.file]), [
    ["unknown_verify_clause", "agent_control.completion_verify.fils_exist", "prompt_runner_packet.md"],
    ["invalid_regex", "agent_control.completion_verify.matches[1]", "prompt_runner_packet.md"],
  ]);
  assert.match(mine[0]!.message, /did you mean "files_exist"/);
});
