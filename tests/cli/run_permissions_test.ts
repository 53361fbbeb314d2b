/**
 * `run` under a narrow `--allow-run=<list>` (docs/reference/cli.md §6): `plan` and `packet preflight` print the exact list, a run
 * started with it completes, and a run started with less fails preflight naming what is missing.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { commitCount, makePacket, promptFile, readPrompts } from "../run/support.ts";

/** Every permission of `run` except `run` itself. */
const BASE = ["--allow-read", "--allow-write", "--allow-env", "--allow-sys"];

const GREP_CHECK = "verify:\n  commands:\n    - {exec: grep, args: [-q, hello, hello.txt]}\n" +
  "simulate:\n  attempts:\n    - writes: [{path: hello.txt, text: hello}]";

async function planList(pkt: string): Promise<string[]> {
  const r = await runCli(["plan", pkt, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return (parseJsonOut(r).permissions as { run: string[] }).run;
}

Deno.test("plan prints the --allow-run list: git, verification executables, the signal sender", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", GREP_CHECK) });
  assert.deepEqual(await planList(pkt), ["git", "grep", "kill"]);
  const human = await runCli(["plan", pkt]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /\n {2}allow-run {2}git,grep,kill\n/);
  const pre = await runCli(["packet", "preflight", pkt, "--json"]);
  assert.equal(pre.code, 0, pre.stderr);
  assert.deepEqual(parseJsonOut(pre).permissions, { run: ["git", "grep", "kill"] });
});

Deno.test("run completes under exactly the --allow-run list plan printed", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", GREP_CHECK) });
  const list = await planList(pkt);
  const r = await runCli(["run", pkt], { denoFlags: [...BASE, `--allow-run=${list.join(",")}`] });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((await readPrompts(pkt))["01"]?.status, "completed");
  assert.equal(await commitCount(`${pkt}/app`), 2);
});

Deno.test("run fails preflight naming a verification executable the --allow-run list lacks", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", GREP_CHECK) });
  const r = await runCli(["run", pkt], { denoFlags: [...BASE, "--allow-run=git,kill"] });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^error: preflight failed\n/);
  assert.match(
    r.stderr,
    /run permission: "grep" is not allowed \(needed by verification 01 commands#1\); start with --allow-run=git,grep,kill\n/,
  );
  // Nothing ran: no state, no commit.
  await assert.rejects(Deno.stat(`${pkt}/.prompt_runner/state.json`));
  assert.equal(await commitCount(`${pkt}/app`), 1);
});

Deno.test("run says when a listed bare name cannot be granted because it is not on PATH", async () => {
  await using dir = await tempDir();
  const check = "verify:\n  commands:\n    - {exec: no-such-tool-3f9a}\n" +
    "simulate:\n  attempts:\n    - writes: [{path: hello.txt, text: hello}]";
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", check) });
  const r = await runCli(["run", pkt], { denoFlags: [...BASE, "--allow-run=git,no-such-tool-3f9a,kill"] });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /run permission: "no-such-tool-3f9a" is not allowed and not on PATH \(needed by/);
});

Deno.test("run checks the --allow-run list also under --skip-preflight", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", GREP_CHECK) });
  const r = await runCli(["run", pkt, "--skip-preflight"], { denoFlags: [...BASE, "--allow-run=grep,kill"] });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /run permission: "git" is not allowed .*; start with --allow-run=git,grep,kill\n/);
});

Deno.test("run refuses a narrow --allow-run while an LD_* variable is set (Deno would refuse every spawn)", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", GREP_CHECK) });
  const r = await runCli(["run", pkt], {
    denoFlags: [...BASE, "--allow-run=git,grep,kill"],
    env: { LD_LIBRARY_PATH: "/nonexistent" },
  });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /run permission: LD_LIBRARY_PATH is set, .*start with --allow-run\n/);
});

Deno.test("a CLI lane runs under its list: the executable as configured plus the driver's cat, /bin/sh and kill", async () => {
  await using dir = await tempDir();
  const cli = `${dir.path}/fake-claude`;
  const init = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });
  const result = JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "done" });
  await Deno.writeTextFile(
    cli,
    `#!/bin/sh\n[ "$1" = --version ] && { echo "2.1.197 (Claude Code)"; exit 0; }\n` +
      `echo hello > hello.txt\necho '${init}'\necho '${result}'\n`,
  );
  await Deno.chmod(cli, 0o755);
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `provider: claude\nmodel: m\nclaude_opts: {cli_path: ${cli}}\nverify:\n  files_exist: [hello.txt]`,
    ),
  });
  const list = await planList(pkt);
  assert.deepEqual(list, ["git", cli, "cat", "/bin/sh", "kill"]);
  const r = await runCli(["run", pkt], { denoFlags: [...BASE, `--allow-run=${list.join(",")}`] });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((await readPrompts(pkt))["01"]?.status, "completed");
});
