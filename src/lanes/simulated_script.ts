/**
 * Reading a simulated prompt's `simulate:` script (docs/reference/packet.md §7): the error-kind table and default
 * failure envelopes, the step a stream plays, and the actions a step lists. Pure: no I/O, no session state.
 */
import type { ProviderErrorInfo, ProviderEvent } from "../events/mod.ts";
import type { SessionSpec, StreamEnd } from "./types.ts";

/** Default envelope facts of one simulated error kind (docs/reference/packet.md §7 table). */
export interface SimulatedKindFacts {
  class: string;
  retryable: boolean;
  resumeable: boolean;
}

const KIND_TABLE: Record<string, SimulatedKindFacts> = {
  provider_capacity: { class: "provider_capacity", retryable: true, resumeable: false },
  provider_rate_limit: { class: "provider_rate_limit", retryable: true, resumeable: false },
  rate_limit: { class: "provider_rate_limit", retryable: true, resumeable: false },
  provider_auth_claim: { class: "provider_auth_claim", retryable: true, resumeable: false },
  auth_error: { class: "provider_auth_claim", retryable: true, resumeable: false },
  provider_config_claim: { class: "provider_config_claim", retryable: true, resumeable: false },
  config_invalid: { class: "provider_config_claim", retryable: true, resumeable: false },
  model_unavailable: { class: "provider_config_claim", retryable: true, resumeable: false },
  provider_runtime_claim: { class: "provider_runtime_claim", retryable: true, resumeable: false },
  runtime_error: { class: "provider_runtime_claim", retryable: true, resumeable: false },
  protocol_error: { class: "protocol_error", retryable: true, resumeable: true },
  transport_error: { class: "transport_disconnect", retryable: true, resumeable: true },
  transport_exit: { class: "transport_disconnect", retryable: true, resumeable: true },
  transport_timeout: { class: "transport_timeout", retryable: true, resumeable: true },
  user_cancelled: { class: "user_cancelled", retryable: false, resumeable: false },
  approval_denied: { class: "approval_denied", retryable: false, resumeable: false },
  guardrail_blocked: { class: "guardrail_blocked", retryable: false, resumeable: false },
};

/** Facts of a simulated error kind; unknown kinds are runtime claims. */
export function simulatedKindFacts(kind: string): SimulatedKindFacts {
  return KIND_TABLE[kind] ?? KIND_TABLE.provider_runtime_claim!;
}

/** Booleans are true only for `true`, `"true"`, `"TRUE"`, `"1"`, `1` (docs/reference/packet.md §7). */
export function simBool(v: unknown): boolean {
  return v === true || v === "true" || v === "TRUE" || v === "1" || v === 1;
}

const RECOVERY_BOOL_KEYS = ["retryable", "repairable", "resumeable", "local_deterministic", "remote_claim"] as const;
const RECOVERY_OTHER_KEYS = [
  "class",
  "severity",
  "phase",
  "provider_code",
  "suggested_delay_ms",
  "suggested_max_attempts",
] as const;

function intOrNull(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return Math.floor(v);
  if (typeof v === "string" && /^\d+$/.test(v.trim())) return Number(v.trim());
  return null;
}

/**
 * The full recovery map of a simulated error: the kind's default envelope with the `error.recovery` overrides
 * (plain or `?`-suffixed keys) applied on top.
 */
