import assert from "node:assert/strict";
import { afterIteration, judgeRecord } from "../../src/run/agent_decide.ts";
import { AGENT_RECORD_SCHEMA, type AgentRecord, type AgentScope } from "../../src/store/agent_records.ts";
import { AGENT_CONTROL_FLAGS, selfInvocation, shimText } from "../../src/run/agent_shim.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";

const SCOPE: AgentScope = { dir: "/x", token: "t", runId: "R", promptId: "01", iteration: 2 };
const rec = (o: Partial<AgentRecord>): AgentRecord => ({
  schema: AGENT_RECORD_SCHEMA,
  kind: "repeat",
  token: "t",
  run_id: "R",
  prompt_id: "01",
  iteration: 2,
  reason: null,
  cursor: null,
  unit: null,
  summary: null,
  at: "",
  ...o,
});

Deno.test("judgeRecord() authenticates token, run, prompt and iteration, and names each refusal", () => {
  const no = (r: AgentRecord | null, held: "repeat" | null = null) => {
    const v = judgeRecord(r, SCOPE, held);
    return v.ok ? "ok" : v.reason;
  };
  assert.equal(no(rec({})), "ok");
  assert.equal(no(null), "not an agent-control record (unreadable or malformed)");
  assert.equal(no(rec({ schema: "x" })), 'unknown schema "x"');
  assert.equal(no(rec({ token: "u" })), "the token does not match this invocation");
  assert.equal(no(rec({ run_id: "Q" })), "run Q is not the live run R");
  assert.equal(no(rec({ prompt_id: "02" })), "prompt 02 is not the live prompt 01");
  assert.equal(no(rec({ iteration: 1 })), "iteration 1 is not the live iteration 2");
  assert.equal(no(rec({ kind: "finish" })), "finish needs a reason");
  assert.equal(no(rec({ kind: "blocked" })), "blocked needs a reason");
  assert.equal(no(rec({ kind: "progress", cursor: "c" })), "progress needs a cursor and a summary");
  assert.equal(
    no(rec({ kind: "continue" }), "repeat"),
    "a terminal directive (repeat) was already accepted in this iteration; the first wins",
  );
  // Progress never consumes the terminal directive.
  assert.equal(no(rec({ kind: "progress", cursor: "c", summary: "s" }), "repeat"), "ok");
});

Deno.test("afterIteration(): continue, repeat, finish pass/fail/fault, blocked, the default and the cap", () => {
  const config = { default_action: "continue" as const, max_iterations: 3 };
  const step = (action: AgentRecord["kind"] | null, o: Partial<Parameters<typeof afterIteration>[0]> = {}) =>
    afterIteration({ action: action as never, reason: null, config, iteration: 1, completion: null, ...o });
  assert.deepEqual(step("continue"), { do: "complete" });
  assert.deepEqual(step(null), { do: "complete" });
  assert.deepEqual(step(null, { config: { ...config, default_action: "repeat" } }), {
    do: "next_iteration",
    iteration: 2,
    failures: [],
  });
  assert.deepEqual(step("repeat", { iteration: 3 }).do, "cap");
  assert.deepEqual(step("blocked", { reason: "creds" }), { do: "blocked", reason: "creds" });
  assert.deepEqual(step("finish", { completion: { status: "pass", failures: [] } }), { do: "finish" });
  assert.deepEqual(step("finish", { completion: { status: "fail", failures: ["files_exist#1"] } }), {
    do: "next_iteration",
    iteration: 2,
    failures: ["files_exist#1"],
  });
  assert.deepEqual(step("finish", { completion: { status: "fault", failures: [] } }), { do: "fault" });
  assert.equal(step("finish", { iteration: 3, completion: { status: "fail", failures: ["x"] } }).do, "cap");
});

Deno.test("the shim runs this program with exactly the agent-control command's permissions", () => {
  const entry = findCommand(["agent-control"])!.entry;
  assert.deepEqual(AGENT_CONTROL_FLAGS, denoFlagsFor(entry.permissions));
  assert.deepEqual(selfInvocation("/opt/deno", "file:///src/main%20x.ts"), [
    "/opt/deno",
    "run",
    "--quiet",
    "--no-prompt",
    ...AGENT_CONTROL_FLAGS,
    "/src/main x.ts",
  ]);
  assert.deepEqual(selfInvocation("/usr/local/bin/prompt_runner", "file:///x/main.ts"), [
    "/usr/local/bin/prompt_runner",
  ]);
  assert.equal(
    shimText(["/a b/deno", "it's"]),
    `#!/bin/sh\n# prompt_runner agent control: runs the program that started this session\nexec '/a b/deno' 'it'"'"'s' "$@"\n`,
  );
});
