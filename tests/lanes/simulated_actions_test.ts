/**
 * The simulated lane turns a step into actions one at a time, as they are played: a long script no longer blocks the
 * runner's thread at the session's start while control requests wait (docs/bench.md, "Control under full load").
 */
import assert from "node:assert/strict";
import { stepActions } from "../../src/lanes/simulated_script.ts";

/** A message whose text is read only when the action is made (counts the reads). */
function counted(text: string, reads: { n: number }) {
  return {
    toString() {
      reads.n++;
      return text;
    },
  };
}

Deno.test("stepActions makes each action only when it is reached", () => {
  const reads = { n: 0 };
  const messages = Array.from({ length: 50_000 }, (_, i) => counted(`token ${i} `, reads));
  const actions = stepActions({ messages });
  const first = actions.next();
  assert.equal(first.done, false);
  assert.deepEqual(first.value, {
    kind: "event",
    event: { type: "message_streamed", data: { delta: "token 0 ", message_id: "sim-message-1" } },
  });
  assert.equal(reads.n, 1, "one message read for the first action, not the whole script");
  let rest = 0;
  for (const _ of actions) rest++;
  assert.equal(rest, 49_999);
  assert.equal(reads.n, 50_000);
});

Deno.test("stepActions keeps the order: thinking, messages, tools, usage, agent control; or the events list", () => {
  const kinds = [...stepActions({
    thinking: ["t"],
    messages: ["a", "b"],
    tools: [{ name: "Read" }],
    usage: { input_tokens: 1, output_tokens: 2 },
    agent_control: [{ stop: true }],
  })].map((a) => a.kind === "event" ? `${a.event.type}:${JSON.stringify(a.event.data)}` : a.kind);
  assert.deepEqual(kinds.slice(0, 3), [
    'message_streamed:{"delta":"t","kind":"thinking","message_id":"sim-thinking-1"}',
    'message_streamed:{"delta":"a","message_id":"sim-message-1"}',
    'message_streamed:{"delta":"b","message_id":"sim-message-2"}',
  ]);
  assert.equal(kinds[3], "tool");
  assert.match(kinds[4]!, /^token_usage_updated:/);
  assert.equal(kinds[5], "agent");
  assert.equal(kinds.length, 6);
  const explicit = [...stepActions({ events: [{ message: "x" }, { wait_ms: 5 }, { write: { path: "f" } }] })];
  assert.deepEqual(explicit.map((a) => a.kind), ["event", "wait", "write"]);
});
