import assert from "node:assert/strict";
import {
  firstStream,
  type LoopMemory,
  type NextStream,
  nextStream,
  type NextStreamInput,
  planFor,
  SESSION_ENDED_REASON,
  type StreamOutcome,
} from "../../src/run/next_stream.ts";
import { classifyFailure, classifyStreamEnd, type FailureEnvelope } from "../../src/run/classify.ts";
import type { StreamEnd } from "../../src/lanes/types.ts";

/** An error end: `hint` picks the class (transport_disconnect is resumeable, provider_rate_limit is not). */
function errorEnd(hint: string, over: Partial<Extract<StreamEnd, { kind: "error" }>> = {}): StreamEnd {
  return {
    kind: "error",
    code: "x",
    message: `boom ${hint}`,
    providerError: { provider: "p", kind: "x", message: `boom ${hint}` },
    hintClass: hint,
    recovery: null,
    exitCode: 1,
    stderrTail: "",
    sessionNotFound: false,
    ...over,
  };
}
const OK: StreamEnd = { kind: "ok" };
const CANCELLED: StreamEnd = { kind: "cancelled", reason: "interrupted_for_steer", interrupted: true };
const GONE = errorEnd("provider_runtime_claim", { sessionNotFound: true, message: "no such session" });
const DISCONNECT = errorEnd("transport_disconnect");
/** Resumeable by class, but a local deterministic failure by its recovery map. */
const LOCAL = errorEnd("", { recovery: { class: "transport_disconnect", local_deterministic: true } });

function ended(end: StreamEnd, over: { undelivered?: boolean; steerInterrupt?: boolean } = {}): StreamOutcome {
  return { type: "ended", end, undelivered: over.undelivered ?? false, steerInterrupt: over.steerInterrupt ?? false };
}

const ROOT = classifyFailure({
  code: "x",
  message: "root",
  hintClass: "protocol_error",
  recovery: null,
  stderrTail: "",
});
const LAUNCH = classifyFailure({
  launchFailed: true,
  code: "launch_failed",
  message: "nope",
  hintClass: null,
  recovery: null,
  stderrTail: "",
});
const memory: LoopMemory = { sessionId: "s1", resumesUsed: 0, freshAfterGone: false, rootError: null };

function input(over: Partial<NextStreamInput>): NextStreamInput {
  return {
    kind: "initial",
    outcome: ended(OK),
    memory,
    interrupted: false,
    steersQueued: 0,
    resumeBudget: 2,
    ...over,
  };
}

const NONE = { batch: null, queued: null };
const env = (end: StreamEnd): FailureEnvelope => classifyStreamEnd(end)!;
const cancelledEnv = classifyFailure({
  code: "transport_exit",
  message: "the stream was cancelled",
  hintClass: "transport_disconnect",
  recovery: null,
  stderrTail: "",
});

