/**
 * Retry and repair budgets under agent control (docs/agent-control.md §3): as in prompt_runner_sdk, which counts a
 * prompt's retries and repairs over all its attempts, the budgets are per prompt per run and shared by its
 * iterations — a new iteration does not get fresh budgets, and retry and repair stay inside the iteration they serve.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { readPrompts } from "../run/support.ts";
import { attemptsOf, controlledPacket } from "./_agent_control_support.ts";

Deno.test("agent control: a retry spent in iteration 1 is not given back to iteration 2", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `recovery:
  retry: {class_attempts: {provider_capacity: 1}}
  repair: {max_attempts: 1}
verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - error: {kind: provider_capacity, message: "overloaded"}
    - messages: ["no work done"]
    - writes: [{path: a.txt}]
      agent_control: [{action: repeat, reason: "one more pass"}]
    - error: {kind: provider_capacity, message: "overloaded again"}
    - writes: [{path: b.txt}]
      agent_control: [{action: continue}]`,
    },
    { defaultAction: "continue", maxIterations: 4 },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const attempts = await attemptsOf(pkt);
  assert.deepEqual(attempts.map((a) => [a.iteration, a.mode, a.status, a.directive?.action ?? null]), [
    [1, "run", "failed", null],
    [1, "retry", "verification_failed", null],
    [1, "repair", "completed", "repeat"],
    [2, "run", "failed", null],
  ]);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "failed");
  assert.equal(p.result!.failure_class, "provider_capacity");
});

Deno.test("agent control: a repair spent in iteration 1 is not given back to iteration 2", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `recovery:
  repair: {max_attempts: 1}
verify:
  contains: [{path: a.txt, text: "good"}]
simulate:
  attempts:
    - messages: ["no work done"]
    - writes: [{path: a.txt, text: "good"}]
      agent_control: [{action: repeat, reason: "one more pass"}]
    - writes: [{path: a.txt, text: "broken"}]
    - writes: [{path: a.txt, text: "good again"}]
      agent_control: [{action: continue}]`,
    },
    { defaultAction: "continue", maxIterations: 4 },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const attempts = await attemptsOf(pkt);
  assert.deepEqual(attempts.map((a) => [a.iteration, a.mode, a.status]), [
    [1, "run", "verification_failed"],
    [1, "repair", "completed"],
    [2, "run", "verification_failed"],
  ]);
  assert.equal((await readPrompts(pkt))["01"]!.status, "verification_failed", "no repair was left");
});
