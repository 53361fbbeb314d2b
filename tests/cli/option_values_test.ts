/**
 * An option value that cannot be what the author meant is reported, never silently replaced by a default: a timeout
 * (docs/reference/packet.md §10), recovery keys and booleans, the config home's default profile and keys.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";

const OK = "verify:\n  files_exist: [ok.txt]\nsimulate:\n  attempts:\n    - writes: [{path: ok.txt}]";

Deno.test("a manifest timeout in the --timeout duration form is read; one that is not refuses (exit 3, file, field)", async () => {
  await using dir = await tempDir();
  const good = await makePacket(`${dir.path}/good`, { "01_a.prompt.md": promptFile("1", OK) }, "timeout: 10s\n");
  const explain = await runCli(["packet", "explain", good, "--json"]);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(explain.stdout, /"timeout":\{"value":10000,"source":"manifest"/);
  const bad = await makePacket(`${dir.path}/bad`, { "01_a.prompt.md": promptFile("1", OK) }, "timeout: soon\n");
  for (const args of [["run", bad], ["packet", "lint", bad]]) {
    const r = await runCli(args);
    assert.equal(r.code, 3, `${args[0]}: ${r.stdout}${r.stderr}`);
    const out = r.stdout + r.stderr;
    assert.match(out, /prompt_runner_packet\.md/);
    assert.match(out, /timeout is "soon"; expected milliseconds or a duration like 250ms, 30s, 10m, 4h, or unbounded/);
  }
});

Deno.test("recovery: a misspelt boolean refuses (exit 3, file and field); an unknown key is a lint warning with a hint", async () => {
  await using dir = await tempDir();
  const recovery = "recovery:\n  max_steer: 1\n  repair: {enabled: flase}\n";
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", recovery + OK) });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /^error: prompts\/01_a\.prompt\.md: recovery\.repair\.enabled is "flase"; expected true or false/,
  );
  const lint = await runCli(["packet", "lint", pkt, "--json"]);
  const findings = JSON.parse(lint.stdout).findings as { kind: string; key: string; message: string }[];
  const unknown = findings.find((f) => f.kind === "unknown_recovery_key");
  assert.equal(unknown?.key, "recovery.max_steer");
  assert.match(unknown!.message, /did you mean "max_steers"\?/);
});

Deno.test("config home: a default_profile naming nothing refuses plan and run; a FIFO profile is refused, not waited on", async () => {
  await using dir = await tempDir();
  const home = `${dir.path}/home`;
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  await Deno.writeTextFile(`${home}/config.md`, "---\ndefault_profile: simulated-defualt\n---\n");
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", OK) });
  const text = await Deno.readTextFile(`${pkt}/prompt_runner_packet.md`); // no profile: the default is used
  const env = { PROMPT_RUNNER_CONFIG_HOME: home };
  for (const cmd of ["plan", "run"]) {
    const r = await runCli([cmd, pkt], { env });
    assert.equal(r.code, 3, `${cmd}: ${r.stdout}${r.stderr}`);
    assert.match(
      r.stderr,
      /config\.md: default_profile "simulated-defualt" names no profile; did you mean "simulated-default"\?/,
    );
    assert.match(r.stderr, /known profiles: claude-default, codex-default, simulated-default/);
  }
  await new Deno.Command("mkfifo", { args: [`${home}/profiles/p2.md`] }).output();
  await Deno.writeTextFile(`${pkt}/prompt_runner_packet.md`, text.replace(/^name: .*$/m, "$&\nprofile: p2"));
  const lint = await runCli(["packet", "lint", pkt], { env });
  assert.equal(lint.code, 3);
  assert.match(lint.stdout + lint.stderr, /profile_unreadable[\s\S]*p2\.md: it is not a regular file/);
});
