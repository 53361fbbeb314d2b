/**
 * The effects of one stream of an attempt (docs/reference/runner.md §4): its stream record, the lane start, the live slot, the lease's
 * provider, the plane's `session_live`, steer delivery once the session reports `run_started`, the pump, the renderer
 * footer and the stream's end in state.json. What runs after it is decided by next_stream.ts.
 */
import type { AcceptedSteer } from "../control/runner_api.ts";
import { type Lane, type LaneSession, LaunchError, type SimulatedCursor, type StreamEnd } from "../lanes/types.ts";
import type { Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import { classifyFailure } from "./classify.ts";
import type { RunContext, RunScope } from "./context.ts";
import type { StreamOutcome, StreamPlan } from "./next_stream.ts";
import type { SteerDesk } from "./steering.ts";
import type { StreamRecord } from "./state.ts";
import { pumpStream, type StreamObservation } from "./stream.ts";
import { createRenderer, type EventSink, type Renderer, type StreamState, type TextSink } from "../render/mod.ts";
import { pathDiffPrefetchFor } from "../render/git_diff.ts";

/**
 * Bookkeeping writes of the previous stream (lease, state.json) that a follow-up stream does not wait for: the next
 * provider is spawned first and they are awaited right after, before its lease is written. State updates keep their
 * order (the state store chains them); the lease's `provider: null` lands before the next provider's.
 */
export class Bookkeeping {
  #pending: Promise<unknown>[] = [];

  /** Start waiting for a write without blocking on it. */
  defer(p: Promise<unknown>): void {
    p.catch(() => {/* reported by settle() */});
    this.#pending.push(p);
  }

  /** Wait for every deferred write; throws the first failure. */
  async settle(): Promise<void> {
    const p = this.#pending;
    this.#pending = [];
    const results = await Promise.allSettled(p);
    for (const r of results) if (r.status === "rejected") throw r.reason;
  }
}

/** What stays the same for every stream of one attempt. */
export interface AttemptScope {
  readonly prompt: Prompt;
  readonly attempt: number;
  readonly lane: Lane;
  readonly log: TextSink;
  readonly eventsSink: EventSink | null;
  readonly books: Bookkeeping;
  /** The attempt's repositories, and the directories besides the prompt's cwd the provider may use. */
  readonly repos: Record<string, string>;
  readonly extraDirs: string[];
  /** Agent control: the invocation's variables (private directory, token, PATH with the shim); empty otherwise. */
  readonly agentEnv?: Record<string, string>;
}

/** Steers a stream delivers once its session reports `run_started`. */
export interface SteerBatch {
  readonly steers: readonly AcceptedSteer[];
  /** The live turn was interrupted for them. */
  readonly interrupted: boolean;
}

/** One stream to run. */
export interface StreamSpec {
  readonly plan: StreamPlan;
  readonly text: string;
  readonly batch: SteerBatch;
  /** The simulated script cursor: only the attempt's first stream plays (or continues) the attempt's script. */
  readonly cursor: SimulatedCursor | null;
  /** The session id known before the stream starts. */
  readonly sessionId: string | null;
}

/** What one stream left behind. */
export interface StreamRun {
  readonly outcome: StreamOutcome;
  /** The session id known after the stream. */
  readonly sessionId: string | null;
}

/**
 * A renderer for the live view, bound to a session cwd. `carried`: the stream state of the renderer it replaces on a
 * mid-stream `log_mode` change (docs/reference/control-plane.md §7).
 */
export function newRenderer(ctx: RunScope, prompt: Prompt, carried: StreamState | null = null): Renderer {
  const o = prompt.options;
  return createRenderer({
    ...ctx.view,
    diff_max_lines: o.diff_max_lines,
    tool_output_max_lines: o.tool_output_max_lines,
    color: ctx.io.color,
    tty: ctx.io.stdout.isTerminal,
    // Filled asynchronously before each event is rendered (stream.ts): rendering never runs git itself.
    pathDiff: pathDiffPrefetchFor(prompt.cwd).get,
  }, carried);
}

/** Run one stream: start it, make it live, pump it, and end it. */
export async function runStream(ctx: RunContext, desk: SteerDesk, a: AttemptScope, s: StreamSpec): Promise<StreamRun> {
  const { prompt, attempt } = a;
  const streamRec: StreamRecord = { kind: s.plan.kind, started_at: nowIso(), ended_at: null, result: null };
  a.books.defer(ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (r) => r.streams.push({ ...streamRec })));
  let session: LaneSession;
  try {
    session = startSession(ctx, a, s);
  } catch (e) {
    return await launchFailed(ctx, a, s, e);
  }
  await goLive(ctx, desk, a, s, session);
  const delivery = steerDelivery(ctx, desk, a, s);
  const pumped = await pump(ctx, a, s, session, delivery.deliver);
  // An in-session delivery still in flight is answered by now; a refused batch is back in the queue.
  await desk.settle();
  const steerInterrupt = leaveLive(ctx, desk, a, session);
  const end = endOf(session, pumped.obs, pumped.thrown);
  a.books.defer(endStream(ctx, prompt.id, attempt, end.kind === "cancelled" ? "cancelled" : end.kind));
  const sessionId = pumped.obs.sessionId || pumped.sessionId;
  a.books.defer(ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (r) => {
    r.session_id = sessionId;
  }));
  return { outcome: { type: "ended", end, steerInterrupt, undelivered: !delivery.delivered() }, sessionId };
}

