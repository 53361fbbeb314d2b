/**
 * Provider faults, run black-box (`run` with exactly its permissions) against a fake claude CLI (issue #11 item 6).
 * Every fake exports `FAULT_MARKER=<uuid>`, so every process it starts carries it; after each run the test scans
 * `/proc` for the marker. Each case asserts: the run ends with a clear reason, nothing outside the store changed,
 * and no process of the run survives.
 */
import assert from "node:assert/strict";
import { pidsWithEnv, readProcStat } from "../../src/util/proc_tree.ts";
import { type CliResult, runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readSnapshot } from "./support.ts";
import { waitFor } from "../support/wait.ts";

const INIT = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });
const RESULT = JSON.stringify({
  type: "result",
  subtype: "success",
  is_error: false,
  result: "done",
  session_id: "s-1",
});
/** Preflight probes `--version`: the fake answers it like the real CLI. */
const VERSION = `[ "$1" = "--version" ] && { echo "2.1.0 (Claude Code)"; exit 0; }\n`;
/** One attempt per case: no retries (whatever the class), no repair, no resume. */
const RECOVERY =
  "recovery: {retry: {max_attempts: 0, class_attempts: {transport_disconnect: 0, transport_timeout: 0, " +
  "protocol_error: 0, unknown: 0}}, repair: {enabled: false}, resume_attempts: 0, interrupt_grace_ms: 300}";

interface Case {
  dir: string;
  pkt: string;
  marker: string;
  before: string;
}

/** Everything outside the store: files under the packet dir (not `.prompt_runner`, not `.git`) and git state. */
async function outside(pkt: string): Promise<string> {
  const files: string[] = [];
  const walk = async (dir: string, rel: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.name === ".prompt_runner" || e.name === ".git") continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) await walk(`${dir}/${e.name}`, r);
      else files.push(r);
    }
  };
  await walk(pkt, "");
  const git = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--untracked-files=all"],
    cwd: `${pkt}/app`,
    stdout: "piped",
  }).output();
  return [...files.sort(), "--", new TextDecoder().decode(git.stdout)].join("\n");
}

/** A packet with one claude prompt whose CLI is the fake `body` (a bash script), marked with a fresh marker. */
async function setup(root: string, body: string, yaml = "", timeoutMs = 1500): Promise<Case> {
  const marker = crypto.randomUUID();
  const cli = `${root}/fake-claude`;
  await Deno.writeTextFile(cli, `#!/bin/bash\nexport FAULT_MARKER=${marker}\n${VERSION}${body}\n`);
  await Deno.chmod(cli, 0o755);
  const pkt = await makePacket(root, {
    "01_a.prompt.md": promptFile(
      "1",
      `provider: claude\nmodel: m\nclaude_opts: {cli_path: ${cli}}\ntimeout: ${timeoutMs}\n${RECOVERY}\n${yaml}` +
        `verify:\n  files_exist: [hello.txt]`,
    ),
  });
  return { dir: root, pkt, marker, before: await outside(pkt) };
}

async function assertContained(c: Case, r: CliResult): Promise<void> {
  const left = await pidsWithEnv("FAULT_MARKER", c.marker);
  assert.deepEqual(left, [], `processes of the run survived: ${left.join(", ")}\n${r.stdout}${r.stderr}`);
  assert.equal(await outside(c.pkt), c.before, "nothing outside the store changed");
}

