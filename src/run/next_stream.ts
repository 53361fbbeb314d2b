/**
 * What runs next in an attempt (docs/reference/runner.md §4): after each stream — or a stream that could not start — a pure decision
 * over what happened: resume the session with the queued steers, restart it with the steers when the session is gone,
 * start a fresh session when a resume finds none, resume after a resumeable failure, or stop with a result. Every
 * input is a plain value, so every row is unit-tested without processes or files (tests/run/next_stream_test.ts);
 * the attempt driver (attempt.ts) only performs the effects a decision names.
 */
import type { StreamKind } from "../events/mod.ts";
import type { SimulatedStep, StreamEnd } from "../lanes/mod.ts";
import { classifyFailure, classifyStreamEnd, type FailureClass, type FailureEnvelope } from "./classify.ts";

/** What the attempt loop carries from one stream to the next. Never mutated: a decision returns the next one. */
export interface LoopMemory {
  /** The provider session id known so far (null before `run_started`, or after a fresh start). */
  readonly sessionId: string | null;
  /** Session resumes spent in this attempt (a crash-recovery attempt starts at 1). */
  readonly resumesUsed: number;
  /** A resume already fell back to a fresh session because the provider no longer knew the session. */
  readonly freshAfterGone: boolean;
  /** The attempt's first classified stream failure: what a resume that cannot even start reports. */
  readonly rootError: FailureEnvelope | null;
}

/** What happened to the stream that just ran. */
export type StreamOutcome =
  | {
    /** The lane could not start the stream (`Lane.start` threw). */
    readonly type: "launch_failed";
    readonly envelope: FailureEnvelope;
    readonly message: string;
  }
  | {
    readonly type: "ended";
    /** How the stream ended (an `error_occurred` of an ok end, or a thrown pump, already folded in). */
    readonly end: StreamEnd;
    /** The steers this stream was to deliver were not delivered (its session never reported `run_started`). */
    readonly undelivered: boolean;
    /** The live stream was interrupted to deliver steers. */
    readonly steerInterrupt: boolean;
  };

/** Everything {@link nextStream} reads. */
export interface NextStreamInput {
  /** The kind of the stream that just ran (or failed to start). */
  readonly kind: StreamKind;
  readonly outcome: StreamOutcome;
  readonly memory: LoopMemory;
  /** The operator stopped the run (Ctrl-C, `control stop`). */
  readonly interrupted: boolean;
  /** Accepted steers waiting for delivery. */
  readonly steersQueued: number;
  /** The prompt's `recovery.resume_attempts`. */
  readonly resumeBudget: number;
}

/** Steers to reject before acting on a decision, with the reason each rejection records. */
export interface Rejections {
  /** The steers the stream that just ran was to deliver, rejected with this reason; null: none to reject. */
  readonly batch: string | null;
  /** Every queued steer, rejected with this reason; null: none to reject. */
  readonly queued: string | null;
}

/** Why an attempt's streams stop. */
export type StopWhy =
  | "launch_failed"
  | "resume_launch_failed"
  | "interrupted"
  | "cancelled"
  | "ok"
  | "failed";

/** What the attempt loop does next. Continuing decisions carry the next {@link LoopMemory}. */
export type NextStream =
  | {
    /** The steer stream's session is gone: start a new session with the original prompt and the same steers. */
    readonly do: "restart_with_steer";
    readonly reject: Rejections;
    readonly memory: LoopMemory;
  }
  | {
    /** Take every queued steer and resume the session with them. */
    readonly do: "deliver_steers";
    /** The steers' delivery records that the live turn was interrupted for them. */
    readonly interrupted: boolean;
    /** Say that steers are being delivered (no interrupt already said so). */
    readonly announce: boolean;
    readonly reject: Rejections;
    readonly memory: LoopMemory;
  }
  | {
    /** The resumed session does not exist any more: start a fresh session with the prompt. */
    readonly do: "fresh_session";
    /** The provider's error about the missing session. */
    readonly message: string;
    readonly reject: Rejections;
    readonly memory: LoopMemory;
  }
  | {
    /** Resume the session with the continuation prompt after a resumeable failure. */
    readonly do: "resume_session";
    readonly reason: FailureClass | "ok";
    /** 1-based number of this resume within the attempt. */
    readonly resumeNumber: number;
    readonly reject: Rejections;
    readonly memory: LoopMemory;
  }
  | {
    readonly do: "stop";
    readonly why: StopWhy;
    readonly result: "ok" | "error" | "interrupted";
    readonly envelope: FailureEnvelope | null;
    readonly reject: Rejections;
  };

/** The stream a decision starts next. */
export interface StreamPlan {
  readonly kind: StreamKind;
  /** The session to resume; null starts a new one. */
  readonly resumeId: string | null;
  /** The simulated lane's script step the stream plays. */
  readonly step: SimulatedStep;
}

