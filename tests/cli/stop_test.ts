import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { slowPacket as slowPacketOf, tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";

/** A simulated packet whose only prompt stays live for ~10 s. */
function slowPacket(root: string): Promise<string> {
  return slowPacketOf(root, 40, 250);
}

Deno.test("stop interrupts a live run: the run closes failed/interrupted (runner exit 130), the lease drops, exit 0", async () => {
  await using dir = await tempDir();
  const packet = await slowPacket(dir.path);
  const child = spawnCli(["run", packet]);
  try {
    await waitFor(async () => {
      const s = await runCli(["control", "status", packet, "--json"]);
      return s.code === 0 && (parseJsonOut(s) as { session_live?: boolean }).session_live === true;
    }, { what: "a live session" });
    const r = await runCli(["stop", packet, "--grace", "20s"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Stopped run \d{8}T\d{6}Z-[A-Z2-7]{6} \(prompt 01, attempt 1\)\.\n$/);
    const out = await child.output();
    assert.equal(out.code, 130, "an interrupted run exits 130");
    assert.match(new TextDecoder().decode(out.stderr), /error: run failed: interrupted/);
    const snap = parseJsonOut(await runCli(["control", "status", packet, "--json"]));
    assert.equal(snap.status, "failed");
    assert.equal(snap.reason, "interrupted");
    assert.equal((snap.lease as { state: string }).state, "down");
    const state = JSON.parse(await Deno.readTextFile(`${packet}/.prompt_runner/state.json`));
    assert.equal(state.prompts["01"].status, "interrupted");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
  }
});

Deno.test("stop without a live run exits 4 and says so", async () => {
  await using dir = await tempDir();
  const packet = await slowPacket(dir.path);
  const r = await runCli(["stop", packet]);
  assert.equal(r.code, 4);
  assert.match(r.stderr, /error: no live run holds /);
  const j = await runCli(["stop", packet, "--json"]);
  assert.equal(j.code, 4);
  assert.equal((parseJsonOut(j).error as { code: string }).code, "run_not_running");
});

Deno.test("stop refuses a bad --grace with exit 2", async () => {
  await using dir = await tempDir();
  const packet = await slowPacket(dir.path);
  const r = await runCli(["stop", packet, "--grace", "soon"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--grace does not take "soon"/);
});
