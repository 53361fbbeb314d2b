/**
 * The facts of the status line and heartbeat (src/run/run_progress.ts): `trackPlane()` forwards to the run's plane and
 * folds every transition and recorded event — position, attempt, stage, last event, tools and tokens counted as the
 * snapshot counts them.
 */
import assert from "node:assert/strict";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { RunProgress, trackPlane } from "../../src/run/run_progress.ts";
import { fakePlane, PROMPT_01_CTX } from "../support/fake_plane.ts";

const ctx = PROMPT_01_CTX;

Deno.test("trackPlane() forwards to the plane and folds transitions and events into the status facts", () => {
  let now = 1_000;
  const progress = new RunProgress(3, () => now);
  const recorded: string[] = [];
  const plane = trackPlane(fakePlane((e) => recorded.push(e.type)), progress);
  assert.equal(plane.runId, "R");
  assert.deepEqual(plane.view, DEFAULT_VIEW);
  const started = new Date(500).toISOString();
  plane.transition({
    stage: "session",
    prompt_id: "01",
    prompt_position: 1,
    attempt: 1,
    mode: "run",
    prompt_started_at: started,
  });
  const env = plane.record({ type: "run_started", data: { provider_session_id: "s", model: "m" } }, ctx);
  assert.equal(env.seq, 1, "the plane stamped it");
  plane.record({ type: "tool_call_started", data: { tool_call_id: "t", tool_name: "Edit", tool_input: {} } }, ctx);
  assert.deepEqual(progress.facts().runningTool, { name: "Edit", sinceMs: 1_000 });
  plane.record({
    type: "tool_call_completed",
    data: { tool_call_id: "t", tool_name: "Edit", tool_output: "ok", is_error: false },
  }, ctx);
  assert.equal(progress.facts().runningTool, null);
  plane.record({ type: "token_usage_updated", data: { input_tokens: 1200, output_tokens: 85 } }, ctx);
  now = 2_000;
  plane.record({
    type: "run_completed",
    data: { stop_reason: "end_turn", token_usage: { input_tokens: 1200, output_tokens: 85 } },
  }, ctx);
  assert.deepEqual(recorded, [
    "run_started",
    "tool_call_started",
    "tool_call_completed",
    "token_usage_updated",
    "run_completed",
  ]);
  let f = progress.facts();
  assert.deepEqual(
    [
      f.promptId,
      f.position,
      f.selected,
      f.attempt,
      f.mode,
      f.stage,
      f.promptStartedMs,
      f.lastEventMs,
      f.lastEvent,
      f.tools,
    ],
    ["01", 1, 3, 1, "run", "session", 500, 2_000, "run_completed", 1],
  );
  assert.deepEqual(f.tokens, { attempt: { input: 1200, output: 85 }, run: { input: 1200, output: 85 } });
  // The next attempt starts its tools and tokens over; the run's tokens keep counting.
  plane.transition({ attempt: 2, mode: "retry" });
  plane.record({ type: "run_started", data: { provider_session_id: "s2", model: "m" } }, { ...ctx, attempt: 2 });
  plane.record({ type: "token_usage_updated", data: { input_tokens: 100, output_tokens: 5 } }, { ...ctx, attempt: 2 });
  f = progress.facts();
  assert.deepEqual([f.attempt, f.mode, f.tools], [2, "retry", 0]);
  assert.deepEqual(f.tokens, { attempt: { input: 100, output: 5 }, run: { input: 1300, output: 90 } });
});