export function simulatedRecovery(kind: string, overrides: Record<string, unknown> | null): Record<string, unknown> {
  const facts = simulatedKindFacts(kind);
  const out: Record<string, unknown> = {
    class: facts.class,
    retryable: facts.retryable,
    repairable: true,
    resumeable: facts.resumeable,
    local_deterministic: false,
    remote_claim: true,
    severity: "error",
    phase: "session",
    provider_code: kind,
    suggested_delay_ms: null,
    suggested_max_attempts: null,
  };
  if (!overrides) return out;
  const pick = (key: string): [boolean, unknown] => {
    if (key in overrides) return [true, overrides[key]];
    if (`${key}?` in overrides) return [true, overrides[`${key}?`]];
    return [false, undefined];
  };
  for (const key of RECOVERY_BOOL_KEYS) {
    const [has, v] = pick(key);
    if (has) out[key] = simBool(v);
  }
  for (const key of RECOVERY_OTHER_KEYS) {
    const [has, v] = pick(key);
    if (!has) continue;
    if (key === "suggested_delay_ms" || key === "suggested_max_attempts") out[key] = intOrNull(v);
    else if (v !== null && v !== undefined) out[key] = String(v);
  }
  return out;
}

/** `v` as a plain map, else null. */
export function asMap(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : null;
}

/** `v` as a list: null/undefined is empty, a single value a list of one. */
export function asList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** A delay in ms from a script value (0 when absent or invalid). */
export function delayOf(v: unknown): number {
  return intOrNull(v) ?? 0;
}

/** Pick the step map a stream plays (attempt k, resume, steer). Missing → an empty successful step. */
export function simulatedStep(spec: Pick<SessionSpec, "simulate" | "simulatedStep" | "attempt">): Record<
  string,
  unknown
> {
  const sim = spec.simulate ?? {};
  const first = (v: unknown) => asMap(Array.isArray(v) ? v[0] : v);
  if (spec.simulatedStep === "resume") return first(sim.resume) ?? {};
  if (spec.simulatedStep === "steer") return first(sim.steer) ?? first(sim.resume) ?? {};
  const attempts = asList(sim.attempts);
  return asMap(attempts[spec.attempt - 1]) ?? {};
}

function usageData(v: unknown): ProviderEvent {
  const u = asMap(v) ?? {};
  const n = (x: unknown) => (typeof x === "number" ? x : Number(x) || 0);
  return {
    type: "token_usage_updated",
    data: {
      input_tokens: n(u.input_tokens),
      output_tokens: n(u.output_tokens),
      ...(u.cached_input_tokens !== undefined ? { cached_input_tokens: n(u.cached_input_tokens) } : {}),
      ...(u.cost_usd !== undefined ? { cost_usd: n(u.cost_usd) } : {}),
    },
  };
}

/** One scripted action: an event to emit, a write, an agent-control record, or a pause. */
export type Action =
  | { kind: "event"; event: ProviderEvent }
  | { kind: "tool"; tool: Record<string, unknown> }
  | { kind: "write"; write: unknown }
  | { kind: "agent"; entries: unknown }
  | { kind: "wait"; ms: number };

/**
 * The actions a step lists, in order (its `events:` list, else its thinking, messages, tools, usage, agent control),
 * made one at a time as they are played: a script of 50,000 messages took 60 ms to turn into actions up front, all
 * of it on the runner's thread while the session was live, so a control request landing then waited for it
 * (docs/bench.md, "Control under full load").
 */
