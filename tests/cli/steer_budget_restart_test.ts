/**
 * The steer ledger across a runner restart (docs/reference/control-plane.md §8.3): a runner killed right after delivering a steer
 * leaves the budget spent; the next `run --remaining` (same run id) rebuilds the count from `interventions/` once, refuses
 * a steer over the prompt's own `recovery.max_steers`, and counts the delivered steer exactly once.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts, readSnapshot } from "../run/support.ts";
import { waitFor } from "../support/wait.ts";

const BUSY = "messages: [one, two, three, four, five, six, seven, eight, nine, ten]";

Deno.test("a restarted runner continues the steer budget from the record and never counts a steer twice", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [done.txt]
recovery:
  max_steers: 1
simulate:
  attempts:
    - delay_ms: 300
      ${BUSY}
    - delay_ms: 300
      writes: [{path: done.txt}]
      ${BUSY}
    - delay_ms: 300
      writes: [{path: done.txt}]
      ${BUSY}
  steer:
    messages: ["Adjusting as asked."]`,
    ),
  });
  // First runner: one steer delivered, then killed when the attempt's streams end (before verification).
  const first = spawnCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  const steered = await runCli(["control", "steer", pkt, "--", "first", "guidance"]);
  assert.equal(steered.code, 0, steered.stderr);
  const killed = await first.output();
  assert.equal(killed.code, 137, new TextDecoder().decode(killed.stderr));
  const dead = await readSnapshot(pkt);

  // Second runner, same run id (`--remaining` resumes it): the ledger is rebuilt from the record when its plane opens.
  const second = spawnCli(["run", pkt, "--remaining"]);
  const live = await waitFor(async () => {
    const s = await readSnapshot(pkt);
    const fresh = s?.attempt_started_at !== dead?.attempt_started_at;
    return s?.session_live === true && fresh && s.run_id === dead?.run_id ? s : null;
  });
  assert.equal(live.steer_count, 1, "the delivered steer is counted once after the restart");
  const refused = await runCli(["control", "steer", pkt, "--wait", "--", "second", "guidance"]);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  const out = await second.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));

  const log = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/log.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.command === "steer");
  const outcomes = log.map((e) => [(e.params as { text: string }).text, e.outcome, e.reason]);
  assert.deepEqual(outcomes, [
    ["first guidance", "accepted", null],
    ["first guidance", "applied", null],
    [
      "second guidance",
      "rejected",
      "steer budget spent (1/1 for this prompt); raise recovery.max_steers to allow more",
    ],
  ]);
  const interventions = (await Deno.readTextFile(`${pkt}/.prompt_runner/interventions/01.jsonl`)).trim().split("\n");
  assert.equal(interventions.length, 1);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "completed");
  assert.equal(p.result?.steer_count, 1);
  assert.equal((await readSnapshot(pkt))?.steer_count, 1);
});
