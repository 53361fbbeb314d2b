/**
 * Pumping one provider stream through the render pipeline (docs/reference/events-and-rendering.md §5): every event goes to
 * `plane.record` → the current renderer → the tty and file sinks and the per-attempt events sink, followed by a
 * boundary. While the stream is silent, the next event is raced against `plane.wake()` so control requests are
 * still consumed (docs/reference/control-plane.md §6.1); while it streams without pause, the event loop is given a turn every few
 * ms of work (turn_yield.ts) so the request watcher's callback runs and the next boundary applies the request.
 */
import type { Envelope, ProviderEvent, StreamKind } from "../events/mod.ts";
import type { EventContext } from "../control/runner_api.ts";
import type { LaneSession } from "../lanes/mod.ts";
import type { EventSink } from "../render/mod.ts";
import type { RunContext } from "./context.ts";
import { toolChange } from "../render/diff.ts";
import { pathDiffPrefetchFor } from "../render/git_diff.ts";
import { TurnYielder } from "./turn_yield.ts";

type ToolStarts = Map<string, { name: string; input: Record<string, unknown> }>;

/**
 * Before a path-only file change is rendered under `diff: full`, compute its git diffs asynchronously (so the event
 * loop keeps serving control requests and timers while git runs); the renderer then reads them synchronously.
 */
async function prefetchPathDiffs(ctx: RunContext, ev: ProviderEvent, starts: ToolStarts): Promise<void> {
  if (ev.hidden) return;
  if (ev.type === "tool_call_started") {
    starts.set(ev.data.tool_call_id, { name: ev.data.tool_name, input: ev.data.tool_input });
    return;
  }
  if (ev.type !== "tool_call_completed") return;
  const start = starts.get(ev.data.tool_call_id);
  starts.delete(ev.data.tool_call_id);
  const live = ctx.live;
  if (live === null || ctx.view.diff !== "full") return;
  const change = toolChange(
    ev.data.tool_name || start?.name || "tool",
    start?.input ?? {},
    ev.data.result_meta ?? null,
  );
  if (change?.kind !== "paths") return;
  await pathDiffPrefetchFor(live.cwd).prefetch(change.paths.map((p) => p.path));
}

/** Context of one stream. */
export interface StreamMeta {
  promptId: string;
  attempt: number;
  kind: StreamKind;
  provider: string;
  /** Session id known before the stream starts (resumes). */
  sessionId: string | null;
}

/** What the pump observed. */
export interface StreamObservation {
  sessionId: string | null;
  sawRunStarted: boolean;
  /** The first `error_occurred` / `run_failed` seen (it decides the stream result). */
  firstError: { code: string; message: string } | null;
  cancelled: boolean;
  events: number;
}

const WAKE = Symbol("wake");

/** Callbacks for stream-specific reactions. */
export interface StreamHooks {
  /** Called after `run_started` was recorded and rendered. */
  onRunStarted?(sessionId: string | null): void;
}

/** Record and render one event; returns the envelope. */
function handle(
  ctx: RunContext,
  event: ProviderEvent,
  stamp: EventContext,
  events: EventSink | null,
): Envelope {
  const env = ctx.plane.record(event, stamp);
  const live = ctx.live;
  if (live && !env.hidden) {
    const text = live.renderer.render(env);
    if (text) {
      if (!ctx.io.json) ctx.io.stdout.write(text);
      ctx.attemptLog?.write(text);
    }
  }
  if (events && !env.hidden) events.event(env);
  return env;
}

/** Run one stream to its end. The caller begins the live stream in the slot before and ends it after. */
export async function pumpStream(
  ctx: RunContext,
  session: LaneSession,
  meta: StreamMeta,
  events: EventSink | null,
  hooks: StreamHooks = {},
): Promise<StreamObservation> {
  const obs: StreamObservation = {
    sessionId: meta.sessionId ?? session.sessionId,
    sawRunStarted: false,
    firstError: null,
    cancelled: false,
    events: 0,
  };
  const stamp: EventContext = {
    prompt_id: meta.promptId,
    attempt: meta.attempt,
    stream: meta.kind,
    provider: meta.provider,
    session_id: obs.sessionId,
  };
  const it = session.events[Symbol.asyncIterator]();
  const starts: ToolStarts = new Map();
  // One wake promise at a time: a waiter slot is overwritten per wait, so nothing accumulates on long streams.
  let waiter: ((v: typeof WAKE) => void) | null = null;
  let woke = false;
  let armed = true;
  const arm = () => {
    ctx.plane.wake().then(() => {
      if (!armed) return;
      woke = true;
      const w = waiter;
      waiter = null;
      w?.(WAKE);
    });
  };
  arm();
  const turns = new TurnYielder();
  try {
    let next = it.next();
    for (;;) {
      if (woke) {
        woke = false;
        ctx.plane.boundary();
        arm();
      }
      const r = await new Promise<IteratorResult<ProviderEvent> | typeof WAKE>((resolve, reject) => {
        waiter = resolve;
        next.then(resolve, reject);
      });
      waiter = null;
      if (r === WAKE) continue;
      if (r.done) break;
      next = it.next();
      const ev = r.value;
      if (ev.type === "run_started") {
        obs.sawRunStarted = true;
        const sid = ev.data.provider_session_id;
        if (sid) {
          obs.sessionId = sid;
          stamp.session_id = sid;
          ctx.plane.transition({ session_id: sid });
        }
      } else if ((ev.type === "error_occurred" || ev.type === "run_failed") && obs.firstError === null) {
        obs.firstError = { code: ev.data.error_code, message: ev.data.error_message };
      } else if (ev.type === "run_cancelled") {
        obs.cancelled = true;
      } else if (ev.type === "tool_call_started" && ev.data.guardrail) {
        const g = ev.data.guardrail;
        ctx.plane.guardrail({ tool: g.tool, allowed_tools: g.allowed_tools, rule: g.reason });
        ctx.marker(`GUARDRAIL tool=${g.tool} allowed_tools=${g.allowed_tools.join(",")} reason=${g.reason}`);
      }
      await prefetchPathDiffs(ctx, ev, starts);
      handle(ctx, ev, stamp, events);
      obs.events++;
      if (ev.type === "run_started") hooks.onRunStarted?.(obs.sessionId);
      ctx.plane.boundary();
      if (turns.due()) await turns.yield();
    }
  } finally {
    armed = false;
    turns.close();
  }
  if (session.sessionId && !obs.sessionId) obs.sessionId = session.sessionId;
  return obs;
}
