/**
 * The simulated lane models every transport (docs/lanes.md, "Transports"): in-turn input reaches the model after the
 * running tool's result (the tool is not cut short), an in-process interrupt ends the tool and continues the same
 * session, input is acknowledged, and input an `exec` session or an ended turn cannot take is refused — plus the
 * runner's delivery choice from transport capabilities alone.
 */
import assert from "node:assert/strict";
import { simulatedLane, simulatedTransport } from "../../src/lanes/simulated.ts";
import { InputRefused, type LaneSession, type SessionSpec, TRANSPORT_CAPABILITIES } from "../../src/lanes/types.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { liveDelivery } from "../../src/run/steering.ts";
import { tempDir } from "../support/fs.ts";

function spec(cwd: string, simulate: Record<string, unknown>): SessionSpec {
  return {
    runId: "20261201T120501Z-AAAAAA",
    promptId: "01",
    attempt: 1,
    streamKind: "initial",
    prompt: "do it",
    cwd,
    options: {
      provider: "simulated",
      model: "simulated-demo",
      reasoning_effort: null,
      permission_mode: null,
      allowed_tools: null,
      timeout_ms: 60_000,
      system_prompt: null,
      append_system_prompt: null,
      max_turns: null,
      provider_opts: {},
    },
    resumeSessionId: null,
    extraDirs: [],
    repos: {},
    env: {},
    simulate,
    simulatedStep: "attempt",
  };
}

/** Play a session to its end, calling `onEvent` synchronously with each event as it arrives. */
async function play(session: LaneSession, onEvent: (e: ProviderEvent) => void = () => {}): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const e of session.events) {
    out.push(e);
    onEvent(e);
  }
  return out;
}

/** A compact trace: event types, with the user messages' text and tool outcomes. */
function trace(events: ProviderEvent[]): string[] {
  return events.filter((e) => !e.hidden).map((e) => {
    if (e.type === "message_sent") return `user:${e.data.content}`;
    if (e.type === "message_streamed") return `say:${e.data.delta}`;
    if (e.type === "tool_call_failed") return `tool_failed:${e.data.tool_output}`;
    return e.type;
  });
}

const LONG_TOOL = {
  attempts: [{ tools: [{ name: "Bash", delay_ms: 300, writes: [{ path: "tool.out", text: "ran" }] }] }],
  steer: { messages: ["acting on guidance"], writes: [{ path: "steered.out", text: "yes" }] },
};

Deno.test("stream_json: in-turn input during a tool reaches the model after the tool's result, then the steer step plays", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, { ...LONG_TOOL, transport: "stream_json" }));
  assert.deepEqual(session.transport, TRANSPORT_CAPABILITIES.stream_json);
  let ack: Promise<unknown> | null = null;
  const events = await play(session, (e) => {
    // Written while the tool runs (synchronously on its start event): the tool's 300 ms are not yet over.
    if (e.type === "tool_call_started") ack = session.sendInTurn!("use tabs");
  });
  assert.ok(ack !== null);
  const acked = await ack as { at: string };
  assert.ok(typeof acked.at === "string");
  assert.deepEqual(trace(events), [
    "run_started",
    "tool_call_started",
    "tool_call_completed",
    "user:use tabs",
    "say:acting on guidance",
    "run_completed",
  ]);
  assert.equal(await Deno.readTextFile(`${dir.path}/tool.out`), "ran", "the tool ran to its end");
  assert.equal(await Deno.readTextFile(`${dir.path}/steered.out`), "yes");
  assert.deepEqual(session.end(), { kind: "ok" });
});

Deno.test("stream_json: an in-process interrupt ends the running tool and continues the same session", async () => {
  await using dir = await tempDir();
  const slow = {
    attempts: [{ tools: [{ name: "Bash", delay_ms: 600_000, writes: [{ path: "tool.out", text: "ran" }] }] }],
    steer: { messages: ["stopped and redirected"] },
    transport: "stream_json",
  };
  const session = simulatedLane.start(spec(dir.path, slow));
  const id = session.sessionId;
  let ack: Promise<unknown> | null = null;
  const events = await play(session, (e) => {
    if (e.type === "tool_call_started") ack = session.interruptInProcess!("stop, do X instead");
  });
  await ack;
  assert.deepEqual(trace(events), [
    "run_started",
    "tool_call_started",
    "tool_failed:interrupted",
    "user:stop, do X instead",
    "say:stopped and redirected",
    "run_completed",
  ]);
  await assert.rejects(Deno.stat(`${dir.path}/tool.out`), Deno.errors.NotFound, "the stopped tool wrote nothing");
  assert.equal(session.sessionId, id, "the same session continues");
  assert.deepEqual(session.end(), { kind: "ok" });
});

Deno.test("app_server is modelled like stream_json; exec refuses input after start", async () => {
  assert.equal(simulatedTransport({ transport: "app_server" }), "app_server");
  assert.equal(simulatedTransport({}), "exec");
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, { attempts: [{ messages: ["a"] }] }));
  assert.deepEqual(session.transport, TRANSPORT_CAPABILITIES.exec);
  await assert.rejects(session.sendInTurn!("x"), InputRefused);
  await assert.rejects(session.interruptInProcess!("x"), InputRefused);
  assert.equal(trace(await play(session)).at(-1), "run_completed");
});

Deno.test("input written after the turn ended is refused, never silently dropped", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(spec(dir.path, { attempts: [{ messages: ["a"] }], transport: "stream_json" }));
  let late: Promise<unknown> | null = null;
  await play(session, (e) => {
    if (e.type === "run_completed") late = session.sendInTurn!("too late");
  });
  assert.ok(late !== null);
  await assert.rejects(late, InputRefused);
  await assert.rejects(session.sendInTurn!("after the end"), InputRefused);
});

Deno.test("the runner's delivery choice reads only the transport's capabilities and the steers' kind", () => {
  const plain = [{ request: "r1", author: "a", text: "t", accepted_at: "" }];
  const stop = [...plain, { request: "r2", author: "a", text: "u", accepted_at: "", interrupt: true }];
  assert.equal(liveDelivery(TRANSPORT_CAPABILITIES.exec, plain), "interrupt_and_resume");
  assert.equal(liveDelivery(TRANSPORT_CAPABILITIES.exec, stop), "interrupt_and_resume");
  assert.equal(liveDelivery(TRANSPORT_CAPABILITIES.stream_json, plain), "in_turn");
  assert.equal(liveDelivery(TRANSPORT_CAPABILITIES.stream_json, stop), "interrupt_in_process");
  assert.equal(liveDelivery(TRANSPORT_CAPABILITIES.app_server, stop), "interrupt_in_process");
  // Input after start without an in-process interrupt: `--interrupt` falls back to interrupt and resume.
  const inputOnly = { name: "stream_json" as const, acceptsInputAfterStart: true, interruptsInProcess: false };
  assert.equal(liveDelivery(inputOnly, plain), "in_turn");
  assert.equal(liveDelivery(inputOnly, stop), "interrupt_and_resume");
});