export function* stepActions(step: Record<string, unknown>): Generator<Action, void, undefined> {
  const explicit = step.events;
  if (Array.isArray(explicit)) {
    for (const raw of explicit) {
      const item = asMap(raw);
      if (!item) continue;
      if ("message" in item) {
        // Explicit events are raw deltas: consecutive items continue one message (write their spaces yourself).
        yield ({ kind: "event", event: { type: "message_streamed", data: { delta: String(item.message ?? "") } } });
      } else if ("thinking" in item) {
        yield ({
          kind: "event",
          event: { type: "message_streamed", data: { delta: String(item.thinking ?? ""), kind: "thinking" } },
        });
      } else if ("tool" in item) yield ({ kind: "tool", tool: asMap(item.tool) ?? {} });
      else if ("write" in item) yield ({ kind: "write", write: item.write });
      else if ("agent_control" in item) yield ({ kind: "agent", entries: item.agent_control });
      else if ("usage" in item) yield ({ kind: "event", event: usageData(item.usage) });
      else if ("wait_ms" in item) yield ({ kind: "wait", ms: delayOf(item.wait_ms) });
      else if ("notice" in item) {
        yield ({
          kind: "event",
          event: { type: "notice", data: { level: "info", code: "simulated", message: String(item.notice ?? "") } },
        });
      }
    }
    return;
  }
  // Each item is a message of its own (its own message_id), so renderers never glue two items together.
  const thinking = asList(step.thinking);
  for (let i = 0; i < thinking.length; i++) {
    const data = { delta: String(thinking[i]), kind: "thinking" as const, message_id: `sim-thinking-${i + 1}` };
    yield { kind: "event", event: { type: "message_streamed", data } };
  }
  const messages = asList(step.messages);
  for (let i = 0; i < messages.length; i++) {
    yield {
      kind: "event",
      event: { type: "message_streamed", data: { delta: String(messages[i]), message_id: `sim-message-${i + 1}` } },
    };
  }
  for (const t of asList(step.tools)) yield ({ kind: "tool", tool: asMap(t) ?? {} });
  if (step.usage !== undefined && step.usage !== null) yield ({ kind: "event", event: usageData(step.usage) });
  if (step.agent_control !== undefined && step.agent_control !== null) {
    yield ({ kind: "agent", entries: step.agent_control });
  }
}

/** How a scripted session fails: the stream's end and its two events (`error_occurred`, then `run_failed`). */
export interface ScriptedFailure {
  end: StreamEnd;
  error: ProviderEvent;
  failed: ProviderEvent;
}

/** A resume of a session the script declares not resumable (`simulate.session.resumable: false`). */
export function sessionNotFound(sessionId: string): ScriptedFailure {
  const message = `session not found: ${sessionId}`;
  const providerError: ProviderErrorInfo = {
    provider: "simulated",
    kind: "session_not_found",
    message,
    session_id: sessionId,
  };
  return {
    end: {
      kind: "error",
      code: "session_not_found",
      message,
      providerError,
      hintClass: "provider_runtime_claim",
      recovery: null,
      exitCode: null,
      stderrTail: "",
      sessionNotFound: true,
    },
    error: {
      type: "error_occurred",
      data: {
        error_code: "session_not_found",
        error_message: message,
        severity: "error",
        provider_error: providerError,
      },
    },
    failed: {
      type: "run_failed",
      data: { error_code: "session_not_found", error_message: message, provider_error: providerError },
    },
  };
}

/** A step's scripted `error:` (kind, message, stderr, recovery overrides) as the session's failure. */
export function scriptedFailure(error: Record<string, unknown>, sessionId: string): ScriptedFailure {
  const kind = typeof error.kind === "string" && error.kind !== "" ? error.kind : "provider_runtime_claim";
  const message = typeof error.message === "string" && error.message !== "" ? error.message : "simulated failure";
  const stderr = typeof error.stderr === "string" ? error.stderr : "";
  const recovery = simulatedRecovery(kind, asMap(error.recovery));
  const providerError: ProviderErrorInfo = {
    provider: "simulated",
    kind,
    message,
    session_id: sessionId,
    recovery,
    ...(stderr ? { stderr_tail: stderr } : {}),
  };
  return {
    end: {
      kind: "error",
      code: kind,
      message,
      providerError,
      hintClass: String(recovery.class),
      recovery,
      exitCode: null,
      stderrTail: stderr,
      sessionNotFound: false,
    },
    error: {
      type: "error_occurred",
      data: {
        error_code: kind,
        error_message: message,
        severity: String(recovery.severity),
        provider_error: providerError,
      },
    },
    failed: {
      type: "run_failed",
      data: {
        error_code: kind,
        error_message: message,
        provider_error: providerError,
        ...(stderr ? { stderr_tail: stderr } : {}),
      },
    },
  };
}