/** One row per branch of the attempt loop: [what the row proves, input, the decision]. */
const ROWS: [string, NextStreamInput, NextStream][] = [
  // A stream that could not start.
  [
    "a resume that cannot start stops with the attempt's first error as the root (none yet: null)",
    input({ kind: "resume", outcome: { type: "launch_failed", envelope: LAUNCH, message: "nope" } }),
    { do: "stop", why: "resume_launch_failed", result: "error", envelope: null, reject: NONE },
  ],
  [
    "a resume that cannot start keeps the recorded root error",
    input({
      kind: "resume",
      outcome: { type: "launch_failed", envelope: LAUNCH, message: "nope" },
      memory: { ...memory, rootError: ROOT },
    }),
    { do: "stop", why: "resume_launch_failed", result: "error", envelope: ROOT, reject: NONE },
  ],
  [
    "any other stream that cannot start stops with the launch error and rejects its steers",
    input({ kind: "steer", outcome: { type: "launch_failed", envelope: LAUNCH, message: "nope" }, steersQueued: 3 }),
    {
      do: "stop",
      why: "launch_failed",
      result: "error",
      envelope: LAUNCH,
      reject: { batch: "resume failed: nope", queued: null },
    },
  ],
  // Undelivered steers.
  [
    "a steer stream whose session is gone restarts with the steers, before an operator stop is looked at",
    input({ kind: "steer", outcome: ended(GONE, { undelivered: true }), interrupted: true, steersQueued: 1 }),
    { do: "restart_with_steer", reject: NONE, memory },
  ],
  [
    "a restart_with_steer whose session is gone too rejects its steers with the provider's message",
    input({ kind: "restart_with_steer", outcome: ended(GONE, { undelivered: true }) }),
    {
      do: "stop",
      why: "failed",
      result: "error",
      envelope: env(GONE),
      reject: { batch: "resume failed: no such session", queued: null },
    },
  ],
  [
    "a stream that ends ok before delivering its steers rejects them: the stream ended",
    input({ kind: "steer", outcome: ended(OK, { undelivered: true }) }),
    {
      do: "stop",
      why: "ok",
      result: "ok",
      envelope: null,
      reject: { batch: "resume failed: the stream ended", queued: null },
    },
  ],
  // Operator stop.
  [
    "an operator stop stops as interrupted, leaving queued steers to the plane",
    input({ outcome: ended(CANCELLED), interrupted: true, steersQueued: 2 }),
    { do: "stop", why: "interrupted", result: "interrupted", envelope: null, reject: NONE },
  ],
  [
    "an operator stop still rejects the stream's undelivered steers",
    input({ kind: "steer", outcome: ended(DISCONNECT, { undelivered: true }), interrupted: true }),
    {
      do: "stop",
      why: "interrupted",
      result: "interrupted",
      envelope: null,
      reject: { batch: "resume failed: boom transport_disconnect", queued: null },
    },
  ],
  // Queued steers.
  [
    "queued steers after a steer interrupt resume the session; the delivery records the interrupt, nothing announced",
    input({ outcome: ended(CANCELLED, { steerInterrupt: true }), steersQueued: 2 }),
    { do: "deliver_steers", interrupted: true, announce: false, reject: NONE, memory },
  ],
  [
    "queued steers after a turn that ended by itself despite the interrupt: not recorded as interrupted",
    input({ outcome: ended(OK, { steerInterrupt: true }), steersQueued: 1 }),
    { do: "deliver_steers", interrupted: false, announce: false, reject: NONE, memory },
  ],
  [
    "queued steers without an interrupt (accepted as the turn ended) are announced; even a failed stream delivers",
    input({ outcome: ended(DISCONNECT), steersQueued: 1 }),
    { do: "deliver_steers", interrupted: false, announce: true, reject: NONE, memory },
  ],
  [
    "a steer stream that ended before delivering, with more queued: reject the old batch, deliver the queue",
    input({ kind: "steer", outcome: ended(OK, { undelivered: true }), steersQueued: 1 }),
    {
      do: "deliver_steers",
      interrupted: false,
      announce: true,
      reject: { batch: "resume failed: the stream ended", queued: null },
      memory,
    },
  ],
  [
    "queued steers with no session to resume are rejected; the stream's own end decides the rest",
    input({ outcome: ended(OK), steersQueued: 2, memory: { ...memory, sessionId: null } }),
    { do: "stop", why: "ok", result: "ok", envelope: null, reject: { batch: null, queued: SESSION_ENDED_REASON } },
  ],
  // The stream's own end.
  [
    "a cancelled stream without an operator stop or steers is a transport disconnect",
    input({ outcome: ended(CANCELLED) }),
    { do: "stop", why: "cancelled", result: "error", envelope: cancelledEnv, reject: NONE },
  ],
  [
    "an ok stream stops ok",
    input({ outcome: ended(OK) }),
    { do: "stop", why: "ok", result: "ok", envelope: null, reject: NONE },
  ],
  [
    "a resume whose session is gone starts a fresh session once, forgetting the session id",
    input({ kind: "resume", outcome: ended(GONE) }),
    {
      do: "fresh_session",
      message: "no such session",
      reject: NONE,
      memory: { ...memory, sessionId: null, freshAfterGone: true },
    },
  ],
  [
    "a resume whose session is gone after a fresh start already: classified like any failure",
    input({ kind: "resume", outcome: ended(GONE), memory: { ...memory, freshAfterGone: true } }),
    { do: "stop", why: "failed", result: "error", envelope: env(GONE), reject: NONE },
  ],
  [
    "a missing session on an initial stream is no reason for a fresh start",
    input({ kind: "initial", outcome: ended(GONE) }),
    { do: "stop", why: "failed", result: "error", envelope: env(GONE), reject: NONE },
  ],
  [
    "a resumeable failure with a session and budget left resumes; the first failure becomes the root error",
    input({ outcome: ended(DISCONNECT), memory: { ...memory, resumesUsed: 1 } }),
    {
      do: "resume_session",
      reason: "transport_disconnect",
      resumeNumber: 2,
      reject: NONE,
      memory: { ...memory, resumesUsed: 2, rootError: env(DISCONNECT) },
    },
  ],
  [
    "a later resumeable failure keeps the first root error",
    input({ kind: "resume", outcome: ended(DISCONNECT), memory: { ...memory, rootError: ROOT } }),
    {
      do: "resume_session",
      reason: "transport_disconnect",
      resumeNumber: 1,
      reject: NONE,
      memory: { ...memory, resumesUsed: 1, rootError: ROOT },
    },
  ],
  [
    "a resumeable failure with the resume budget spent stops with its envelope",
    input({ outcome: ended(DISCONNECT), memory: { ...memory, resumesUsed: 2 } }),
    { do: "stop", why: "failed", result: "error", envelope: env(DISCONNECT), reject: NONE },
  ],
  [
    "a resumeable failure with no session id stops",
    input({ outcome: ended(DISCONNECT), memory: { ...memory, sessionId: null } }),
    { do: "stop", why: "failed", result: "error", envelope: env(DISCONNECT), reject: NONE },
  ],
  [
    "a resumeable but local deterministic failure stops",
    input({ outcome: ended(LOCAL) }),
    { do: "stop", why: "failed", result: "error", envelope: env(LOCAL), reject: NONE },
  ],
  [
    "a failure that is not resumeable stops",
    input({ outcome: ended(errorEnd("provider_rate_limit")) }),
    { do: "stop", why: "failed", result: "error", envelope: env(errorEnd("provider_rate_limit")), reject: NONE },
  ],
];

