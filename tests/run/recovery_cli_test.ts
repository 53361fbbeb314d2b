/**
 * Crash recovery and interrupts as a user sees them: a completion whose commit is gone is not trusted, a second
 * Ctrl-C still releases the lease and closes the plane, interrupted runs exit 130, and the shipped examples resume
 * with `run --remaining` after a kill.
 */
import assert from "node:assert/strict";
import { EXAMPLE_NAMES, setupExample } from "../../examples/setup.ts";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { checkRecovered, makeCrashPacket } from "../support/crash_packet.ts";
import { makePacket, promptFile, readPrompts, readSnapshot } from "./support.ts";
import { pause, waitFor } from "../support/wait.ts";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { loadPacket } from "../../src/packet/load.ts";

/** Snapshot stages inside a prompt (docs/reference/control-plane.md §4). */
const IN_PROMPT = new Set<string>(["session", "verifying", "committing", "waiting_retry"]);

Deno.test("a completion whose commit is no longer reachable is not trusted: --remaining reruns that prompt", async () => {
  await using dir = await tempDir();
  const pkt = await makeCrashPacket(dir.path, { prompts: 2, stepMs: 0, append: false });
  assert.equal((await runCli(["run", pkt])).code, 0);
  await git(`${pkt}/app`, "reset", "-q", "--hard", "HEAD~1"); // prompt 02's commit is gone
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /recovered: prompt 02 marked failed in progress\.log \(.*not reachable/);
  assert.equal(await checkRecovered(pkt, 2, { allowNoChanges: false }), null);
});

/**
 * A one-prompt packet whose verification sleeps `secs` (a command tagged with `marker` in its environment); a
 * `stubborn` one ignores SIGINT and SIGTERM, so only SIGKILL ends it.
 */
async function slowVerifyPacket(root: string, secs: number, marker: string, stubborn = false): Promise<string> {
  const cmd = stubborn
    ? `{exec: bash, args: ['-c', "trap '' INT TERM; sleep ${secs}"]`
    : `{exec: sleep, args: ['${secs}']`;
  const slow = `verify:\n  commands:\n    - ${cmd}, timeout_ms: 120000, env: {VERIFY_MARKER: ${marker}}}\n` +
    "simulate:\n  attempts:\n    - writes: [{path: x.txt, text: x}]";
  return await makePacket(root, { "01_a.prompt.md": promptFile("1", slow) });
}

/** The run's end as the store records it: snapshot, run record and lease. */
async function assertInterrupted(pkt: string): Promise<void> {
  await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/run.pid`), "the lease is released");
  const snap = await readSnapshot(pkt);
  assert.equal(snap?.status, "failed");
  assert.equal(snap?.reason, "interrupted");
  const current = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`)).run_id;
  const run = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${current}/run.json`));
  assert.equal(run.state, "failed");
  const status = await runCli(["status", pkt, "--json"]);
  assert.equal(JSON.parse(status.stdout).lease.state, "down");
}

Deno.test("Ctrl-C during a long verification command stops it at once: exit 130, prompt interrupted, no repair, no verdict", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const pkt = await slowVerifyPacket(dir.path, 60, marker);
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await pidsWithEnv("VERIFY_MARKER", marker)).length > 0, { what: "the verify command" });
  const sentAt = Date.now();
  child.kill("SIGINT");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(Date.now() - sentAt < 10_000, "the first Ctrl-C does not wait for the 60 s verification command");
  assert.equal(out.code, 130, stdout);
  assert.deepEqual(await pidsWithEnv("VERIFY_MARKER", marker), [], "the verification command is gone");
  assert.doesNotMatch(stdout, /Repairing|Retrying|attempt 2/, "no new attempt starts after the interrupt");
  const prompt = (await readPrompts(pkt))["01"]!;
  assert.equal(prompt.status, "interrupted");
  const attempts = prompt.attempts as { status: string; verification?: unknown }[];
  assert.equal(attempts.length, 1);
  assert.equal(attempts[0]!.status, "interrupted", "the cut-short verification is not a verdict on the work");
  assert.equal(attempts[0]!.verification ?? null, null);
  const verifications = await Deno.readTextFile(`${pkt}/.prompt_runner/verifications.jsonl`).catch(() => "");
  assert.equal(verifications.trim(), "", "no verification report is stored for it");
  await assertInterrupted(pkt);
});

Deno.test("a second Ctrl-C during verification exits 130 at once and still releases the lease and closes the plane", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  // The command ignores SIGTERM: the first Ctrl-C's stop takes its 3 s kill grace, the second must not wait for it.
  const pkt = await slowVerifyPacket(dir.path, 60, marker, true);
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await pidsWithEnv("VERIFY_MARKER", marker)).length > 0, { what: "the verify command" });
  child.kill("SIGINT");
  await pause(150); // spacing, not a wait: two distinct signals, not one coalesced
  const sentAt = Date.now();
  child.kill("SIGINT");
  const out = await child.output();
  assert.ok(Date.now() - sentAt < 2500, "the second Ctrl-C does not wait for the verification command");
  assert.equal(out.code, 130);
  assert.doesNotMatch(new TextDecoder().decode(out.stdout), /Repairing|Retrying|attempt 2/);
  assert.deepEqual(await pidsWithEnv("VERIFY_MARKER", marker), [], "the verification command is gone");
  await assertInterrupted(pkt);
});

Deno.test("a second Ctrl-C while the provider ignores the first exits 130 at once, with the provider gone", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const cli = `${dir.path}/fake-claude`;
  const init = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });
  await Deno.writeTextFile(
    cli,
    `#!/bin/bash\nexport FAULT_MARKER=${marker}\n` +
      `[ "$1" = "--version" ] && { echo "2.1.0 (Claude Code)"; exit 0; }\n` +
      `trap '' INT TERM; echo '${init}'; while :; do sleep 0.2; done\n`,
  );
  await Deno.chmod(cli, 0o755);
  // A 60 s interrupt grace: only the second Ctrl-C can end this run quickly.
  const yaml = `provider: claude\nmodel: m\nclaude_opts: {cli_path: ${cli}}\ntimeout: 600000\n` +
    "recovery: {interrupt_grace_ms: 60000}\nverify:\n  files_exist: [hello.txt]";
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", yaml) });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true, { what: "the session live" });
  child.kill("SIGINT");
  await pause(150); // spacing, not a wait: two distinct signals, not one coalesced
  const sentAt = Date.now();
  child.kill("SIGINT");
  const out = await child.output();
  assert.ok(Date.now() - sentAt < 5000, "the second Ctrl-C does not wait out the interrupt grace");
  assert.equal(out.code, 130);
  await waitFor(async () => (await pidsWithEnv("FAULT_MARKER", marker)).length === 0, { what: "the provider gone" });
  await assertInterrupted(pkt);
});

