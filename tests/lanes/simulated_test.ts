import assert from "node:assert/strict";
import { simulatedLane, simulatedRecovery, simulatedStep } from "../../src/lanes/simulated.ts";
import type { SessionSpec } from "../../src/lanes/types.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import type { ExecutionOptions } from "../../src/packet/types.ts";
import { defaultRecovery } from "../../src/packet/recovery.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { tempDir } from "../support/fs.ts";

function options(): ExecutionOptions {
  return {
    provider: "simulated",
    model: "simulated-demo",
    reasoning_effort: null,
    permission_mode: "bypass",
    allowed_tools: null,
    timeout_ms: 1000,
    system_prompt: null,
    append_system_prompt: null,
    max_turns: null,
    view: { ...DEFAULT_VIEW },
    diff_max_lines: 60,
    tool_output_max_lines: 200,
    log_meta: "none",
    events_mode: "compact",
    recovery: defaultRecovery(),
    provider_opts: {},
  };
}

function spec(cwd: string, simulate: Record<string, unknown> | null, over: Partial<SessionSpec> = {}): SessionSpec {
  return {
    runId: "20261130T120501Z-AAAAAA",
    promptId: "01",
    attempt: 1,
    streamKind: "initial",
    prompt: "do it",
    cwd,
    options: options(),
    resumeSessionId: null,
    extraDirs: [],
    repos: {},
    env: {},
    simulate,
    simulatedStep: "attempt",
    ...over,
  };
}

async function collect(events: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

Deno.test("simulatedLane plays the default event order with writes applied before any event", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, {
    attempts: [{
      label: "first",
      writes: [{ path: "a/out.txt", text: "hi" }],
      thinking: ["Thinking."],
      messages: ["One.", "Two."],
      tools: [{ name: "Edit", input: { file_path: "x" }, output: "ok", writes: [{ path: "tool.txt", text: "t" }] }],
      usage: { input_tokens: 10, output_tokens: 2, cost_usd: 0.5 },
    }],
  }));
  const it = session.events[Symbol.asyncIterator]();
  const first = await it.next();
  // The write already happened when the first (hidden) event is delivered.
  assert.equal(await Deno.readTextFile(`${dir.path}/a/out.txt`), "hi");
  assert.equal(first.value?.type, "message_sent");
  assert.equal(first.value?.hidden, true);
  const rest: ProviderEvent[] = [];
  for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
  assert.deepEqual(rest.map((e) => e.type), [
    "run_started",
    "message_streamed",
    "message_streamed",
    "message_streamed",
    "tool_call_started",
    "tool_call_completed",
    "token_usage_updated",
    "run_completed",
  ]);
  const started = rest[0]!;
  assert.ok(started.type === "run_started");
  assert.equal(started.data.provider_session_id, "simulated-01-1");
  assert.equal(started.data.simulation_label, "first");
  const thinking = rest[1]!;
  assert.ok(thinking.type === "message_streamed" && thinking.data.kind === "thinking");
  assert.equal(await Deno.readTextFile(`${dir.path}/tool.txt`), "t");
  assert.deepEqual(session.end(), { kind: "ok" });
  assert.equal(session.sessionId, "simulated-01-1");
});

Deno.test("simulatedLane without a simulate block runs an empty successful step", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, null, { attempt: 3 }));
  const events = await collect(session.events);
  assert.deepEqual(events.map((e) => e.type), ["message_sent", "run_started", "run_completed"]);
  assert.equal(session.sessionId, "simulated-01-3");
});

Deno.test("simulatedLane ends with error_occurred + run_failed and a default envelope for the kind", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, { attempts: [{ error: { kind: "protocol_error" } }] }));
  const events = await collect(session.events);
  assert.deepEqual(events.slice(-2).map((e) => e.type), ["error_occurred", "run_failed"]);
  const end = session.end();
  assert.equal(end.kind, "error");
  if (end.kind !== "error") return;
  assert.equal(end.message, "simulated failure");
  assert.equal(end.hintClass, "protocol_error");
  assert.equal(end.recovery?.resumeable, true);
  assert.equal(end.recovery?.retryable, true);
  assert.equal(end.recovery?.repairable, true);
});

