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

Deno.test("a second Ctrl-C exits 130 at once and still releases the lease and closes the plane", async () => {
  await using dir = await tempDir();
  // Verification sleeps, so the first SIGINT cannot finish the run quickly: only the second one ends it.
  const slow = "verify:\n  commands:\n    - {exec: sleep, args: ['4'], timeout_ms: 20000}\n" +
    "simulate:\n  attempts:\n    - writes: [{path: x.txt, text: x}]";
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", slow) });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.stage === "verifying");
  child.kill("SIGINT");
  await pause(150); // spacing, not a wait: two distinct signals, not one coalesced
  const sentAt = Date.now();
  child.kill("SIGINT");
  const out = await child.output();
  assert.ok(Date.now() - sentAt < 3000, "the second Ctrl-C does not wait for the verification command");
  assert.equal(out.code, 130);
  await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/run.pid`), "the lease is released");
  const snap = await readSnapshot(pkt);
  assert.equal(snap?.status, "failed");
  assert.equal(snap?.reason, "interrupted");
  const current = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`)).run_id;
  const run = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${current}/run.json`));
  assert.equal(run.state, "failed");
  const status = await runCli(["status", pkt, "--json"]);
  assert.equal(JSON.parse(status.stdout).lease.state, "down");
});

for (const name of EXAMPLE_NAMES) {
  Deno.test(`the shipped ${name} example resumes with run --remaining after a kill -9`, async () => {
    await using dir = await tempDir();
    const pkt = await setupExample(name, dir.path);
    const child = spawnCli(["run", pkt]);
    // Kill inside the packet: once the first prompt is done and the next has started.
    await waitFor(async () => {
      const s = await readSnapshot(pkt);
      return s !== null && Number(s.completed_count) >= 1 && s.session_live === true;
    }, { timeoutMs: 60_000, what: "the first prompt done and the next session live" });
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
