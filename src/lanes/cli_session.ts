/**
 * The one generic `LaneSession` every CLI lane uses: spawns the profile's command over the shared driver, maps
 * stdout lines to canonical events through the profile's parser, applies the readiness rule, and turns the way the
 * process ended into the stream's terminal event and {@link StreamEnd} (docs/reference/events-and-rendering.md §4, docs/reference/runner.md §4).
 */
import type { ProviderErrorInfo, ProviderEvent, ProviderEventData } from "../events/mod.ts";
import { classifyHint } from "./hints.ts";
import { parseJsonObject } from "./_json.ts";
import type { ConversationSpec, SessionConversation } from "./conversation.ts";
import { type DriverExit, idleTimeoutFor, MAX_LINE_BYTES, ProviderProcess } from "./process.ts";
import {
  type CliProfile,
  guardrailFor,
  type LineParser,
  type ParsedLine,
  providerEnv,
  resolveExecutable,
} from "./profile.ts";
import {
  type InputAck,
  InputRefused,
  type LaneSession,
  type ProcessIdentity,
  type SessionSpec,
  type StreamEnd,
  TRANSPORT_CAPABILITIES,
  type TransportCapabilities,
} from "./types.ts";
import { type InputProtocol, LiveInput } from "./live_input.ts";

type CancelReason = "interrupted_for_steer" | "operator_stop";
type ErrorData = ProviderEventData["error_occurred"];

/** Bytes of stderr kept in `run_failed.stderr_tail` and `StreamEnd.stderrTail`. */
export const STDERR_TAIL_BYTES = 4096;

/** A line of a backtrace or a panic's boilerplate, never the CLI's own message. */
const NOISE = [
  /^\d+:\s/, // `9: <unknown>`, `  3: std::rt::lang_start`
  /^at\s/, // `at src/main.rs:12:5`, `at Object.<anonymous> (file.js:1:1)`
  /^stack backtrace:?$/i,
  /^note: .*backtrace/i,
  /^thread '.*' panicked at/i,
  /^WARNING:/,
];

/**
 * The CLI's own last meaningful stderr line: the last `Error: …` line when there is one, else the last line that is
 * not a backtrace frame or panic boilerplate. Pure.
 */
export function meaningfulLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const errors = lines.filter((l) => /^(?:error|fatal)\b/i.test(l));
  if (errors.length > 0) return errors[errors.length - 1]!;
  const plain = lines.filter((l) => !NOISE.some((re) => re.test(l)));
  return plain[plain.length - 1] ?? lines[lines.length - 1] ?? "";
}

/** A live CLI stream. Construct through {@link startCliSession}. */
class CliSession implements LaneSession {
  readonly events: AsyncIterable<ProviderEvent>;
  /** `exec`: one process per turn, stdin closed; an input protocol keeps stdin open (docs/lanes.md, "Transports"). */
  readonly transport: TransportCapabilities;
  readonly #input: LiveInput | null;
  readonly #profile: CliProfile;
  readonly #spec: SessionSpec;
  readonly #proc: ProviderProcess;
  readonly #exe: string;
  readonly #args: string[];
  readonly #parser: LineParser;
  #sessionId: string | null;
  #ready = false;
  #ended = false;
  #readyTimer: ReturnType<typeof setTimeout> | undefined;
  #readyWaiters: (() => void)[] = [];
  #interruptReason: CancelReason | null = null;
  #runStarted = false;
  #terminal: ProviderEvent["type"] | null = null;
  #firstError: ErrorData | null = null;
  #end: StreamEnd | null = null;
  #exit: DriverExit | null = null;
  readonly #conversation: SessionConversation | null;

