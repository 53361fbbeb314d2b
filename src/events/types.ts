/**
 * The canonical event vocabulary (docs/reference/events-and-rendering.md §1–§3): one discriminated union that lanes produce and
 * renderers, sinks and the control plane consume.
 */
import type { CheckNote } from "./check_lines.ts";

/**
 * How a delivered steer reached the agent (docs/reference/control-plane.md §8.2): written into the running turn, after
 * stopping the turn inside the process, by interrupting the process and resuming the session, or in a fresh session
 * when the old one was gone.
 */
export type SteerDeliveryKind = "in_turn" | "interrupt_in_process" | "interrupt_and_resume" | "restart_with_steer";

/** Which stream of an attempt an event belongs to. */
export type StreamKind = "initial" | "resume" | "steer" | "restart_with_steer";

/** `provider_error` of error events. */
export interface ProviderErrorInfo {
  provider: string;
  kind: string;
  message: string;
  status?: number;
  exit_code?: number;
  stderr_tail?: string;
  session_id?: string;
  recovery?: Record<string, unknown>;
}

/** `guardrail` of a tool start outside `allowed_tools`. */
export interface GuardrailInfo {
  tool: string;
  allowed_tools: string[];
  reason: string;
}

/** Token usage fields; cumulative for the current stream. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_output_tokens?: number;
  cost_usd?: number;
}

/** `data` of each provider event type (docs/reference/events-and-rendering.md §2). */
export interface ProviderEventData {
  message_sent: { content: string; role: "user" };
  run_started: {
    provider_session_id: string | null;
    model: string | null;
    reasoning_effort?: string;
    cwd?: string;
    command?: string;
    args?: string[];
    tools?: string[];
    permission_mode?: string;
    version?: string;
    simulation_label?: string;
  };
  message_streamed: { delta: string; content?: string; kind?: "thinking"; message_id?: string };
  message_received: { content: string; role: "assistant"; kind?: "thinking"; message_id?: string };
  tool_call_started: {
    tool_call_id: string;
    tool_name: string;
    tool_input: Record<string, unknown>;
    guardrail?: GuardrailInfo;
  };
  tool_call_completed: {
    tool_call_id: string;
    tool_name: string;
    tool_output: string;
    is_error: false;
    exit_code?: number;
    result_meta?: Record<string, unknown>;
  };
  tool_call_failed: {
    tool_call_id: string;
    tool_name: string;
    tool_output: string;
    is_error: true;
    exit_code?: number;
    result_meta?: Record<string, unknown>;
  };
  tool_approval_requested: { approval_id: string; tool_name: string; tool_input: Record<string, unknown> };
  tool_approval_granted: { approval_id: string; decision: string; reason: string };
  tool_approval_denied: { approval_id: string; decision: string; reason: string };
  token_usage_updated: TokenUsage;
  notice: { level: "info" | "warning"; code: string; message: string };
  run_completed: { stop_reason: string; duration_ms?: number; num_turns?: number; token_usage?: TokenUsage };
  error_occurred: { error_code: string; error_message: string; severity: string; provider_error: ProviderErrorInfo };
  run_failed: {
    error_code: string;
    error_message: string;
    provider_error: ProviderErrorInfo;
    exit_code?: number;
    stderr_tail?: string;
  };
  run_cancelled: { reason: "interrupted_for_steer" | "operator_stop" };
}

/** The complete view (docs/reference/control-plane.md §7). */
export interface View {
  log_mode: "compact" | "verbose" | "studio";
  tool_output: "none" | "summary" | "preview" | "full";
  thinking: "show" | "hide";
  diff: "none" | "stat" | "full";
}

