/**
 * One attempt's streams (docs/reference/runner.md §4): the log and events files with their headers, then the streams — the initial
 * stream (or a crash resume), in-attempt session resumes after resumeable failures, and steer streams (interrupt +
 * resume, or restart_with_steer when the session is gone). This file is the driver: it runs a stream
 * (attempt_stream.ts), asks the pure {@link nextStream} decision (next_stream.ts) what comes next, and performs only
 * the effects that decision names (steer rejections, markers, notices, the next stream's prompt).
 */
import type { AttemptMode } from "../events/mod.ts";
import { laneFor, type SimulatedCursor } from "../lanes/mod.ts";
import type { Prompt } from "../packet/mod.ts";
import { type EventSink, logHeader, renderHeader, type TextSink } from "../render/mod.ts";
import { eventsFileSink, fileSink } from "../render/sinks.ts";
import { restartWithSteerPrompt, steerResumePrompt } from "../control/steer.ts";
import { storePaths } from "../store/paths.ts";
import { createStoreFileSync, ensureStoreDirSync } from "../util/safe_fs.ts";
import { fileStamp } from "../util/time.ts";
import { type SpareFiles, sparesFor } from "./spare_files.ts";
import type { FailureEnvelope } from "./classify.ts";
import type { RunContext } from "./context.ts";
import type { SteerDesk } from "./steering.ts";
import type { AgentInvocation } from "./agent_iteration.ts";
import { type AttemptScope, Bookkeeping, runStream, type SteerBatch, type StreamSpec } from "./attempt_stream.ts";
import {
  firstStream,
  type LoopMemory,
  type NextStream,
  nextStream,
  planFor,
  type Rejections,
  type StopWhy,
  type StreamOutcome,
} from "./next_stream.ts";

export { newRenderer } from "./attempt_stream.ts";

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

/** A new attempt's log: its paths and the handle its `.log` was created with. */
export interface AttemptLogFiles {
  log: string;
  events: string;
  rel: string;
  file: Deno.FsFile;
}

/**
 * Create a new attempt's `.log` under the store's `logs/` (checked as ever: each component a real directory). The
 * name is `prompt-<id>-<stamp>`, or `-2`, `-3`… when taken: the create-new open itself is the check (no `lstat`
 * before it), so a name is never reused and nothing already there is opened.
 */
export function createAttemptLog(
  storeRoot: string,
  id: string,
  stamp: string = fileStamp(),
  spares: SpareFiles | null = sparesFor(storePaths(storeRoot).logs),
): AttemptLogFiles {
  const p = storePaths(storeRoot);
  ensureStoreDirSync(p.root, p.logs);
  spares?.dirChecked();
  for (let n = 1;; n++) {
    const base = n === 1 ? `prompt-${id}-${stamp}` : `prompt-${id}-${stamp}-${n}`;
    // A spare made ahead takes the name by a link (src/run/spare_files.ts); else the create-new open makes it.
    const adopted = spares?.adopt(`${p.logs}/${base}.log`) ?? null;
    if (adopted === "taken") continue;
    const file = adopted ?? createStoreFileSync(`${p.logs}/${base}.log`);
    if (file) {
      return { log: `${p.logs}/${base}.log`, events: `${p.logs}/${base}.events.jsonl`, rel: `logs/${base}`, file };
    }
  }
}

/**
 * The attempt's events file from a spare made ahead, or undefined: none ready, or the name is taken (the sink then
 * opens it as before, which checks what is there).
 */
function spareFor(ctx: RunContext, path: string): Deno.FsFile | undefined {
  const adopted = sparesFor(storePaths(ctx.storeRoot).logs)?.adopt(path) ?? null;
  return adopted === null || adopted === "taken" ? undefined : adopted;
}

/**
 * The interrupted attempt an attempt continues; `origins`, nearest first, are the attempts that one continued in turn
 * (a crash-recovery attempt killed before its own progress was recorded stands where the attempt it continued stood).
 */
export interface ContinueFrom {
  runId: string;
  attempt: number;
  origins?: { runId: string; attempt: number }[];
}

/** The simulated lane's script cursor of an attempt, continuing `from` after a crash. */
function simulatedCursorFor(
  ctx: RunContext,
  promptId: string,
  attempt: number,
  from: ContinueFrom | null,
): SimulatedCursor {
  const at = (runId: string, n: number) => `${storePaths(ctx.storeRoot).runDir(runId)}/simulated/${promptId}.${n}.json`;
  const cursorOf = (a: { runId: string; attempt: number }) => ({ path: at(a.runId, a.attempt), attempt: a.attempt });
  return {
    path: at(ctx.runId, attempt),
    continueFrom: from
      ? { ...cursorOf(from), ...(from.origins?.length ? { origins: from.origins.map(cursorOf) } : {}) }
      : null,
    previous: !from && attempt > 1 ? at(ctx.runId, attempt - 1) : null,
    storeRoot: ctx.storeRoot,
  };
}