/** The lane could not start the stream: settle the earlier writes, end the stream record, classify the failure. */
async function launchFailed(ctx: RunContext, a: AttemptScope, s: StreamSpec, e: unknown): Promise<StreamRun> {
  await a.books.settle();
  const message = e instanceof Error ? e.message : String(e);
  const envelope = classifyFailure({
    launchFailed: e instanceof LaunchError,
    code: e instanceof LaunchError ? "launch_failed" : "stream_failed",
    message,
    hintClass: null,
    recovery: null,
    stderrTail: "",
  });
  await endStream(ctx, a.prompt.id, a.attempt, "error");
  return { outcome: { type: "launch_failed", envelope, message }, sessionId: s.sessionId };
}

/**
 * Pump the live stream. A pump that throws is reported as `thrown`, never rethrown. `sessionId` is the session id
 * known after `run_started` (recorded at once, so a runner killed mid-stream leaves it for a crash resume).
 */
async function pump(
  ctx: RunContext,
  a: AttemptScope,
  s: StreamSpec,
  session: LaneSession,
  deliver: (sid: string | null) => void,
): Promise<{ obs: StreamObservation; thrown: unknown; sessionId: string | null }> {
  const { prompt, attempt } = a;
  let sessionId = s.sessionId;
  const resumeId = s.plan.resumeId;
  const meta = {
    promptId: prompt.id,
    attempt,
    kind: s.plan.kind,
    provider: prompt.options.provider,
    sessionId: resumeId,
  };
  const onRunStarted = (sid: string | null) => {
    if (sid && sid !== sessionId) {
      sessionId = sid;
      ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (r) => {
        r.session_id = sid;
      }).catch(() => {/* written again when the stream ends */});
    }
    deliver(sid);
  };
  try {
    const obs = await pumpStream(ctx, session, meta, a.eventsSink, { onRunStarted });
    return { obs, thrown: undefined, sessionId };
  } catch (e) {
    const obs = { sessionId: resumeId, sawRunStarted: false, firstError: null, cancelled: false, events: 0 };
    return { obs, thrown: e, sessionId };
  }
}

function startSession(ctx: RunContext, a: AttemptScope, s: StreamSpec): LaneSession {
  const { prompt } = a;
  return a.lane.start({
    runId: ctx.runId,
    promptId: prompt.id,
    attempt: a.attempt,
    streamKind: s.plan.kind,
    prompt: s.text,
    cwd: prompt.cwd,
    options: prompt.options,
    resumeSessionId: s.plan.resumeId,
    extraDirs: a.extraDirs,
    repos: a.repos,
    env: {
      PROMPT_RUNNER_RUN_ID: ctx.runId,
      PROMPT_RUNNER_PROMPT_ID: prompt.id,
      PROMPT_RUNNER_PACKET_DIR: ctx.packet.dir,
      ...a.agentEnv,
    },
    simulate: prompt.simulate,
    simulatedStep: s.plan.step,
    ...(s.cursor ? { simulatedCursor: s.cursor } : {}),
  });
}