for (const [name, given, expected] of ROWS) {
  Deno.test(`nextStream(): ${name}`, () => {
    assert.deepEqual(nextStream(given), expected);
  });
}

Deno.test("nextStream(): the rows' envelopes are the ones the rows claim (resumeable, local)", () => {
  assert.equal(env(DISCONNECT).resumeable, true);
  assert.equal(env(DISCONNECT).local_deterministic, false);
  assert.equal(env(LOCAL).resumeable, true);
  assert.equal(env(LOCAL).local_deterministic, true);
  assert.equal(env(errorEnd("provider_rate_limit")).resumeable, false);
  assert.equal(env(GONE).resumeable, false);
});

Deno.test("firstStream(): a crash resume continues its session, anything else starts an initial stream", () => {
  assert.deepEqual(firstStream(null), { kind: "initial", resumeId: null, step: "attempt" });
  assert.deepEqual(firstStream("s9"), { kind: "resume", resumeId: "s9", step: "resume" });
});

Deno.test("planFor(): each continuing decision starts its stream kind, resuming the session where it resumes one", () => {
  const cases: [Exclude<NextStream, { do: "stop" }>, unknown][] = [
    [{ do: "restart_with_steer", reject: NONE, memory }, { kind: "restart_with_steer", resumeId: null, step: "steer" }],
    [
      { do: "deliver_steers", interrupted: true, announce: false, reject: NONE, memory },
      { kind: "steer", resumeId: "s1", step: "steer" },
    ],
    [
      { do: "fresh_session", message: "m", reject: NONE, memory },
      { kind: "initial", resumeId: null, step: "attempt" },
    ],
    [
      { do: "resume_session", reason: "protocol_error", resumeNumber: 1, reject: NONE, memory },
      { kind: "resume", resumeId: "s1", step: "resume" },
    ],
  ];
  for (const [decision, plan] of cases) assert.deepEqual(planFor(decision, "s1"), plan, decision.do);
});