async function failsWith(body: string, reason: RegExp, timeoutMs = 1500): Promise<void> {
  await using dir = await tempDir();
  const c = await setup(dir.path, body, "", timeoutMs);
  const t0 = Date.now();
  const r = await runCli(["run", c.pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, reason);
  assert.doesNotMatch(r.stdout, /Retrying prompt/, "one attempt, as configured");
  assert.ok(Date.now() - t0 < 30_000, "no hang");
  await assertContained(c, r);
}

Deno.test("fault: provider crashes (SIGSEGV) mid-stream → failed, reason names the signal", async () => {
  await failsWith(`echo '${INIT}'; kill -SEGV $$`, /claude was killed by SIGSEGV without a result/);
});

Deno.test("fault: provider hangs with a tool child → session timeout, both gone", async () => {
  await failsWith(`echo '${INIT}'; sleep 600 & wait`, /session exceeded its timeout of 1500 ms/);
});

Deno.test("fault: provider ignores INT and TERM → escalated to SIGKILL, nothing left", async () => {
  await failsWith(
    `trap '' INT TERM; echo '${INIT}'; (trap '' INT TERM; exec sleep 600) & while :; do sleep 0.2; done`,
    /session exceeded its timeout of 1500 ms/,
  );
});

Deno.test("fault: a 10 MB stdout line → protocol error", async () => {
  await failsWith(
    `echo '${INIT}'; head -c 10000000 /dev/zero | tr '\\0' a; echo; sleep 600`,
    /protocol error: a stdout line exceeded/,
    20_000, // writing 10 MB through a pipe can outlast 1.5 s on a loaded machine; the line limit must answer first
  );
});

Deno.test("fault: garbage on stdout, exit 1 → failed with the CLI's own last line", async () => {
  await failsWith(
    `printf 'garbage {{{ \\x01\\xff\\n%s\\nnot json\\n' "$(head -c 300 /dev/zero | tr '\\0' '#')"; echo 'fatal: model exploded' >&2; exit 1`,
    /claude exited with code 1 without a result: fatal: model exploded/,
  );
});

Deno.test("fault: exit 0 without a result → failed, not completed", async () => {
  await failsWith(`echo '${INIT}'; exit 0`, /claude exited with code 0 without a result/);
});

async function completesLeavingNothing(body: string): Promise<void> {
  await using dir = await tempDir();
  const c = await setup(dir.path, body);
  const r = await runCli(["run", c.pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const left = await pidsWithEnv("FAULT_MARKER", c.marker);
  assert.deepEqual(left, [], `processes of the run survived: ${left.join(", ")}`);
  // The provider's one file was committed by the runner; nothing else appeared outside the store.
  const after = await outside(c.pkt);
  assert.equal(after, c.before.replace("app/README.md", "app/README.md\napp/hello.txt"));
}

Deno.test("fault: a setsid tool (own session and group) outlives the provider → killed at session end", async () => {
  await completesLeavingNothing(`echo '${INIT}'; setsid sleep 600 & echo hi > hello.txt; echo '${RESULT}'; exit 0`);
});

Deno.test("fault: a double-forked, setsid'd, TERM-ignoring orphan → found by environment and killed", async () => {
  await completesLeavingNothing(
    `echo '${INIT}'; ( setsid bash -c "trap '' TERM HUP INT; while :; do sleep 0.2; done" & ) ; ` +
      `echo hi > hello.txt; echo '${RESULT}'; exit 0`,
  );
});

Deno.test("fault: a nohup child holding the provider's stdout → the run ends, the child is killed", async () => {
  await completesLeavingNothing(`echo '${INIT}'; nohup sleep 600 2>/dev/null & echo hi > hello.txt; echo '${RESULT}'`);
});

Deno.test("fault: stop while the provider ignores INT and TERM → interrupt escalates, nothing survives", async () => {
  await using dir = await tempDir();
  const c = await setup(
    dir.path,
    `trap '' INT TERM; echo '${INIT}'; (setsid bash -c "trap '' INT TERM; while :; do sleep 0.2; done" &); ` +
      `while :; do sleep 0.2; done`,
    "",
  );
  // No session timeout here: the run only ends through `stop`.
  const text = (await Deno.readTextFile(`${c.pkt}/prompts/01_a.prompt.md`)).replace("timeout: 1500", "timeout: 600000");
  await Deno.writeTextFile(`${c.pkt}/prompts/01_a.prompt.md`, text);
  c.before = await outside(c.pkt);
  const child = spawnCli(["run", c.pkt]);
  await waitFor(async () => (await readSnapshot(c.pkt))?.session_live === true);
  await waitFor(async () => (await pidsWithEnv("FAULT_MARKER", c.marker)).length >= 2);
  const stop = await runCli(["stop", c.pkt]);
  assert.equal(stop.code, 0, stop.stdout + stop.stderr);
  assert.match(stop.stdout, /^Stopped run /);
  const out = await child.output();
  const r = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  assert.notEqual(r.code, 0);
  await assertContained(c, r);
});

Deno.test("fault: runner SIGKILLed mid-tool → status names the leftover, the next run reaps it first", async () => {
  await using dir = await tempDir();
  const pidFile = `${dir.path}/tool.pid`;
  const seen = `${dir.path}/first-tool-at-second-start.txt`;
  const c = await setup(
    dir.path,
    [
      `if [ -f ${pidFile} ]; then`,
      // Second run: report whether the first run's tool was still alive when this provider started.
      // (A killed process may linger as a zombie under a PID 1 that does not reap: that is gone, too.)
      `  st=$(cut -d' ' -f3 "/proc/$(cat ${pidFile})/stat" 2>/dev/null)`,
      `  if [ -n "$st" ] && [ "$st" != Z ]; then echo "alive $st" > ${seen}; else echo gone > ${seen}; fi`,
      `  echo '${INIT}'; echo hi > hello.txt; echo '${RESULT}'; exit 0`,
      `fi`,
      `echo '${INIT}'`,
      `setsid bash -c 'echo $$ > ${pidFile}; exec sleep 600' &`,
      `while :; do sleep 0.2; done`,
    ].join("\n"),
    "",
  );
  const text = (await Deno.readTextFile(`${c.pkt}/prompts/01_a.prompt.md`)).replace("timeout: 1500", "timeout: 600000");
  await Deno.writeTextFile(`${c.pkt}/prompts/01_a.prompt.md`, text);
  c.before = await outside(c.pkt);
  const child = spawnCli(["run", c.pkt]);
  const toolPid = await waitFor(async () => {
    const t = await Deno.readTextFile(pidFile).catch(() => "");
    return /^\d+$/.test(t.trim()) ? Number(t.trim()) : null;
  });
  await waitFor(async () => (await readSnapshot(c.pkt))?.session_live === true);
  // The lease names the provider group a moment after the snapshot says the session is live.
  await waitFor(async () => {
    const pid = await Deno.readTextFile(`${c.pkt}/.prompt_runner/run.pid`).catch(() => "{}");
    return JSON.parse(pid).provider ? true : null;
  });
  child.kill("SIGKILL");
  await child.output();
  assert.notEqual(readProcStat(toolPid), null, "the tool outlived its SIGKILLed runner (the fault happened)");

  const status = await runCli(["status", c.pkt, "--json"]);
  assert.equal(status.code, 0, status.stderr);
  const leftovers = JSON.parse(status.stdout).leftovers;
  assert.equal(leftovers?.source, "stale_lease");
  assert.equal(typeof leftovers?.processes?.[0]?.pid, "number");
  const human = await runCli(["status", c.pkt]);
  assert.match(human.stdout, /leftovers\s+pid \d+ \(group \d+\) of run \S+ may still be running/);

  const r = await runCli(["run", c.pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((await Deno.readTextFile(seen)).trim(), "gone", "reaped before the next provider started");
  const left = await pidsWithEnv("FAULT_MARKER", c.marker);
  assert.deepEqual(left, []);
  const after = await runCli(["status", c.pkt, "--json"]);
  assert.equal(JSON.parse(after.stdout).leftovers, null, "status no longer names a leftover");
});