/** The attempt's log and events files (none without a store root: `--runtime-store memory|noop`). */
interface AttemptFiles {
  readonly rel: string | null;
  readonly log: TextSink;
  readonly eventsSink: EventSink | null;
}

/** Open the attempt's log and events files, write the log and live headers, and name the files on the attempt. */
async function openAttempt(
  ctx: RunContext,
  prompt: Prompt,
  attempt: number,
  mode: AttemptMode,
  body: string,
): Promise<AttemptFiles> {
  const o = prompt.options;
  const paths = ctx.persist ? createAttemptLog(ctx.storeRoot, prompt.id) : null;
  const log = paths ? fileSink(paths.log, paths.file) : NULL_TEXT_SINK;
  const eventsSink: EventSink | null = paths && o.events_mode !== "off"
    ? eventsFileSink(paths.events, o.events_mode, spareFor(ctx, paths.events))
    : null;
  ctx.slot.beginLog(paths ? log : null);
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
    const logFile = paths ? displayLog(ctx, `${paths.rel}.log`) : null;
    ctx.io.stdout.write(renderHeader(
      {
        promptId: prompt.id,
        name: prompt.name,
        attempt,
        mode,
        promptFile: prompt.relFile,
        project: prompt.cwd,
        provider: o.provider,
        model: o.model,
        logFile,
        body,
      },
      ctx.view.log_mode,
      ctx.io.color,
    ));
  }
  await ctx.state.updateAttempt(prompt.id, ctx.runId, attempt, (a) => {
    a.log_file = paths ? `${paths.rel}.log` : null;
    a.events_file = paths && eventsSink ? `${paths.rel}.events.jsonl` : null;
  });
  return { rel: paths?.rel ?? null, log, eventsSink };
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
  continueFrom: ContinueFrom | null = null,
  /** Agent control: the attempt's invocation (docs/agent-control.md §2), watched while the streams run. */
  agent: AgentInvocation | null = null,
): Promise<AttemptRun> {
  const lane = laneFor(prompt.options.provider);
  const files = await openAttempt(ctx, prompt, attempt, mode, body);
  const scope: AttemptScope = {
    prompt,
    attempt,
    lane,
    log: files.log,
    eventsSink: files.eventsSink,
    books: new Bookkeeping(),
    repos: ctx.repoIndex(),
    // The agent's private directory is writable from the provider's sandbox (codex --add-dir).
    extraDirs: [...ctx.reposFor(prompt).slice(1).map((r) => r.path), ...(agent ? [agent.scope.dir] : [])],
    ...(agent ? { agentEnv: agent.env } : {}),
  };
  const crashResumeId = mode === "resume" ? resumeSessionId : null;
  if (crashResumeId !== null) ctx.marker(`SESSION_RESUME action=started reason=${CRASH_RESUME_REASON}`);
  // The lane creates the cursor's directory from the store root when it first writes a cursor (most scripts write none).
  const cursor = ctx.persist ? simulatedCursorFor(ctx, prompt.id, attempt, continueFrom) : null;
  const texts = { body, initial: crashResumeId !== null ? prompt.body : body };
  // A crash-recovery attempt spends the attempt's session-resume budget on the crash resume itself.
  const memory: LoopMemory = {
    sessionId: crashResumeId,
    resumesUsed: continueFrom ? 1 : 0,
    freshAfterGone: false,
    rootError: null,
  };
  const first: StreamSpec = {
    plan: firstStream(crashResumeId),
    text: crashResumeId !== null ? CONTINUE_PROMPT : body,
    batch: NO_STEERS,
    cursor,
    sessionId: crashResumeId,
  };
  agent?.watch();
  let done: Awaited<ReturnType<typeof streamLoop>>;
  try {
    done = await streamLoop(ctx, desk, scope, texts, first, memory);
  } finally {
    agent?.settle();
  }
  await scope.books.settle();
  files.eventsSink?.close();
  ctx.say("");
  return {
    ...done,
    logFile: files.rel !== null ? `${files.rel}.log` : null,
    eventsFile: files.rel !== null && files.eventsSink ? `${files.rel}.events.jsonl` : null,
  };
}

/** The texts an attempt's streams are built from: the attempt body, and the prompt of a fresh (initial) stream. */
interface AttemptTexts {
  readonly body: string;
  readonly initial: string;
}

