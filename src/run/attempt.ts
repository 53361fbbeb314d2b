/**
 * One attempt (docs/reference/runner.md §4): prompt_started, the attempt record, the log and events files with their headers,
 * then the streams of the attempt — the initial stream, in-attempt session resumes after resumeable failures, and
 * steer streams (interrupt + resume, or restart_with_steer when the session is gone).
 */
import type { AttemptMode, StreamKind } from "../events/types.ts";
import {
  type LaneSession,
  LaunchError,
  type SimulatedCursor,
  type SimulatedStep,
  type StreamEnd,
} from "../lanes/types.ts";
import { laneFor } from "../lanes/mod.ts";
import type { Prompt } from "../packet/types.ts";
import { createRenderer, logHeader, renderHeader } from "../render/mod.ts";
import { eventsFileSink, fileSink } from "../render/sinks.ts";
import { pathDiffPrefetchFor } from "../render/git_diff.ts";
import type { EventSink, Renderer, TextSink } from "../render/types.ts";
import { restartWithSteerPrompt, steerResumePrompt } from "../control/steer.ts";
import { storePaths } from "../store/paths.ts";
import { exists } from "../util/fs.ts";
import { ensureStoreDir } from "../util/safe_fs.ts";
import { fileStamp, nowIso } from "../util/time.ts";
import { classifyFailure, classifyStreamEnd, type FailureEnvelope } from "./classify.ts";
import type { RunContext } from "./context.ts";
import type { SteerDesk } from "./steering.ts";
import type { StreamRecord } from "./state.ts";
import { pumpStream, type StreamObservation } from "./stream.ts";

/** The continuation prompt of session resumes and crash resumes (docs/reference/runner.md §4). */
export const CONTINUE_PROMPT = "Continue the task from where you stopped.";

/** The `SESSION_RESUME` marker reason of a crash resume (attempt mode `resume`). */
export const CRASH_RESUME_REASON = "interrupted";

/** The result of an attempt's streams, before verification. */
export interface AttemptRun {
  stream: "ok" | "error" | "interrupted";
  envelope: FailureEnvelope | null;
  sessionId: string | null;
  logFile: string | null;
  eventsFile: string | null;
}

const NULL_TEXT_SINK: TextSink = { write() {}, flush() {}, close() {} };

/** A renderer for the live view, bound to a session cwd. */
export function newRenderer(ctx: RunContext, prompt: Prompt): Renderer {
  const o = prompt.options;
  return createRenderer({
    ...ctx.view,
    diff_max_lines: o.diff_max_lines,
    tool_output_max_lines: o.tool_output_max_lines,
    color: ctx.io.color,
    tty: ctx.io.stdout.isTerminal,
    // Filled asynchronously before each event is rendered (stream.ts): rendering never runs git itself.
    pathDiff: pathDiffPrefetchFor(prompt.cwd).get,
  });
}

