/**
 * `onRecord` of the runner planes (used by `run --json`): every envelope the plane records — its own
 * `run_opened`, `view_changed` and `run_finished` included — reaches the callback once, in seq order, as recorded.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, FakeHooks, lines, reqName, RUN_ID, testPlane } from "../control/_harness.ts";
import { nullPlane } from "../../src/control/plane.ts";
import { DEFAULT_VIEW, type Envelope } from "../../src/events/types.ts";
import { encodeEnvelope } from "../../src/events/json.ts";

const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "s-1" };

Deno.test("openPlane({onRecord}) hands over every recorded envelope in seq order, identical to events.jsonl", async () => {
  await using tmp = await tempDir();
  const seen: Envelope[] = [];
  const { plane, paths } = await testPlane(`${tmp.path}/s`, { onRecord: (e) => seen.push(e) });
  assert.deepEqual(seen.map((e) => e.type), ["run_opened"], "run_opened reaches the callback at open");
  plane.record({ type: "message_sent", hidden: true, data: { content: "hi", role: "user" } }, ctx);
  await dropRaw(`${tmp.path}/s`, reqName(), body("set_view", { log_mode: "verbose" }));
  plane.boundary();
  plane.record({ type: "run_completed", data: { stop_reason: "end_turn" } }, ctx);
  await plane.close("completed", null);
  // Recorded after close: not part of the stream, not handed over.
  plane.record({ type: "notice", data: { level: "info", code: "x", message: "late" } }, ctx);
  assert.deepEqual(seen.map((e) => e.type), [
    "run_opened",
    "message_sent",
    "view_changed",
    "run_completed",
    "run_finished",
  ]);
  assert.deepEqual(seen.map((e) => e.seq), [1, 2, 3, 4, 5]);
  const file = await lines(paths.events);
  assert.deepEqual(seen.map((e) => encodeEnvelope(e)), file.map((e) => JSON.stringify(e)));
});

Deno.test("nullPlane(…, onRecord) hands over every stamped envelope", () => {
  const seen: number[] = [];
  const plane = nullPlane(RUN_ID, { ...DEFAULT_VIEW }, new FakeHooks(), (e) => seen.push(e.seq));
  plane.record({ type: "notice", data: { level: "info", code: "a", message: "b" } }, ctx);
  plane.record({ type: "run_completed", data: { stop_reason: "end_turn" } }, ctx);
  assert.deepEqual(seen, [1, 2]);
});