for (const name of EXAMPLE_NAMES) {
  Deno.test(`the shipped ${name} example resumes with run --remaining after a kill -9`, async () => {
    await using dir = await tempDir();
    const pkt = await setupExample(name, dir.path);
    const first = (await loadPacket(pkt)).prompts[0]!.id;
    const child = spawnCli(["run", pkt]);
    // Kill inside the packet: once the first prompt is done and a later one has started, at whatever stage it is (its
    // session, verification or commit). Not "a session live": a simulated session is live for a few ms, and a 25 ms
    // poll can miss every one of them (it did, once the snapshot's writes got faster).
    await waitFor(async () => {
      const s = await readSnapshot(pkt);
      return s !== null && Number(s.completed_count) >= 1 && typeof s.prompt_id === "string" &&
        s.prompt_id !== first && IN_PROMPT.has(String(s.stage));
    }, { timeoutMs: 60_000, what: "the first prompt done and a later one under way" });
    child.kill("SIGKILL");
    await child.output();
    const r = await runCli(["run", pkt, "--remaining"]);
    assert.equal(r.code, 0, r.stderr);
    const prompts = await readPrompts(pkt);
    for (const [id, p] of Object.entries(prompts)) assert.equal(p.status, "completed", `prompt ${id}`);
    assert.equal((await git(`${pkt}/app`, "status", "--porcelain")).trim(), "", "nothing left dirty");
    const trailers = await git(`${pkt}/app`, "log", "--format=%(trailers:key=Prompt-Runner-Prompt,valueonly)");
    const ids = trailers.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    assert.equal(new Set(ids).size, ids.length, `one commit per prompt: ${ids.join(", ")}`);
  });
}

Deno.test("Ctrl-C mid-prompt, then a plain run: the interrupted prompt's leftovers land in its own commit", async () => {
  await using dir = await tempDir();
  const pkt = await makeCrashPacket(dir.path, { prompts: 3, stepMs: 400, append: false });
  const child = spawnCli(["run", pkt]);
  // Interrupt prompt 02 once it has written its first file (and not yet its last).
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    if (s?.prompt_id !== "02" || s.session_live !== true) return false;
    return await Deno.stat(`${pkt}/app/p02/a.txt`).then(() => true, () => false);
  }, { timeoutMs: 60_000, what: "prompt 02 live with its first file written" });
  child.kill("SIGINT");
  assert.equal((await child.output()).code, 130);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await checkRecovered(pkt, 3, { allowNoChanges: true }), null);
});