async function logPaths(ctx: RunContext, id: string): Promise<{ log: string; events: string; rel: string }> {
  const p = storePaths(ctx.storeRoot);
  await ensureStoreDir(p.root, p.logs);
  const stamp = fileStamp();
  let base = `prompt-${id}-${stamp}`;
  for (let n = 2; await exists(`${p.logs}/${base}.log`); n++) base = `prompt-${id}-${stamp}-${n}`;
  return { log: `${p.logs}/${base}.log`, events: `${p.logs}/${base}.events.jsonl`, rel: `logs/${base}` };
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

/** The simulated lane's script cursor of an attempt, continuing `from` after a crash. */
function simulatedCursorFor(
  ctx: RunContext,
  promptId: string,
  attempt: number,
  from: { runId: string; attempt: number } | null,
): SimulatedCursor {
  const at = (runId: string, n: number) => `${storePaths(ctx.storeRoot).runDir(runId)}/simulated/${promptId}.${n}.json`;
  return {
    path: at(ctx.runId, attempt),
    continueFrom: from ? { path: at(from.runId, from.attempt), attempt: from.attempt } : null,
    previous: !from && attempt > 1 ? at(ctx.runId, attempt - 1) : null,
  };
}

/** Run the streams of one attempt. The attempt record must already exist in state.json. */
export async function runAttemptStreams(
  ctx: RunContext,
  desk: SteerDesk,
  prompt: Prompt,
  attempt: number,
  mode: AttemptMode,
  body: string,
  /** Crash resume (mode `resume`): the provider session to continue with the continuation prompt. */
  resumeSessionId: string | null = null,
  /** Crash recovery: the interrupted attempt whose work this attempt continues (docs/crash_recovery.md). */
  continueFrom: { runId: string; attempt: number } | null = null,
): Promise<AttemptRun> {
  const o = prompt.options;
  const lane = laneFor(o.provider);
  // A run without a store root (--runtime-store memory|noop) keeps no log and no events file.
  const paths = ctx.persist ? await logPaths(ctx, prompt.id) : null;
  const log = paths ? fileSink(paths.log) : NULL_TEXT_SINK;
  const eventsSink: EventSink | null = paths && o.events_mode !== "off"
    ? eventsFileSink(paths.events, o.events_mode)
    : null;
  ctx.attemptLog = paths ? log : null;
  log.write(logHeader({
    provider: o.provider,
    model: o.model,
    tools: o.allowed_tools,
    cwd: prompt.cwd,
    promptFile: prompt.relFile,
    runId: ctx.runId,
    attempt,
    mode,
  }));
  if (!ctx.io.json) {
    const header = renderHeader(
      {
        promptId: prompt.id,
        name: prompt.name,
        attempt,
        mode,
        promptFile: prompt.relFile,
        project: prompt.cwd,
        provider: o.provider,
        model: o.model,
        logFile: paths ? displayLog(ctx, `${paths.rel}.log`) : null,
        body,
      },
      ctx.view.log_mode,
      ctx.io.color,
    );
    ctx.io.stdout.write(header);
  }
  await ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (a) => {
    a.log_file = paths ? `${paths.rel}.log` : null;
    a.events_file = paths && eventsSink ? `${paths.rel}.events.jsonl` : null;
  });

  const repos = ctx.repoIndex();
  const others = ctx.reposFor(prompt).slice(1).map((r) => r.path);
  const crashResume = mode === "resume" && resumeSessionId !== null;
  let kind: StreamKind = crashResume ? "resume" : "initial";
  let text = crashResume ? CONTINUE_PROMPT : body;
  let resumeId: string | null = crashResume ? resumeSessionId : null;
  let step: SimulatedStep = crashResume ? "resume" : "attempt";
  let sessionId: string | null = resumeId;
  if (crashResume) ctx.marker(`SESSION_RESUME action=started reason=${CRASH_RESUME_REASON}`);
  // A crash-recovery attempt spends the attempt's session-resume budget on the crash resume itself.
  let resumesUsed = continueFrom ? 1 : 0;
  let freshAfterGone = false;
  const cursor = ctx.persist ? simulatedCursorFor(ctx, prompt.id, attempt, continueFrom) : null;
  if (cursor) {
    // Created one level at a time, never through a link (src/util/safe_fs.ts), before the lane writes its cursor.
    await ensureStoreDir(ctx.storeRoot, cursor.path.slice(0, cursor.path.lastIndexOf("/")));
  }
  let firstStream = true;
  let batch: ReturnType<SteerDesk["takeAll"]> = [];
  let batchInterrupted = false;
  let result: AttemptRun["stream"] = "ok";
  let envelope: FailureEnvelope | null = null;
  let rootError: FailureEnvelope | null = null;
  // Bookkeeping writes of the previous stream (lease, state.json) that a follow-up stream does not wait for: the next
  // provider is spawned first and they are awaited right after, before its lease is written. State updates keep
  // their order (the state store chains them); the lease's `provider: null` lands before the next provider's.
  let pending: Promise<unknown>[] = [];
  const defer = (p: Promise<unknown>): void => {
    p.catch(() => {/* reported by settle() */});
    pending.push(p);
  };
  const settle = async (): Promise<void> => {
    const p = pending;
    pending = [];
    const results = await Promise.allSettled(p);
    for (const r of results) if (r.status === "rejected") throw r.reason;
  };

  for (;;) {
    const startedAt = nowIso();
    const streamRec: StreamRecord = { kind, started_at: startedAt, ended_at: null, result: null };
    defer(ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (a) => a.streams.push({ ...streamRec })));
    let session: LaneSession;
    try {
      session = lane.start({
        runId: ctx.runId,
        promptId: prompt.id,
        attempt,
        streamKind: kind,
        prompt: text,
        cwd: prompt.cwd,
        options: o,
        resumeSessionId: resumeId,
        extraDirs: others,
        repos,
        env: {
          PROMPT_RUNNER_RUN_ID: ctx.runId,
          PROMPT_RUNNER_PROMPT_ID: prompt.id,
          PROMPT_RUNNER_PACKET_DIR: ctx.packet.dir,
        },
        simulate: prompt.simulate,
        simulatedStep: step,
        // Only the attempt's first stream plays (or continues) the attempt's script.
        ...(cursor && firstStream ? { simulatedCursor: cursor } : {}),
      });
      firstStream = false;
    } catch (e) {
      await settle();
      const message = e instanceof Error ? e.message : String(e);
      const env = classifyFailure({
        launchFailed: e instanceof LaunchError,
        code: e instanceof LaunchError ? "launch_failed" : "stream_failed",
        message,
        hintClass: null,
        recovery: null,
        stderrTail: "",
      });
      await endStream(ctx, prompt.id, attempt, "error");
      if (kind === "resume") {
        // A resume that cannot start keeps the original error as the root message.
        ctx.marker(`SESSION_RESUME action=failed reason=${env.class}`);
        result = "error";
        envelope = rootError;
        break;
      }
      for (const s of batch) ctx.plane.steerRejected(s, `resume failed: ${message}`);
      batch = [];
      ctx.err(`error: ${message}`);
      result = "error";
      envelope = env;
      break;
    }

    try {
      await settle();
    } catch (e) {
      // The bookkeeping of the previous stream failed: do not leave the provider just spawned behind.
      session.kill();
      await drainEvents(session);
      throw e;
    }
    const renderer = newRenderer(ctx, prompt);
    ctx.live = { session, promptId: prompt.id, attempt, cwd: prompt.cwd, renderer, provider: o.provider };
    ctx.plane.transition({ stream: kind, session_live: true, ...(resumeId ? { session_id: resumeId } : {}) });
    if (session.process) {
      await ctx.lease?.setProvider({ ...session.process, start_ticks: session.process.start_ticks ?? 0 });
    }
    if (desk.queue.length) desk.kick();
    let delivered = batch.length === 0;
    const deliver = (sid: string | null) => {
      if (delivered) return;
      delivered = true;
      const delivery = kind === "restart_with_steer" ? "restart_with_steer" : "interrupt_and_resume";
      const count = desk.markDelivered(prompt.id, batch.length);
      ctx.plane.steersDelivered(batch, {
        delivery,
        prompt_id: prompt.id,
        attempt,
        lane: o.provider,
        session_id: sid,
        interrupted: batchInterrupted,
      });
      ctx.marker(
        `STEER action=${kind === "restart_with_steer" ? "restart" : "resume"} provider=${o.provider} count=${count}`,
      );
      if (kind !== "restart_with_steer") ctx.say("↳ resuming the session with the steer", "yellow");
      batch = [];
    };
    let obs: StreamObservation = {
      sessionId: resumeId,
      sawRunStarted: false,
      firstError: null,
      cancelled: false,
      events: 0,
    };
    let thrown: unknown = undefined;
    try {
      obs = await pumpStream(
        ctx,
        session,
        { promptId: prompt.id, attempt, kind, provider: o.provider, sessionId: resumeId },
        eventsSink,
        {
          onRunStarted: (sid) => {
            // Record the session id at once, so a runner killed mid-stream leaves it for a crash resume.
            if (sid && sid !== sessionId) {
              sessionId = sid;
              ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (a) => {
                a.session_id = sid;
              }).catch(() => {/* written again when the stream ends */});
            }
            deliver(sid);
          },
        },
      );
    } catch (e) {
      thrown = e;
    }
    const footer = ctx.live?.renderer.finish() ?? "";
    if (footer) {
      if (!ctx.io.json) ctx.io.stdout.write(footer);
      log.write(footer);
    }
    ctx.live = null;
    const wasSteerInterrupt = desk.interruptedLive;
    desk.streamEnded();
    if (session.process && ctx.lease) defer(ctx.lease.setProvider(null));
    ctx.plane.transition({ session_live: false });
    const end = endOf(session, obs, thrown);
    defer(endStream(ctx, prompt.id, attempt, end.kind === "cancelled" ? "cancelled" : end.kind));
    if (obs.sessionId) sessionId = obs.sessionId;
    const sid = sessionId;
    defer(ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (a) => {
      a.session_id = sid;
    }));

    if (!delivered) {
      if (end.kind === "error" && end.sessionNotFound && kind === "steer") {
        kind = "restart_with_steer";
        text = restartWithSteerPrompt(body, batch.map((s) => s.text));
        resumeId = null;
        step = "steer";
        continue;
      }
      const why = end.kind === "error" ? end.message : "the stream ended";
      for (const s of batch) ctx.plane.steerRejected(s, `resume failed: ${why}`);
      batch = [];
    }

    if (ctx.interrupted) {
      result = "interrupted";
      envelope = null;
      break;
    }
    if (desk.queue.length > 0) {
      if (sessionId) {
        batch = desk.takeAll();
        batchInterrupted = wasSteerInterrupt && end.kind === "cancelled";
        const n = batch.length;
        if (!ctx.io.json && !wasSteerInterrupt) ctx.say(`↳ delivering ${n} steer${n === 1 ? "" : "s"}…`, "yellow");
        kind = "steer";
        text = steerResumePrompt(batch.map((s) => s.text));
        resumeId = sessionId;
        step = "steer";
        continue;
      }
      for (const s of desk.takeAll()) {
        ctx.plane.steerRejected(s, "the provider session ended before the steer could be delivered");
      }
    }
    if (end.kind === "cancelled") {
      // Cancelled without an operator stop and without steers to deliver: treat as a disconnect.
      result = "error";
      envelope = classifyFailure({
        code: "transport_exit",
        message: "the stream was cancelled",
        hintClass: "transport_disconnect",
        recovery: null,
        stderrTail: "",
      });
      break;
    }
    if (end.kind === "ok") {
      result = "ok";
      envelope = null;
      break;
    }
    if (end.kind === "error" && end.sessionNotFound && kind === "resume" && !freshAfterGone) {
      // The CLI no longer knows the session (e.g. after a crash): resuming it again cannot work, start fresh now.
      freshAfterGone = true;
      ctx.say(`↳ session ${resumeId ?? "?"} cannot be resumed (${end.message}); starting a fresh session`, "yellow");
      ctx.marker(`SESSION_RESUME action=fresh reason=session_not_found`);
      kind = "initial";
      text = crashResume ? prompt.body : body;
      resumeId = null;
      sessionId = null;
      step = "attempt";
      continue;
    }
    const env = classifyStreamEnd(end)!;
    rootError ??= env;
    if (env.resumeable && !env.local_deterministic && sessionId && resumesUsed < o.recovery.resume_attempts) {
      resumesUsed++;
      ctx.marker(`SESSION_RESUME action=started reason=${env.class}`);
      ctx.record(
        { type: "session_resumed", data: { reason: env.class, resume_number: resumesUsed } },
        { prompt_id: prompt.id, attempt, stream: "resume", provider: o.provider, session_id: sessionId },
      );
      kind = "resume";
      text = CONTINUE_PROMPT;
      resumeId = sessionId;
      step = "resume";
      continue;
    }
    result = "error";
    envelope = env;
    break;
  }
  await settle();
  eventsSink?.close();
  ctx.say("");
  return {
    stream: result,
    envelope,
    sessionId,
    logFile: paths ? `${paths.rel}.log` : null,
    eventsFile: paths && eventsSink ? `${paths.rel}.events.jsonl` : null,
  };
}

/** Consume a killed session's events so its process is waited for. */
async function drainEvents(session: LaneSession): Promise<void> {
  try {
    for await (const _ of session.events) { /* discard */ }
  } catch { /* the error being reported is the bookkeeping one */ }
}

/** The log path as shown in the header: relative to the packet dir when the store root is inside it. */
function displayLog(ctx: RunContext, rel: string): string {
  const dir = ctx.packet.dir.replace(/\/+$/, "");
  const root = ctx.storeRoot.replace(/\/+$/, "");
  return root.startsWith(`${dir}/`) ? `${root.slice(dir.length + 1)}/${rel}` : `${root}/${rel}`;
}

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