Deno.test("simulatedRecovery() maps kinds per the table and applies overrides with ? spellings and the boolean rule", () => {
  assert.equal(simulatedRecovery("rate_limit", null).class, "provider_rate_limit");
  assert.equal(simulatedRecovery("model_unavailable", null).class, "provider_config_claim");
  assert.equal(simulatedRecovery("transport_exit", null).class, "transport_disconnect");
  assert.equal(simulatedRecovery("something_new", null).class, "provider_runtime_claim");
  const cancelled = simulatedRecovery("user_cancelled", null);
  assert.equal(cancelled.retryable, false);
  assert.equal(cancelled.repairable, true);
  const o = simulatedRecovery("provider_capacity", {
    "retryable?": "false",
    local_deterministic: "TRUE",
    resumeable: "yes",
    suggested_delay_ms: "250",
  });
  assert.equal(o.retryable, false);
  assert.equal(o.local_deterministic, true);
  assert.equal(o.resumeable, false, 'only true/"true"/"TRUE"/"1"/1 are true');
  assert.equal(o.suggested_delay_ms, 250);
});

Deno.test("simulatedStep() picks attempts[k-1], resume (map or list), and steer falling back to resume", () => {
  const sim = { attempts: [{ label: "a" }, { label: "b" }], resume: [{ label: "r" }] };
  assert.equal(simulatedStep({ simulate: sim, simulatedStep: "attempt", attempt: 2 }).label, "b");
  assert.deepEqual(simulatedStep({ simulate: sim, simulatedStep: "attempt", attempt: 5 }), {});
  assert.equal(simulatedStep({ simulate: sim, simulatedStep: "resume", attempt: 1 }).label, "r");
  assert.equal(simulatedStep({ simulate: sim, simulatedStep: "steer", attempt: 1 }).label, "r");
  assert.equal(
    simulatedStep({ simulate: { ...sim, steer: { label: "s" } }, simulatedStep: "steer", attempt: 1 }).label,
    "s",
  );
});

Deno.test("simulatedLane plays the explicit events list instead of thinking/messages/tools", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, {
    attempts: [{
      messages: ["ignored"],
      events: [{ notice: "hello" }, { write: { path: "w.txt", text: "w" } }, { message: "m" }, { wait_ms: 1 }, {
        usage: { input_tokens: 1, output_tokens: 1 },
      }],
    }],
  }));
  const events = await collect(session.events);
  assert.deepEqual(events.map((e) => e.type), [
    "message_sent",
    "run_started",
    "notice",
    "message_streamed",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.equal(await Deno.readTextFile(`${dir.path}/w.txt`), "w");
});

Deno.test("simulatedLane resumes with the same session id and reports session not found when not resumable", async () => {
  await using dir = await tempDir();
  const ok = simulatedLane.start(spec(dir.path, { resume: { messages: ["again"] } }, {
    resumeSessionId: "simulated-01-1",
    simulatedStep: "resume",
    attempt: 1,
  }));
  const evs = await collect(ok.events);
  const started = evs.find((e) => e.type === "run_started");
  assert.ok(started && started.type === "run_started");
  assert.equal(started.data.provider_session_id, "simulated-01-1");
  const gone = simulatedLane.start(spec(dir.path, { session: { resumable: false } }, {
    resumeSessionId: "simulated-01-1",
    simulatedStep: "steer",
  }));
  await collect(gone.events);
  const end = gone.end();
  assert.ok(end.kind === "error" && end.sessionNotFound);
});

Deno.test("simulatedLane is interruptible after run_started: the step stops and run_cancelled ends the stream", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, {
    attempts: [{ delay_ms: 200, messages: ["a", "b", "c", "d", "e"] }],
  }));
  assert.equal(session.isReady(), false);
  const seen: string[] = [];
  const consumer = (async () => {
    for await (const e of session.events) seen.push(e.type);
  })();
  await session.whenReady();
  assert.equal(session.isReady(), true);
  const t0 = Date.now();
  await session.interrupt("interrupted_for_steer", 5000);
  await consumer;
  assert.ok(Date.now() - t0 < 1000, "the interrupt cuts the remaining delays short");
  assert.equal(seen.at(-1), "run_cancelled");
  assert.ok(!seen.includes("run_completed"));
  assert.ok(seen.filter((t) => t === "message_streamed").length < 5);
  assert.deepEqual(session.end(), { kind: "cancelled", reason: "interrupted_for_steer", interrupted: true });
});

Deno.test("simulatedLane waits delay_ms before each event after run_started and tool delay_ms before completion", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, {
    attempts: [{ delay_ms: 30, messages: ["a"], tools: [{ name: "Bash", delay_ms: 40 }] }],
  }));
  const t0 = Date.now();
  const evs = await collect(session.events);
  const took = Date.now() - t0;
  // message, tool start, completion: 3 × 30 ms plus the tool's 40 ms.
  assert.ok(took >= 120, `took ${took} ms`);
  assert.equal(evs.at(-1)?.type, "run_completed");
});