/** The session just started: settle the previous stream's writes, then publish it (live slot, plane, lease). */
async function goLive(ctx: RunContext, desk: SteerDesk, a: AttemptScope, s: StreamSpec, session: LaneSession) {
  try {
    await a.books.settle();
  } catch (e) {
    // The bookkeeping of the previous stream failed: do not leave the provider just spawned behind.
    session.kill();
    await drainEvents(session);
    throw e;
  }
  const { prompt } = a;
  const renderer = newRenderer(ctx, prompt);
  const provider = prompt.options.provider;
  ctx.slot.beginStream({ session, promptId: prompt.id, attempt: a.attempt, cwd: prompt.cwd, renderer, provider });
  const resumeId = s.plan.resumeId;
  ctx.plane.transition({ stream: s.plan.kind, session_live: true, ...(resumeId ? { session_id: resumeId } : {}) });
  if (session.process) {
    await ctx.lease?.setProvider({ ...session.process, start_ticks: session.process.start_ticks ?? 0 });
  }
  if (desk.queue.length) desk.kick();
}

/**
 * The stream's pump returned: write the footer, clear the live slot and the lease's provider. Returns whether the
 * stream was interrupted for a steer.
 */
function leaveLive(ctx: RunContext, desk: SteerDesk, a: AttemptScope, session: LaneSession): boolean {
  const footer = ctx.live?.renderer.finish() ?? "";
  if (footer) {
    if (!ctx.io.json) ctx.io.stdout.write(footer);
    a.log.write(footer);
  }
  ctx.slot.endStream();
  const steerInterrupt = desk.interruptedLive;
  desk.streamEnded();
  if (session.process && ctx.lease) a.books.defer(ctx.lease.setProvider(null));
  ctx.plane.transition({ session_live: false });
  return steerInterrupt;
}

/** Delivers a stream's steer batch once, when its session reports `run_started`. */
function steerDelivery(ctx: RunContext, desk: SteerDesk, a: AttemptScope, s: StreamSpec) {
  let delivered = s.batch.steers.length === 0;
  const kind = s.plan.kind;
  const provider = a.prompt.options.provider;
  return {
    delivered: () => delivered,
    deliver(sid: string | null): void {
      if (delivered) return;
      delivered = true;
      const delivery = kind === "restart_with_steer" ? "restart_with_steer" : "interrupt_and_resume";
      ctx.plane.steersDelivered([...s.batch.steers], {
        delivery,
        prompt_id: a.prompt.id,
        attempt: a.attempt,
        lane: provider,
        session_id: sid,
        interrupted: s.batch.interrupted,
      });
      // The plane's ledger counted the batch: the marker names the prompt's new total.
      const count = desk.count(a.prompt.id);
      ctx.marker(
        `STEER action=${kind === "restart_with_steer" ? "restart" : "resume"} provider=${provider} count=${count}`,
      );
      if (kind !== "restart_with_steer") ctx.say("↳ resuming the session with the steer", "yellow");
    },
  };
}

function endOf(session: LaneSession, obs: StreamObservation, thrown: unknown): StreamEnd {
  if (thrown !== undefined) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return {
      kind: "error",
      code: "stream_failed",
      message,
      providerError: { provider: "runner", kind: "stream_failed", message },
      hintClass: "protocol_error",
      recovery: null,
      exitCode: null,
      stderrTail: "",
      sessionNotFound: false,
    };
  }
  const end = session.end();
  if (end.kind === "ok" && obs.firstError) {
    const { code, message } = obs.firstError;
    return {
      kind: "error",
      code,
      message,
      providerError: { provider: "unknown", kind: code, message },
      hintClass: null,
      recovery: null,
      exitCode: null,
      stderrTail: "",
      sessionNotFound: false,
    };
  }
  return end;
}

/** Consume a killed session's events so its process is waited for. */
async function drainEvents(session: LaneSession): Promise<void> {
  try {
    for await (const _ of session.events) { /* discard */ }
  } catch { /* the error being reported is the bookkeeping one */ }
}

/** Close the attempt's last open stream record in state.json with its result. */
async function endStream(
  ctx: RunContext,
  promptId: string,
  attempt: number,
  result: "ok" | "error" | "cancelled",
): Promise<void> {
  await ctx.state.updateAttempt(promptId, ctx.runId, attempt, (a) => {
    const s = a.streams[a.streams.length - 1];
    if (s && s.ended_at === null) {
      s.ended_at = nowIso();
      s.result = result;
    }
  });
}