/** `data` of each runner event type (docs/reference/events-and-rendering.md §3). */
export interface RunnerEventData {
  run_opened: { packet: string; selection: string[]; resumed: boolean; view: View };
  prompt_started: {
    prompt_name: string;
    mode: AttemptMode;
    attempt: number;
    provider: string;
    model: string | null;
    cwd: string;
  };
  session_resumed: { reason: string; resume_number: number };
  steer_accepted: { request: string; author: string; text_chars: number; pending: number };
  steer_delivered: {
    request: string;
    author: string;
    delivery: SteerDeliveryKind;
    count: number;
  };
  steer_refused: { request: string; author: string; reason: string };
  view_changed: { view: View; author: string; request: string | null };
  verification_finished: {
    source: "attempt" | "preflight" | "manual";
    status: "pass" | "fail" | "fault";
    counts: { items: number; passed: number; failed: number; faulted: number };
    failures: string[];
    faults: string[];
    /**
     * The checks that did not pass, named (clause, path or command, verdict, a command's output tail), so a reader
     * never has to map `files_exist#2` back to the contract. Absent in streams of earlier versions.
     */
    checks?: CheckNote[];
  };
  prompt_finished: {
    status: string;
    decision: string | null;
    attempts: number;
    steered: boolean;
    amended: boolean;
    commit: unknown;
    /** The prompt was flagged vacuous in this run (docs/lint.md); absent otherwise, so old readers are unaffected. */
    vacuous?: true;
  };
  run_finished: { status: "completed" | "failed" | "abandoned"; reason?: string | null };
  /** An agent-control record judged by the runner (docs/agent-control.md §3); the audit log has the same entry. */
  agent_control: {
    kind: "progress" | "continue" | "repeat" | "finish" | "blocked" | "unreadable";
    outcome: "accepted" | "applied" | "rejected" | "received";
    reason: string | null;
    iteration: number;
    author: string;
    /** Set when the runner applied no directive but the default action. */
    default?: true;
  };
}

/** Why an attempt exists (docs/reference/runner.md §4). */
export type AttemptMode = "run" | "retry" | "repair" | "resume";

/** Every provider event type name. */
export type ProviderEventType = keyof ProviderEventData;
/** Every runner event type name. */
export type RunnerEventType = keyof RunnerEventData;
/** Every canonical event type name. */
export type EventType = ProviderEventType | RunnerEventType;

/** What a lane yields: a provider event before the runner stamps it with seq and context. */
export type ProviderEvent = {
  [K in ProviderEventType]: {
    type: K;
    data: ProviderEventData[K];
    /** The provider's own timestamp when it supplied one. */
    timestamp?: string | null;
    /** Recorded for subscribers and audit; never rendered. */
    hidden?: true;
  };
}[ProviderEventType];

/** A runner event before stamping. */
export type RunnerEvent = {
  [K in RunnerEventType]: { type: K; data: RunnerEventData[K]; hidden?: true };
}[RunnerEventType];

/** Fields common to every recorded envelope. */
export interface EnvelopeBase {
  seq: number;
  at: string;
  run_id: string;
  prompt_id: string | null;
  attempt: number | null;
  stream: StreamKind | null;
  provider: string | null;
  session_id: string | null;
  timestamp: string | null;
  hidden?: true;
}

/** One line of `control/events.jsonl` (docs/reference/events-and-rendering.md §1), discriminated by `type`. */
export type Envelope =
  | {
    [K in ProviderEventType]: EnvelopeBase & { origin: "provider"; type: K; data: ProviderEventData[K] };
  }[ProviderEventType]
  | {
    [K in RunnerEventType]: EnvelopeBase & { origin: "runner"; type: K; data: RunnerEventData[K] };
  }[RunnerEventType];

/** An envelope of one specific type. */
export type EnvelopeOf<K extends EventType> = Extract<Envelope, { type: K }>;

/** Default launch view (docs/reference/events-and-rendering.md §6). */
export const DEFAULT_VIEW: Readonly<View> = Object.freeze({
  log_mode: "compact",
  tool_output: "summary",
  thinking: "show",
  diff: "stat",
});

/** Allowed values of each view setting. */
export const VIEW_VALUES: { readonly [K in keyof View]: readonly View[K][] } = {
  log_mode: ["compact", "verbose", "studio"],
  tool_output: ["none", "summary", "preview", "full"],
  thinking: ["show", "hide"],
  diff: ["none", "stat", "full"],
};

const PROVIDER_TYPES: ReadonlySet<string> = new Set<ProviderEventType>([
  "message_sent",
  "run_started",
  "message_streamed",
  "message_received",
  "tool_call_started",
  "tool_call_completed",
  "tool_call_failed",
  "tool_approval_requested",
  "tool_approval_granted",
  "tool_approval_denied",
  "token_usage_updated",
  "notice",
  "run_completed",
  "error_occurred",
  "run_failed",
  "run_cancelled",
]);

/** Whether a type name is a provider event type. */
export function isProviderEventType(type: string): type is ProviderEventType {
  return PROVIDER_TYPES.has(type);
}
