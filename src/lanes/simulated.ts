/**
 * The simulated lane (docs/reference/packet.md §7): plays a prompt's `simulate:` script in-process — no executable, no network —
 * so every recovery and control path can be exercised deterministically. The script's reading (the error-kind table,
 * the default failure envelopes, the step and its actions) is in simulated_script.ts, not in the runner.
 */
import { SIMULATED_PROFILE } from "./profiles.ts";
import type { ProviderEvent } from "../events/mod.ts";
import type { SessionOptions } from "./types.ts";
import {
  type InputAck,
  InputRefused,
  type Lane,
  type LaneSession,
  type LaneTransport,
  type ProbeResult,
  type SessionSpec,
  type StreamEnd,
  TRANSPORT_CAPABILITIES,
  type TransportCapabilities,
} from "./types.ts";
import { SimulatedInbox } from "./simulated_input.ts";
import { ScriptWriter } from "./simulated_cursor.ts";
import { agentControlStep } from "./simulated_agent.ts";
import {
  type Action,
  asList,
  asMap,
  delayOf,
  scriptedFailure,
  sessionNotFound,
  simBool,
  simulatedStep,
  stepActions,
} from "./simulated_script.ts";

export { simBool, simulatedKindFacts, simulatedRecovery, simulatedStep } from "./simulated_script.ts";
export type { SimulatedKindFacts } from "./simulated_script.ts";

function resolveWritePath(w: Record<string, unknown>, spec: SessionSpec): string {
  const rel = typeof w.path === "string" && w.path !== "" ? w.path : "simulated.out";
  if (rel.startsWith("/")) return rel;
  const repo = typeof w.repo === "string" ? spec.repos[w.repo] : undefined;
  const base = repo ?? spec.cwd;
  return `${base.replace(/\/+$/, "")}/${rel}`;
}

async function applyWrites(list: unknown, spec: SessionSpec, writer: ScriptWriter): Promise<void> {
  for (const item of asList(list)) {
    const w = asMap(item);
    if (!w) continue;
    const text = w.text === undefined || w.text === null ? "" : String(w.text);
    await writer.apply({ path: resolveWritePath(w, spec), text, append: simBool(w.append) });
  }
}

/**
 * The step a session plays. Crash recovery (a cursor continuing an interrupted attempt) continues that attempt's
 * script, unless the stream is a crash resume of a script with its own `resume:` step (played as scripted).
 */
async function stepFor(spec: SessionSpec): Promise<{ step: Record<string, unknown>; writer: ScriptWriter }> {
  const sim = spec.simulate ?? {};
  const scriptedResume = spec.simulatedStep === "resume" &&
    asMap(Array.isArray(sim.resume) ? sim.resume[0] : sim.resume) !== null;
  const tracked = scriptedResume ? false : spec.simulatedCursor?.continueFrom ? true : spec.simulatedStep === "attempt";
  // Attempt scripts (and their crash-recovery continuations) keep a cursor; scripted resume/steer steps do not.
  if (!tracked) return { step: simulatedStep(spec), writer: await ScriptWriter.open(null, spec.attempt) };
  const writer = await ScriptWriter.open(spec.simulatedCursor, spec.attempt);
  return { step: simulatedStep({ simulate: spec.simulate, simulatedStep: "attempt", attempt: writer.script }), writer };
}

/** A sleep that an interrupt can cut short. */
class Sleeper {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #wake: (() => void) | null = null;
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = resolve;
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.#wake = null;
        resolve();
      }, ms);
    });
  }
  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const w = this.#wake;
    this.#wake = null;
    w?.();
  }
}

class SimulatedSession implements LaneSession {
  readonly process = null;
  readonly transport: TransportCapabilities;
  readonly #inbox = new SimulatedInbox();
  #toolSeq = 0;
  #sessionId: string;
  #ready = false;
  #readyWaiters: (() => void)[] = [];
  #cancel: "interrupted_for_steer" | "operator_stop" | null = null;
  #doneWaiters: (() => void)[] = [];
  #done = false;
  #end: StreamEnd = { kind: "ok" };
  #sleeper = new Sleeper();
  readonly events: AsyncIterable<ProviderEvent>;

  constructor(private readonly spec: SessionSpec) {
    this.transport = TRANSPORT_CAPABILITIES[simulatedTransport(spec.simulate)];
    this.#sessionId = spec.resumeSessionId ?? `simulated-${spec.promptId}-${spec.attempt}`;
    this.events = this.#play();
  }