const NO_STEERS: SteerBatch = { steers: [], interrupted: false };

/** Run streams until {@link nextStream} says stop, performing the effects each decision names. */
async function streamLoop(
  ctx: RunContext,
  desk: SteerDesk,
  a: AttemptScope,
  texts: AttemptTexts,
  first: StreamSpec,
  start: LoopMemory,
): Promise<Pick<AttemptRun, "stream" | "envelope" | "sessionId">> {
  const resumeBudget = a.prompt.options.recovery.resume_attempts;
  let spec = first;
  let memory = start;
  for (;;) {
    const ran = await runStream(ctx, desk, a, spec);
    memory = { ...memory, sessionId: ran.sessionId };
    const steersQueued = desk.queue.length;
    const next = nextStream({
      kind: spec.plan.kind,
      outcome: ran.outcome,
      memory,
      interrupted: ctx.interrupted,
      steersQueued,
      resumeBudget,
    });
    reject(ctx, desk, spec.batch, next.reject);
    if (next.do === "stop") {
      stopped(ctx, next.why, ran.outcome);
      return { stream: next.result, envelope: next.envelope, sessionId: memory.sessionId };
    }
    memory = next.memory;
    spec = followUp(ctx, desk, a, next, { spec, texts, sessionId: memory.sessionId });
  }
}

/** Reject the steers a decision names: the stream's undelivered batch, then every queued steer. */
function reject(ctx: RunContext, desk: SteerDesk, batch: SteerBatch, why: Rejections): void {
  if (why.batch !== null) { for (const s of batch.steers) ctx.plane.steerRejected(s, why.batch); }
  if (why.queued !== null) { for (const s of desk.takeAll()) ctx.plane.steerRejected(s, why.queued); }
}

/** The effects of a stop: a stream that could not start says so. */
function stopped(ctx: RunContext, why: StopWhy, outcome: StreamOutcome): void {
  if (outcome.type !== "launch_failed") return;
  if (why === "resume_launch_failed") ctx.marker(`SESSION_RESUME action=failed reason=${outcome.envelope.class}`);
  else ctx.err(`error: ${outcome.message}`);
}

/** Perform a continuing decision's effects and build the stream it starts. */
function followUp(
  ctx: RunContext,
  desk: SteerDesk,
  a: AttemptScope,
  next: Exclude<NextStream, { do: "stop" }>,
  at: { spec: StreamSpec; texts: AttemptTexts; sessionId: string | null },
): StreamSpec {
  const plan = planFor(next, at.sessionId);
  const spec = { plan, cursor: null, sessionId: at.sessionId };
  switch (next.do) {
    case "restart_with_steer": {
      const text = restartWithSteerPrompt(at.texts.body, at.spec.batch.steers.map((s) => s.text));
      return { ...spec, text, batch: at.spec.batch };
    }
    case "deliver_steers": {
      const steers = desk.takeAll();
      const n = steers.length;
      if (!ctx.io.json && next.announce) ctx.say(`↳ delivering ${n} steer${n === 1 ? "" : "s"}…`, "yellow");
      const text = steerResumePrompt(steers.map((s) => s.text));
      return { ...spec, text, batch: { steers, interrupted: next.interrupted } };
    }
    case "fresh_session": {
      const gone = at.spec.plan.resumeId ?? "?";
      ctx.say(`↳ session ${gone} cannot be resumed (${next.message}); starting a fresh session`, "yellow");
      ctx.marker(`SESSION_RESUME action=fresh reason=session_not_found`);
      return { ...spec, text: at.texts.initial, batch: NO_STEERS };
    }
    case "resume_session": {
      ctx.marker(`SESSION_RESUME action=started reason=${next.reason}`);
      ctx.record(
        { type: "session_resumed", data: { reason: next.reason, resume_number: next.resumeNumber } },
        {
          prompt_id: a.prompt.id,
          attempt: a.attempt,
          stream: "resume",
          provider: a.prompt.options.provider,
          session_id: at.sessionId,
        },
      );
      return { ...spec, text: CONTINUE_PROMPT, batch: NO_STEERS };
    }
  }
}

/** The log path as shown in the header: relative to the packet dir when the store root is inside it. */
function displayLog(ctx: RunContext, rel: string): string {
  const dir = ctx.packet.dir.replace(/\/+$/, "");
  const root = ctx.storeRoot.replace(/\/+$/, "");
  return root.startsWith(`${dir}/`) ? `${root.slice(dir.length + 1)}/${rel}` : `${root}/${rel}`;
}
