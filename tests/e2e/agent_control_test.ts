/**
 * Agent control end to end (docs/agent-control.md §2), with each real CLI: `claude` (through its Bash tool, scripted by
 * the fake Anthropic server) and `codex` (through its shell tool, inside its workspace-write sandbox, scripted by the
 * fake OpenAI server) run `prompt_runner agent-control` — the `prompt_runner` the runner put first on the session's
 * PATH — asking for `repeat` in iteration 1 and `finish` in iteration 2; completion_verify decides the finish. Each
 * iteration also reports progress through the sdk's `PROMPT_RUNNER_AGENT_PROGRESS_FILE`. For codex this proves the
 * private directory is among the sandbox's writable roots and the variables (the token too) reach its shell.
 */
import assert from "node:assert/strict";
import {
  control,
  controlLog,
  describeRun,
  e2eSkipReason,
  type LaneName,
  modelRequests,
  prompt01,
  runPacket,
  scenario,
  spawnRun,
  waitForEvent,
} from "./_harness.ts";
import { waitFor } from "../support/wait.ts";

// The agent reads its iteration from the environment the runner gave its session, and reports progress the sdk's
// way: its progress document, replaced atomically at $PROMPT_RUNNER_AGENT_PROGRESS_FILE.
const PROGRESS = `printf '{"schema":"prompt_runner.agent_control/progress/v1","token":"%s","run_id":"%s",` +
  `"prompt_id":"%s","iteration":%s,"cursor":"C%s","summary":"pass underway"}' ` +
  '"$PROMPT_RUNNER_AGENT_CONTROL_TOKEN" "$PROMPT_RUNNER_RUN_ID" "$PROMPT_RUNNER_PROMPT_ID" ' +
  '"$PROMPT_RUNNER_PROMPT_ITERATION" "$PROMPT_RUNNER_PROMPT_ITERATION" > "$PROMPT_RUNNER_AGENT_PROGRESS_FILE.tmp.1" && ' +
  'mv "$PROMPT_RUNNER_AGENT_PROGRESS_FILE.tmp.1" "$PROMPT_RUNNER_AGENT_PROGRESS_FILE" && ';
const COMMAND = PROGRESS + 'echo "$PROMPT_RUNNER_PROMPT_ITERATION" >> pass.txt && ' +
  'if [ "$PROMPT_RUNNER_PROMPT_ITERATION" = 1 ]; then prompt_runner agent-control repeat --reason "pass one done"; ' +
  'else echo done > done.txt && prompt_runner agent-control finish --reason "objective complete"; fi';

for (const lane of ["claude", "codex"] as LaneName[]) {
  const skip = e2eSkipReason(lane);
  if (skip) console.error(`SKIPPED: ${skip}`);
  Deno.test({
    name: `e2e ${lane}: agent control — repeat through the agent's shell tool, then a verified finish`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      await using s = await scenario(lane, {
        body: `Do one pass, then report to the runner. [[e2e:bash ${COMMAND}]]`,
        verify: { files_exist: ["pass.txt"] },
        manifest: { agent_control: { max_iterations: 3, completion_verify: { files_exist: ["done.txt"] } } },
      });
      const r = await runPacket(s);
      assert.equal(r.code, 0, describeRun(s, r));
      assert.equal(await Deno.readTextFile(`${s.repo}/pass.txt`), "1\n2\n", describeRun(s, r));
      const p = prompt01(s);
      assert.equal(p.result.status, "completed");
      const attempts = p.attempts as unknown as { iteration: number; directive: { action: string } }[];
      assert.deepEqual(attempts.map((a) => [a.iteration, a.directive.action]), [[1, "repeat"], [2, "finish"]]);
      const log = (await Deno.readTextFile(`${s.store}/control/log.jsonl`)).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      const applied = log.filter((e) => e.command === "agent_directive" && e.outcome === "applied");
      assert.deepEqual(applied.map((e) => [e.author, e.params.action, e.params.reason]), [
        ["agent:01#1", "repeat", "pass one done"],
        ["agent:01#2", "finish", "objective complete"],
      ]);
      // Nothing the agent's tools or its sandbox put in the private directory (codex mounts .git, .codex … in its
      // writable roots while a command runs) is refused: only the agent's own records were judged.
      const refused = log.filter((e) => e.command.startsWith("agent_") && e.outcome === "rejected");
      assert.deepEqual(refused, [], describeRun(s, r));
      const progressed = log.filter((e) => e.command === "agent_progress");
      assert.deepEqual(progressed.map((e) => [e.author, e.outcome, e.params.file, e.params.cursor]), [
        ["agent:01#1", "accepted", "progress.json#1", "C1"],
        ["agent:01#2", "accepted", "progress.json#1", "C2"],
      ]);
    },
  });

  Deno.test({
    name: `e2e ${lane}: agent control — a steered (resumed) session still reaches the shim and its private directory`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      // The steer resumes the same provider session (codex: \`exec resume\`, which takes no --add-dir): the command
      // the steer asks for must still find \`prompt_runner\` on PATH and be able to write the private directory.
      await using s = await scenario(lane, {
        body: "Stream slowly. [[e2e:slow 180]]",
        verify: { files_exist: ["steered.txt"] },
        manifest: {
          // Without the agent's directive the default repeat hits the cap of 1: exit 1, not 0.
          agent_control: { default_action: "repeat", max_iterations: 1, completion_verify: { files_exist: ["x"] } },
        },
      });
      const run = spawnRun(s);
      let r;
      try {
        // Generous bounds: a loaded machine can take long to start the CLI; the steer interrupts the slow turn anyway.
        await waitForEvent(s, "run_started", () => true, 180_000);
        await waitFor(() => modelRequests(s).length >= 1, { what: "the first model request", timeoutMs: 180_000 });
        const cmd = "echo steered > steered.txt && prompt_runner agent-control continue";
        const steer = await control(s, ["steer", s.packet, "--", `Report now. [[e2e:bash ${cmd}]]`]);
        assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
      } finally {
        r = await run.finish(300_000);
      }
      assert.equal(r.code, 0, describeRun(s, r));
      const applied = controlLog(s).filter((e) => e.command === "agent_directive" && e.outcome === "applied");
      assert.deepEqual(applied.map((e) => [e.author, (e.params as Record<string, unknown>).action]), [
        ["agent:01#1", "continue"],
      ]);
      assert.ok(controlLog(s).some((e) => e.command === "steer" && e.outcome === "applied"), describeRun(s, r));
    },
  });
}