/** Rejection reason of queued steers when there is no session to deliver them to. */
export const SESSION_ENDED_REASON = "the provider session ended before the steer could be delivered";

const NONE: Rejections = { batch: null, queued: null };

/** Decide what the attempt loop does after a stream (docs/reference/runner.md §4; docs/reference/control-plane.md §8.5 for steers). */
export function nextStream(input: NextStreamInput): NextStream {
  const { outcome } = input;
  return outcome.type === "launch_failed" ? afterLaunchFailure(input, outcome) : afterEnd(input, outcome);
}

function afterLaunchFailure(
  input: NextStreamInput,
  outcome: Extract<StreamOutcome, { type: "launch_failed" }>,
): NextStream {
  if (input.kind === "resume") {
    // A resume that cannot start keeps the original error as the root message.
    return { do: "stop", why: "resume_launch_failed", result: "error", envelope: input.memory.rootError, reject: NONE };
  }
  const reject = { batch: `resume failed: ${outcome.message}`, queued: null };
  return { do: "stop", why: "launch_failed", result: "error", envelope: outcome.envelope, reject };
}

function afterEnd(input: NextStreamInput, outcome: Extract<StreamOutcome, { type: "ended" }>): NextStream {
  const { end } = outcome;
  const { kind, memory } = input;
  let batch: string | null = null;
  if (outcome.undelivered) {
    if (end.kind === "error" && end.sessionNotFound && kind === "steer") {
      return { do: "restart_with_steer", reject: NONE, memory };
    }
    batch = `resume failed: ${end.kind === "error" ? end.message : "the stream ended"}`;
  }
  if (input.interrupted) {
    return { do: "stop", why: "interrupted", result: "interrupted", envelope: null, reject: { batch, queued: null } };
  }
  let queued: string | null = null;
  if (input.steersQueued > 0) {
    if (memory.sessionId) {
      const interrupted = outcome.steerInterrupt && end.kind === "cancelled";
      const reject = { batch, queued: null };
      return { do: "deliver_steers", interrupted, announce: !outcome.steerInterrupt, reject, memory };
    }
    queued = SESSION_ENDED_REASON;
  }
  return afterSteers(input, end, { batch, queued });
}

function afterSteers(input: NextStreamInput, end: StreamEnd, reject: Rejections): NextStream {
  const { kind, memory } = input;
  if (end.kind === "cancelled") {
    // Cancelled without an operator stop and without steers to deliver: treat as a disconnect.
    const envelope = classifyFailure({
      code: "transport_exit",
      message: "the stream was cancelled",
      hintClass: "transport_disconnect",
      recovery: null,
      stderrTail: "",
    });
    return { do: "stop", why: "cancelled", result: "error", envelope, reject };
  }
  if (end.kind === "ok") return { do: "stop", why: "ok", result: "ok", envelope: null, reject };
  if (end.sessionNotFound && kind === "resume" && !memory.freshAfterGone) {
    // The CLI no longer knows the session (e.g. after a crash): resuming it again cannot work, start fresh now.
    const next = { ...memory, freshAfterGone: true, sessionId: null };
    return { do: "fresh_session", message: end.message, reject, memory: next };
  }
  const env = classifyStreamEnd(end)!;
  const rootError = memory.rootError ?? env;
  const resumable = env.resumeable && !env.local_deterministic && Boolean(memory.sessionId);
  if (resumable && memory.resumesUsed < input.resumeBudget) {
    const resumeNumber = memory.resumesUsed + 1;
    const next = { ...memory, resumesUsed: resumeNumber, rootError };
    return { do: "resume_session", reason: env.class, resumeNumber, reject, memory: next };
  }
  return { do: "stop", why: "failed", result: "error", envelope: env, reject };
}

/** The first stream of an attempt: a crash resume continues `crashResumeId`, anything else starts fresh. */
export function firstStream(crashResumeId: string | null): StreamPlan {
  return crashResumeId !== null ? planOf("resume", crashResumeId) : planOf("initial", null);
}

/** The stream a continuing decision starts, resuming `sessionId` where the kind resumes one. */
export function planFor(decision: Exclude<NextStream, { do: "stop" }>, sessionId: string | null): StreamPlan {
  switch (decision.do) {
    case "restart_with_steer":
      return planOf("restart_with_steer", null);
    case "deliver_steers":
      return planOf("steer", sessionId);
    case "fresh_session":
      return planOf("initial", null);
    case "resume_session":
      return planOf("resume", sessionId);
  }
}

function planOf(kind: StreamKind, resumeId: string | null): StreamPlan {
  const step: SimulatedStep = kind === "initial" ? "attempt" : kind === "resume" ? "resume" : "steer";
  return { kind, resumeId, step };
}
