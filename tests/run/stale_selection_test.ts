/**
 * A `run --remaining` started while another runner holds the lease selects its prompts before it gets the lease. When
 * the holder completes a prompt and ends (or dies) while the second waits for the lease, the second must not run that
 * prompt again: its progress line must keep naming the prompt's commit (never `no_session` over it).
 *
 * The second runner waits for the lease at most 250 ms (then exits 5, "runner live"). This test plays the holder: it
 * locks `run.lock`, starts the second, waits until the second has the lock file open, records the completion and
 * unlocks. On a loaded machine that can miss the window (the second exits 5 first); then the round is run again.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { holdsOpen, waitFor } from "../support/wait.ts";
import { readPrompts } from "./support.ts";
import { checkRecovered, expectedFiles, makeCrashPacket } from "../support/crash_packet.ts";

/** One round; null when the second runner gave up on the lease before the holder released it (exit 5). */
async function round(root: string): Promise<string | null> {
  const pkt = await makeCrashPacket(root, { prompts: 2, stepMs: 5, append: true });
  // The holder's run: killed as prompt 01's session was about to start.
  const killed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.before_session@1" } });
  assert.equal(killed.code, 137, killed.stderr);
  const store = `${pkt}/.prompt_runner`;
  const runId = (await readPrompts(pkt))["01"]?.attempts[0]?.run_id;
  assert.ok(runId, "prompt 01's attempt names the holder's run");
  // What the holder does for prompt 01 (its commit), before its progress line.
  for (const [path, text] of Object.entries(expectedFiles("01"))) {
    await Deno.mkdir(`${pkt}/app/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${pkt}/app/${path}`, text);
  }
  await git(`${pkt}/app`, "add", "-A");
  await git(
    `${pkt}/app`,
    "commit",
    "-q",
    "-m",
    `feat: prompt 01\n\nPrompt-Runner-Run: ${runId}\nPrompt-Runner-Prompt: 01\n`,
  );
  const sha = await git(`${pkt}/app`, "rev-parse", "HEAD");
  // The holder holds the lease while the second runner starts and selects.
  const lock = await Deno.open(`${store}/run.lock`, { read: true, write: true });
  await lock.lock(true);
  const second = spawnCli(["run", pkt, "--remaining"]);
  let exited = false;
  const done = second.output().finally(() => exited = true);
  const lockPath = await Deno.realPath(`${store}/run.lock`);
  await waitFor(async () => exited || await holdsOpen(second.pid, lockPath), {
    what: "the second runner to open run.lock",
    intervalMs: 2,
    timeoutMs: 60_000,
  });
  // The holder says prompt 01 completed, then ends: the lease is free while the second still retries.
  if (!exited) {
    await Deno.writeTextFile(`${store}/progress.log`, `01:completed:${new Date().toISOString()}:${sha}\n`, {
      append: true,
    });
  }
  await lock.unlock();
  lock.close();
  const out = await done;
  const stderr = new TextDecoder().decode(out.stderr);
  if (out.code === 5) return null; // it gave up on the lease before the holder ended: no verdict from this round
  assert.equal(out.code, 0, stderr);
  const lines = (await Deno.readTextFile(`${store}/progress.log`)).trim().split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("01:")).map((l) => l.split(":").at(-1)), [sha]);
  assert.equal(await checkRecovered(pkt, 2, { allowNoChanges: false }), null);
  return sha;
}

Deno.test("a prompt completed by the lease holder while run --remaining waited for the lease is not run again", async () => {
  for (let i = 0; i < 8; i++) {
    await using dir = await tempDir();
    if (await round(dir.path) !== null) return;
  }
  assert.fail("in 8 rounds the second runner never waited for the lease long enough to see the holder end");
});