  constructor(
    profile: CliProfile,
    spec: SessionSpec,
    input: InputProtocol | null,
    conversation: ConversationSpec | null = null,
  ) {
    this.#profile = profile;
    this.#spec = spec;
    this.#sessionId = spec.resumeSessionId;
    this.#exe = resolveExecutable(profile, spec.options, spec.env);
    this.#args = conversation !== null
      ? conversation.args
      : spec.resumeSessionId !== null
      ? profile.buildResume(spec.resumeSessionId, spec)
      : profile.buildCommand(spec);
    this.#parser = profile.createParser({ spec, interruptReason: () => this.#interruptReason });
    // Throws LaunchError when the executable cannot be started.
    this.#proc = ProviderProcess.spawn({
      command: this.#exe,
      args: this.#args,
      cwd: spec.cwd,
      env: providerEnv(spec),
      sessionTimeoutMs: spec.options.timeout_ms,
      idleTimeoutMs: idleTimeoutFor(spec.options.timeout_ms),
      input: input !== null || conversation !== null,
    });
    this.transport = TRANSPORT_CAPABILITIES[input?.transport ?? "exec"];
    // The prompt is the first user line on stdin (it is not among the arguments).
    this.#input = input === null ? null : new LiveInput(this.#proc, input, spec.prompt);
    const proc = this.#proc;
    this.#conversation = conversation?.create({
      write: (line) => void proc.writeInput(line).catch(() => {}),
      closeInput: () => proc.closeInput(),
    }) ?? null;
    this.#conversation?.open();
    this.events = this.#run();
  }

  sendInTurn(text: string): Promise<InputAck> {
    if (this.#input === null) return Promise.reject(new InputRefused("the exec transport takes no input after start"));
    if (this.#terminal !== null || this.#interruptReason !== null) {
      return Promise.reject(new InputRefused("the session is ending"));
    }
    return this.#input.send(text);
  }

  interruptInProcess(text: string): Promise<InputAck> {
    if (this.#input === null) return Promise.reject(new InputRefused("the exec transport has no in-process interrupt"));
    if (this.#terminal !== null || this.#interruptReason !== null) {
      return Promise.reject(new InputRefused("the session is ending"));
    }
    return this.#input.interrupt(text);
  }

  get sessionId(): string | null {
    return this.#sessionId;
  }

  get process(): ProcessIdentity | null {
    return this.#proc.identity;
  }

  isReady(): boolean {
    return this.#ready;
  }

  whenReady(): Promise<void> {
    if (this.#ready || this.#ended) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  async interrupt(reason: CancelReason, graceMs: number): Promise<void> {
    if (this.#terminal === null && !this.#proc.exited) this.#interruptReason ??= reason;
    this.#input?.close("the session was interrupted");
    await this.#proc.interrupt(graceMs);
  }

  kill(): void {
    if (this.#terminal === null) this.#interruptReason ??= "operator_stop";
    this.#input?.close("the session was killed");
    this.#proc.kill();
  }

  end(): StreamEnd {
    if (this.#end === null) throw new Error("end() is only valid after the event stream is exhausted");
    return this.#end;
  }

  #markReady(): void {
    if (this.#ready || this.#ended) return;
    this.#ready = true;
    clearTimeout(this.#readyTimer);
    for (const w of this.#readyWaiters.splice(0)) w();
  }

  #observeReadiness(raw: Record<string, unknown>): void {
    if (this.#ready) return;
    for (const m of this.#profile.readiness) {
      if (!m.match(raw)) continue;
      if (m.delayMs <= 0) this.#markReady();
      else if (this.#readyTimer === undefined) this.#readyTimer = setTimeout(() => this.#markReady(), m.delayMs);
      return;
    }
  }

  #redactedArgs(): string[] {
    return this.#args.map((a) => (a === this.#spec.prompt ? "<prompt>" : a));
  }

  #runStartedData(base: ProviderEventData["run_started"] | null): ProviderEventData["run_started"] {
    const o = this.#spec.options;
    const d: ProviderEventData["run_started"] = base
      ? { ...base }
      : { provider_session_id: this.#sessionId, model: null };
    d.provider_session_id ??= this.#sessionId;
    d.model ??= o.model;
    if (d.reasoning_effort === undefined && o.reasoning_effort !== null) d.reasoning_effort = o.reasoning_effort;
    d.cwd ??= this.#spec.cwd;
    d.command ??= this.#exe;
    d.args ??= this.#redactedArgs();
    if (d.permission_mode === undefined && o.permission_mode !== null) d.permission_mode = o.permission_mode;
    return d;
  }

  /** Apply the stream invariants to one parser event; returns what to yield. */
  #admit(ev: ProviderEvent): ProviderEvent[] {
    if (this.#terminal !== null) return [];
    const out: ProviderEvent[] = [];
    if (ev.type === "run_started") {
      this.#runStarted = true;
      return [{ ...ev, data: this.#runStartedData(ev.data) }];
    }
    // A stream that only reports an error never started a session (e.g. a resume whose target is gone): no
    // run_started is synthesised for it, so the runner can tell "resumed" from "could not resume".
    const failing = ev.type === "error_occurred" || ev.type === "run_failed" || ev.type === "run_cancelled" ||
      ev.type === "token_usage_updated";
    if (!ev.hidden && !this.#runStarted && !failing) {
      this.#runStarted = true;
      out.push({ type: "run_started", data: this.#runStartedData(null) });
    }
    if (this.#interruptReason !== null && (ev.type === "error_occurred" || ev.type === "run_failed")) {
      // Errors caused by our own interrupt are not failures of the stream.
      out.push({
        type: "notice",
        hidden: true,
        data: { level: "info", code: "interrupted_error", message: ev.data.error_message },
      });
      if (ev.type === "run_failed") {
        this.#terminal = "run_cancelled";
        out.push({ type: "run_cancelled", data: { reason: this.#interruptReason } });
      }
      return out;
    }
    if ((ev.type === "error_occurred" || ev.type === "run_failed") && this.#firstError === null) {
      this.#firstError = {
        error_code: ev.data.error_code,
        error_message: ev.data.error_message,
        severity: ev.type === "error_occurred" ? ev.data.severity : "error",
        provider_error: ev.data.provider_error,
      };
    }
    if (ev.type === "tool_call_started" && !this.#profile.enforcesAllowedTools) {
      const g = guardrailFor(
        this.#profile.lane.name,
        ev.data.tool_name,
        this.#spec.options.allowed_tools,
        this.#profile.toolVocabulary,
        ev.data.tool_input,
      );
      if (g !== null) ev = { ...ev, data: { ...ev.data, guardrail: g } };
    }
    if (ev.type === "run_completed" || ev.type === "run_failed" || ev.type === "run_cancelled") {
      this.#terminal = ev.type;
    }
    out.push(ev);
    return out;
  }

  #parse(line: string): ParsedLine {
    if (this.#conversation !== null) return this.#converse(line);
    const raw = parseJsonObject(line);
    if (raw !== null) {
      this.#observeReadiness(raw);
      const owned = this.#input?.observe(raw) ?? null;
      if (owned !== null) return { events: owned };
      return this.#parser.json(raw);
    }
    if (this.#parser.text) return this.#parser.text(line);
    if (line.trim() === "") return { events: [] };
    return {
      events: [{
        type: "notice",
        hidden: true,
        data: { level: "warning", code: "unparsed_output", message: line.slice(0, 2000) },
      }],
    };
  }

  /** A conversation's stdout line: the conversation's lines through the readiness rule and the parser. */
  #converse(line: string): ParsedLine {
    if (line.trim() === "") return { events: [] };
    const raw = parseJsonObject(line);
    const lines = raw !== null ? this.#conversation!.receive(raw) : this.#conversation!.garbage(line);
    const out: ParsedLine = { events: [] };
    for (const l of lines) {
      this.#observeReadiness(l);
      const p = this.#parser.json(l);
      out.events.push(...p.events);
      if (p.sessionId) out.sessionId = p.sessionId;
    }
    return out;
  }

  async *#run(): AsyncGenerator<ProviderEvent, void, undefined> {
    try {
      yield { type: "message_sent", hidden: true, data: { content: this.#spec.prompt, role: "user" } };
      for await (const line of this.#proc.lines()) {
        const parsed = this.#parse(line);
        if (parsed.sessionId) this.#sessionId = parsed.sessionId;
        for (const ev of parsed.events) yield* this.#admit(ev);
      }
      this.#input?.close("the CLI exited before the input was read");
      this.#exit = await this.#proc.wait();
      this.#ended = true;
      clearTimeout(this.#readyTimer);
      for (const w of this.#readyWaiters.splice(0)) w();
      for (const ev of this.#closingEvents(this.#exit)) yield* this.#admit(ev);
      this.#end = this.#computeEnd(this.#exit);
    } finally {
      if (this.#end === null) {
        // The consumer stopped early: never leave the provider behind.
        if (this.#terminal === null) this.#interruptReason ??= "operator_stop";
        this.#input?.close("the session was stopped");
        this.#proc.kill();
        this.#exit ??= await this.#proc.wait();
        this.#ended = true;
        clearTimeout(this.#readyTimer);
        for (const w of this.#readyWaiters.splice(0)) w();
        this.#end = this.#computeEnd(this.#exit);
      }
    }
  }

  #providerError(kind: string, message: string, exit: DriverExit, stderrTail: string): ProviderErrorInfo {
    const pe: ProviderErrorInfo = { provider: this.#profile.lane.name, kind, message };
    if (exit.code !== null) pe.exit_code = exit.code;
    if (stderrTail !== "") pe.stderr_tail = stderrTail;
    if (this.#sessionId !== null) pe.session_id = this.#sessionId;
    return pe;
  }

  #failure(code: string, message: string, exit: DriverExit): ProviderEvent[] {
    const stderrTail = this.#proc.stderrTail(STDERR_TAIL_BYTES);
    const pe = this.#providerError(code, message, exit, stderrTail);
    const failed: ProviderEventData["run_failed"] = { error_code: code, error_message: message, provider_error: pe };
    if (exit.code !== null) failed.exit_code = exit.code;
    if (stderrTail !== "") failed.stderr_tail = stderrTail;
    return [
      {
        type: "error_occurred",
        data: { error_code: code, error_message: message, severity: "error", provider_error: pe },
      },
      { type: "run_failed", data: failed },
    ];
  }

  /** Events owed when the process is gone and no terminal event was seen. */
  #closingEvents(exit: DriverExit): ProviderEvent[] {
    if (this.#terminal !== null) return [];
    if (this.#interruptReason !== null) return [{ type: "run_cancelled", data: { reason: this.#interruptReason } }];
    const timeout = this.#spec.options.timeout_ms;
    if (exit.reason === "idle_timeout") {
      return this.#failure("transport_timeout", `no output for ${idleTimeoutFor(timeout)} ms (idle timeout)`, exit);
    }
    if (exit.reason === "session_timeout") {
      return this.#failure("transport_timeout", `session exceeded its timeout of ${timeout} ms`, exit);
    }
    if (exit.reason === "line_too_long") {
      return this.#failure("protocol_error", `protocol error: a stdout line exceeded ${MAX_LINE_BYTES} bytes`, exit);
    }
    if (this.#profile.cleanExitCompletes && exit.code === 0) {
      return [{ type: "run_completed", data: { stop_reason: "end_turn" } }];
    }
    const how = exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const detail = meaningfulLine(this.#proc.stderrTail(STDERR_TAIL_BYTES));
    const message = `${this.#profile.lane.name} ${how} without a result${detail ? `: ${detail}` : ""}`;
    return this.#failure("transport_exit", message, exit);
  }

  #computeEnd(exit: DriverExit): StreamEnd {
    if (this.#terminal === "run_cancelled" || (this.#terminal === null && this.#interruptReason !== null)) {
      return { kind: "cancelled", reason: this.#interruptReason ?? "operator_stop", interrupted: true };
    }
    const err = this.#firstError;
    if (err === null) return { kind: "ok" };
    const stderrTail = this.#proc.stderrTail(STDERR_TAIL_BYTES);
    const status = err.provider_error.status ?? null;
    const transport = ["transport_exit", "transport_timeout", "protocol_error"].includes(err.error_code);
    const hint = classifyHint(this.#profile.failureHints, {
      status,
      kind: err.error_code,
      message: transport ? `${err.error_message}\n${stderrTail}` : err.error_message,
    });
    let hintClass = hint?.class ?? null;
    if (hintClass === null && transport) {
      hintClass = err.error_code === "transport_exit" ? "transport_disconnect" : err.error_code;
    }
    const notFound = this.#spec.resumeSessionId !== null &&
      (this.#profile.sessionNotFound.test(stderrTail) || this.#profile.sessionNotFound.test(err.error_message));
    return {
      kind: "error",
      code: err.error_code,
      message: hint?.note ? `${err.error_message} (${hint.note})` : err.error_message,
      providerError: err.provider_error,
      hintClass,
      recovery: hint?.recovery ?? null,
      exitCode: exit.code,
      stderrTail,
      sessionNotFound: notFound,
    };
  }
}

/**
 * Start one stream of a CLI lane: over `exec` (stdin closed), or, given the lane's input protocol, with stdin kept
 * open for in-turn input and in-process interrupts; or, given a conversation (codex `app-server`), with stdin kept
 * open for the conversation to talk to the CLI. Throws LaunchError when the executable cannot be launched.
 */
export function startCliSession(
  profile: CliProfile,
  spec: SessionSpec,
  input: InputProtocol | null = null,
  conversation: ConversationSpec | null = null,
): LaneSession {
  return new CliSession(profile, spec, input, conversation);
}
