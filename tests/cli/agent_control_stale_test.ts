/**
 * Stale agent progress (docs/agent-control.md §4): progress retained from an earlier iteration or attempt is kept for
 * the record but never presented as a fresh heartbeat — `status` and `control status` label the cursor line
 * `previous iteration` (the sdk's words) or `earlier attempt`, and `control status --json` says `stale: true`.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { waitFor } from "../support/wait.ts";
import { tempDir } from "../support/fs.ts";
import { controlledPacket } from "./_agent_control_support.ts";
import { agentRows } from "../../src/cli/control/status.ts";
import type { Snapshot } from "../../src/control/mod.ts";

type AgentView = Pick<Snapshot, "agent_control" | "session_live" | "status">;

function view(iteration: number, progressIteration: number, stale: boolean): AgentView {
  return {
    status: "running",
    session_live: true,
    agent_control: {
      iteration,
      max_iterations: 5,
      loop: true,
      progress: {
        run_id: "r",
        prompt_id: "01",
        iteration: progressIteration,
        cursor: "P1",
        unit: "A",
        summary: "first pass",
        updated_at: "2026-12-01T00:00:00Z",
        stale,
      },
      last_directive: null,
    },
  } as AgentView;
}

const cursorRow = (v: AgentView) => agentRows(v).find(([label]) => label === "cursor")?.[1];

Deno.test("agentRows(): fresh progress has no label; retained progress says where it came from", () => {
  assert.equal(cursorRow(view(1, 1, false)), "P1 · unit A — first pass");
  assert.equal(cursorRow(view(2, 1, true)), "P1 · unit A · previous iteration — first pass");
  assert.equal(cursorRow(view(2, 2, true)), "P1 · unit A · earlier attempt — first pass");
  assert.equal(cursorRow({ ...view(2, 1, true), status: "completed" }), undefined, "no cursor once the run ended");
});

Deno.test("live: iteration 2 shows iteration 1's cursor labelled previous iteration until it reports its own", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
      events:
        - agent_control: {action: progress, cursor: P1, unit: A, summary: "first pass"}
        - agent_control: {action: repeat, reason: "unit A done; next unit B"}
    - events:
        - wait_ms: 300000`,
    },
    { defaultAction: "continue" },
  );
  const run = spawnCli(["run", pkt]);
  try {
    const snap = async () => parseJsonOut(await runCli(["control", "status", pkt, "--json"]));
    const agent = (s: Record<string, unknown>) => s.agent_control as Record<string, unknown> | null;
    const live = await waitFor(async () => {
      const s = await snap();
      return s.status === "running" && s.session_live === true && agent(s)?.iteration === 2 && s;
    }, { what: "iteration 2's session live", timeoutMs: 30_000 });
    const progress = agent(live)!.progress as Record<string, unknown>;
    assert.deepEqual([progress.cursor, progress.iteration, progress.stale], ["P1", 1, true]);
    const control = await runCli(["control", "status", pkt]);
    assert.match(control.stdout, /cursor\s+P1 · unit A · previous iteration — first pass/);
    const human = await runCli(["status", pkt]);
    assert.match(human.stdout, /cursor\s+P1 · unit A · previous iteration — first pass/);
    const stop = await runCli(["stop", pkt]);
    assert.equal(stop.code, 0, stop.stderr);
  } finally {
    await run.output();
  }
});
