/**
 * Agent control end to end (docs/agent-control.md §2): the real `claude` CLI, scripted by the fake Anthropic server,
 * runs `prompt_runner agent-control` through its Bash tool — the `prompt_runner` the runner put first on the session's
 * PATH — asking for `repeat` in iteration 1 and `finish` in iteration 2; completion_verify decides the finish. Each
 * iteration also reports progress through the sdk's `PROMPT_RUNNER_AGENT_PROGRESS_FILE`.
 */
import assert from "node:assert/strict";
import { describeRun, e2eSkipReason, prompt01, runPacket, scenario } from "./_harness.ts";

const skip = e2eSkipReason("claude");
if (skip) console.error(`SKIPPED: ${skip}`);

Deno.test({
  name: "e2e claude: agent control — repeat through the Bash tool, then a verified finish",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    // The agent reads its iteration from the environment the runner gave its session, and reports progress the
    // sdk's way: its progress document, replaced atomically at $PROMPT_RUNNER_AGENT_PROGRESS_FILE.
    const progress = `printf '{"schema":"prompt_runner.agent_control/progress/v1","token":"%s","run_id":"%s",` +
      `"prompt_id":"%s","iteration":%s,"cursor":"C%s","summary":"pass underway"}' ` +
      '"$PROMPT_RUNNER_AGENT_CONTROL_TOKEN" "$PROMPT_RUNNER_RUN_ID" "$PROMPT_RUNNER_PROMPT_ID" ' +
      '"$PROMPT_RUNNER_PROMPT_ITERATION" "$PROMPT_RUNNER_PROMPT_ITERATION" > "$PROMPT_RUNNER_AGENT_PROGRESS_FILE.tmp.1" && ' +
      'mv "$PROMPT_RUNNER_AGENT_PROGRESS_FILE.tmp.1" "$PROMPT_RUNNER_AGENT_PROGRESS_FILE" && ';
    const command = progress + 'echo "$PROMPT_RUNNER_PROMPT_ITERATION" >> pass.txt && ' +
      'if [ "$PROMPT_RUNNER_PROMPT_ITERATION" = 1 ]; then prompt_runner agent-control repeat --reason "pass one done"; ' +
      'else echo done > done.txt && prompt_runner agent-control finish --reason "objective complete"; fi';
    await using s = await scenario("claude", {
      body: `Do one pass, then report to the runner. [[e2e:bash ${command}]]`,
      verify: { files_exist: ["pass.txt"] },
      manifest: { agent_control: { max_iterations: 3, completion_verify: { files_exist: ["done.txt"] } } },
    });
    const r = await runPacket(s);
    assert.equal(r.code, 0, describeRun(s, r));
    assert.equal(await Deno.readTextFile(`${s.repo}/pass.txt`), "1\n2\n");
    const p = prompt01(s);
    assert.equal(p.result.status, "completed");
    const attempts = p.attempts as unknown as { iteration: number; directive: { action: string } }[];
    assert.deepEqual(attempts.map((a) => [a.iteration, a.directive.action]), [[1, "repeat"], [2, "finish"]]);
    const log = (await Deno.readTextFile(`${s.store}/control/log.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    const applied = log.filter((e) => e.command === "agent_directive" && e.outcome === "applied");
    assert.deepEqual(applied.map((e) => [e.author, e.params.action, e.params.reason]), [
      ["agent:01#1", "repeat", "pass one done"],
      ["agent:01#2", "finish", "objective complete"],
    ]);
    const progressed = log.filter((e) => e.command === "agent_progress");
    assert.deepEqual(progressed.map((e) => [e.author, e.outcome, e.params.file, e.params.cursor]), [
      ["agent:01#1", "accepted", "progress.json#1", "C1"],
      ["agent:01#2", "accepted", "progress.json#1", "C2"],
    ]);
  },
});