  get sessionId(): string | null {
    return this.#sessionId;
  }

  isReady(): boolean {
    return this.#ready && !this.#done;
  }

  whenReady(): Promise<void> {
    if (this.#ready || this.#done) return Promise.resolve();
    return new Promise((r) => this.#readyWaiters.push(r));
  }

  interrupt(reason: "interrupted_for_steer" | "operator_stop", _graceMs: number): Promise<void> {
    if (this.#done) return Promise.resolve();
    if (this.#cancel === null) this.#cancel = reason;
    this.#sleeper.cancel();
    return new Promise((r) => this.#doneWaiters.push(r));
  }

  kill(): void {
    if (this.#cancel === null) this.#cancel = "operator_stop";
    this.#sleeper.cancel();
  }

  sendInTurn(text: string): Promise<InputAck> {
    if (!this.transport.acceptsInputAfterStart) {
      return Promise.reject(new InputRefused(`the ${this.transport.name} transport takes no input after start`));
    }
    return this.#inbox.send(text);
  }

  interruptInProcess(text: string): Promise<InputAck> {
    if (!this.transport.interruptsInProcess) {
      return Promise.reject(new InputRefused(`the ${this.transport.name} transport has no in-process interrupt`));
    }
    const ack = this.#inbox.interrupt(text);
    this.#sleeper.cancel();
    return ack;
  }

  end(): StreamEnd {
    return this.#end;
  }

  #markReady(): void {
    this.#ready = true;
    for (const r of this.#readyWaiters.splice(0)) r();
  }

  #finish(): void {
    this.#done = true;
    this.#inbox.close("the simulated session ended before the input was read");
    for (const r of this.#readyWaiters.splice(0)) r();
    for (const r of this.#doneWaiters.splice(0)) r();
  }

  async *#play(): AsyncGenerator<ProviderEvent> {
    try {
      yield* this.#script();
    } finally {
      this.#finish();
    }
  }

  #cancelled(): ProviderEvent {
    const reason = this.#cancel ?? "operator_stop";
    this.#end = { kind: "cancelled", reason, interrupted: true };
    return { type: "run_cancelled", data: { reason } };
  }

  /** A sleep that an interrupt (process or in-process) cuts short; false when one arrived. */
  async #pause(ms: number): Promise<boolean> {
    if (this.#cancel || this.#inbox.interruptRequested) return false;
    if (ms > 0) await this.#sleeper.sleep(ms);
    return this.#cancel === null && !this.#inbox.interruptRequested;
  }

  /** The script's `steer:` step (else `resume:`), played inside the running session after input reached it. */
  async *#steerStep(writer: ScriptWriter, delay: number): AsyncGenerator<ProviderEvent, "done" | "stopped"> {
    const step = simulatedStep({ ...this.spec, simulatedStep: "steer" });
    await applyWrites(step.writes, this.spec, writer);
    return yield* this.#act(stepActions(step), writer, delay);
  }

  /** A user message that reached the simulated model inside the running session. */
  #userMessage(text: string): ProviderEvent {
    return { type: "message_sent", data: { content: text, role: "user" } };
  }

  /**
   * Play scripted actions. Before each "model request" (every action after its delay) the texts written in-turn are
   * injected; a running tool is never cut short by them, only by an interrupt. Returns `stopped` when an interrupt
   * (process or in-process) arrived.
   */
  async *#act(
    actions: Iterable<Action>,
    writer: ScriptWriter,
    delay: number,
  ): AsyncGenerator<ProviderEvent, "done" | "stopped"> {
    const spec = this.spec;
    for (const action of actions) {
      if (action.kind === "write") {
        await applyWrites(action.write, spec, writer);
        continue;
      }
      if (action.kind === "agent") {
        for (const e of asList(action.entries)) await agentControlStep(asMap(e) ?? {}, spec.env);
        continue;
      }
      if (action.kind === "wait") {
        if (!(await this.#pause(action.ms))) return "stopped";
        continue;
      }
      if (!(await this.#pause(delay))) return "stopped";
      for (const p of this.#inbox.drain()) {
        yield this.#userMessage(p.text);
        p.resolve({ at: new Date().toISOString() });
      }
      if (action.kind === "event") {
        yield action.event;
        continue;
      }
      const tool = action.tool;
      const id = `sim-tool-${++this.#toolSeq}`;
      const name = typeof tool.name === "string" ? tool.name : "Tool";
      const input = asMap(tool.input) ?? {};
      yield { type: "tool_call_started", data: { tool_call_id: id, tool_name: name, tool_input: input } };
      if (!(await this.#pause(delayOf(tool.delay_ms)))) {
        if (this.#cancel === null) {
          // Stopped in-process: the tool is ended, its writes never happen, the session continues.
          yield {
            type: "tool_call_failed",
            data: { tool_call_id: id, tool_name: name, tool_output: "interrupted", is_error: true },
          };
        }
        return "stopped";
      }
      await applyWrites(tool.writes, spec, writer);
      const output = tool.output === undefined || tool.output === null ? "" : String(tool.output);
      if (simBool(tool.is_error)) {
        yield {
          type: "tool_call_failed",
          data: { tool_call_id: id, tool_name: name, tool_output: output, is_error: true },
        };
      } else {
        yield {
          type: "tool_call_completed",
          data: { tool_call_id: id, tool_name: name, tool_output: output, is_error: false },
        };
      }
    }
    return "done";
  }

  async *#script(): AsyncGenerator<ProviderEvent> {
    const spec = this.spec;
    const sim = spec.simulate ?? {};
    const { step, writer } = await stepFor(spec);
    const delay = delayOf(step.delay_ms);
    const sent: ProviderEvent = { type: "message_sent", hidden: true, data: { content: spec.prompt, role: "user" } };
    if (spec.resumeSessionId !== null && asMap(sim.session) && !simBool(asMap(sim.session)!.resumable ?? true)) {
      yield sent;
      const failure = sessionNotFound(spec.resumeSessionId);
      this.#end = failure.end;
      yield failure.error;
      yield failure.failed;
      return;
    }
    await applyWrites(step.writes, spec, writer);
    yield sent;
    if (this.#cancel) {
      yield this.#cancelled();
      return;
    }
    yield {
      type: "run_started",
      data: {
        provider_session_id: this.#sessionId,
        model: spec.options.model,
        cwd: spec.cwd,
        command: "simulated",
        args: [],
        ...(typeof step.label === "string" ? { simulation_label: step.label } : {}),
        ...(spec.options.permission_mode ? { permission_mode: spec.options.permission_mode } : {}),
      },
    };
    this.#markReady();
    let result = yield* this.#act(stepActions(step), writer, delay);
    let steerPlayed = false;
    // Input written into the live session (stream_json / app_server) is answered before the turn ends.
    for (;;) {
      if (this.#cancel) break;
      const stop = this.#inbox.takeInterrupt();
      if (stop !== null) {
        yield this.#userMessage(stop.text);
        stop.resolve({ at: new Date().toISOString() });
        steerPlayed = true;
        result = yield* this.#steerStep(writer, delay);
        continue;
      }
      if (result === "done" && !(await this.#pause(delay))) continue;
      const waiting = this.#inbox.drain();
      if (waiting.length === 0) break;
      for (const p of waiting) {
        yield this.#userMessage(p.text);
        p.resolve({ at: new Date().toISOString() });
      }
      if (steerPlayed) continue;
      steerPlayed = true;
      result = yield* this.#steerStep(writer, delay);
    }
    this.#inbox.close("the simulated turn ended before the input was read");
    if (this.#cancel) {
      yield this.#cancelled();
      return;
    }
    const error = asMap(step.error);
    if (error) {
      const failure = scriptedFailure(error, this.#sessionId);
      this.#end = failure.end;
      yield failure.error;
      if (this.#cancel) {
        yield this.#cancelled();
        return;
      }
      yield failure.failed;
      return;
    }
    this.#end = { kind: "ok" };
    yield { type: "run_completed", data: { stop_reason: "end_turn" } };
  }
}

/**
 * The transport a simulated script models (`simulate: {transport: …}`, default `exec`); a name the lane does not have
 * is `exec` here (lint reports it, docs/packets.md).
 */
export function simulatedTransport(simulate: Record<string, unknown> | null | undefined): LaneTransport {
  const t = simulate?.transport;
  return SIMULATED_PROFILE.transports.find((x) => x === t) ?? "exec";
}

/** The simulated lane: in-process, always available; models every transport. */
export const simulatedLane: Lane = {
  profile: SIMULATED_PROFILE,
  transportFor: (_options, simulate) => simulatedTransport(simulate),
  start(spec: SessionSpec): LaneSession {
    return new SimulatedSession(spec);
  },
  probe(_options: SessionOptions): Promise<ProbeResult> {
    return Promise.resolve({
      name: "simulated",
      executable: null,
      path: null,
      version: "built-in",
      available: true,
      error: null,
    });
  },
};
