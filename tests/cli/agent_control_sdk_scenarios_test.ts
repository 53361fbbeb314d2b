/**
 * prompt_runner_sdk's agent-control and agent-owned runner scenarios that the other agent-control tests do not already
 * reproduce, as our own black-box tests (docs/agent-control.md §3): repeat re-runs the prompt before the linear
 * sequence goes on; a provider launch that fails for good is never a controlled iteration, even when the contract
 * already passes, under either completion owner; an agent-owned prompt, once completed, stays out of `--remaining`.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { history, readPrompts } from "../run/support.ts";
import { attemptsOf, auditLog, controlledPacket } from "./_agent_control_support.ts";

const AGENT_OWNED = "execution: {completion: agent_owned, incomplete: repeat}\n";

Deno.test("repeat re-runs the current prompt in a fresh session before the linear sequence continues", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(dir.path, {
    "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt, text: "pass 1"}]
      agent_control: [{action: repeat, reason: "unit A done; unit B next"}]
    - writes: [{path: a.txt, text: "pass 2"}]
      agent_control: [{action: continue}]`,
    "02_b": "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]",
  }, { defaultAction: "continue" });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const prompts = await readPrompts(pkt);
  assert.deepEqual([prompts["01"]!.status, prompts["02"]!.status], ["completed", "completed"]);
  assert.deepEqual((await attemptsOf(pkt, "01")).map((a) => [a.iteration, a.directive?.action]), [
    [1, "repeat"],
    [2, "continue"],
  ]);
  // Prompt 02 started only after prompt 01's second iteration.
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l)).filter((e) => e.type === "prompt_started").map((e) => e.prompt_id);
  assert.deepEqual(events, ["01", "01", "02"]);
  // Each iteration committed its own work.
  const log = await new Deno.Command("git", { args: ["-C", `${pkt}/app`, "log", "--format=%s"] }).output();
  assert.equal(new TextDecoder().decode(log.stdout).split("\n").filter((l) => l === "feat: prompt 1").length, 2);
});

for (const owner of ["verifier_owned", "agent_owned"]) {
  Deno.test(`${owner}: a provider launch that fails for good is never a controlled iteration, though the contract passes`, async () => {
    await using dir = await tempDir();
    const prompts = {
      // README.md exists before any session: the contract alone would pass.
      "01_a": `verify:
  files_exist: [README.md]
simulate:
  attempts:
    - agent_control: [{action: finish, reason: "claims to be done"}]
      error: {kind: provider_config_claim, message: "invalid provider CLI arguments", recovery: {local_deterministic: true}}`,
      "02_b": "verify:\n  files_exist: [README.md]",
    };
    const pkt = await controlledPacket(
      dir.path,
      prompts,
      owner === "agent_owned" ? AGENT_OWNED : { completion: ["README.md"], defaultAction: "continue" },
    );
    // `run 1 2`: with prompts named, a passing completion_verify does not end the run before a session.
    const r = await runCli(["run", pkt, "1", "2"]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /invalid provider CLI arguments/);
    const state = await readPrompts(pkt);
    assert.deepEqual(history(state["01"]), ["run:failed"], "one failed attempt: not repeated, not retried");
    assert.equal(state["01"]!.status, "failed");
    assert.equal(state["02"], undefined, "the sequence stopped");
    const plan = await runCli(["plan", pkt, "--remaining", "--json"]);
    assert.match(plan.stdout, /"01"/, "the failed prompt is still remaining");
    if (owner === "verifier_owned") {
      const finish = (await auditLog(pkt)).filter((e) => e.params.action === "finish").map((
        e,
      ) => [e.outcome, e.reason]);
      assert.deepEqual(finish.at(-1), ["rejected", "the provider turn failed; the iteration does not count"]);
    }
  });
}

Deno.test("agent-owned: a completed prompt stays out of a later --remaining selection", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(dir.path, {
    "01_a": "verify:\n  files_exist: [evidence.txt]\nsimulate:\n  attempts:\n    - writes: [{path: evidence.txt}]",
  }, AGENT_OWNED);
  const first = await runCli(["run", pkt, "--remaining"]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.deepEqual(history((await readPrompts(pkt))["01"]), ["run:completed"]);
  const plan = await runCli(["plan", pkt, "--remaining", "--json"]);
  assert.equal(plan.code, 0, plan.stderr);
  assert.doesNotMatch(plan.stdout, /"01"/);
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.deepEqual(history((await readPrompts(pkt))["01"]), ["run:completed"], "no new session");
});
