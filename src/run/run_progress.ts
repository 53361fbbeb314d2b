/**
 * What the live status line and the heartbeat show (docs/status.md): the runner's progress folded from the same two
 * streams the snapshot is made of — the runner's transitions and the recorded events — by {@link trackPlane}, which
 * sits in front of the run's plane. Works the same for a run without a store root (the null plane keeps no snapshot).
 */
import type { Envelope } from "../events/mod.ts";
import { type RunnerPlane, type SnapshotPatch, TokenTally } from "../control/runner_api.ts";
import type { ProgressFacts } from "../render/mod.ts";

/** Folds transitions and events into {@link ProgressFacts}. */
export class RunProgress {
  #f: Omit<ProgressFacts, "tokens" | "runningTool">;
  /** Tool calls started and not yet completed or failed, in start order. */
  readonly #running = new Map<string, { name: string; sinceMs: number }>();
  readonly #tokens = new TokenTally();
  readonly #now: () => number;

  constructor(selected: number, now: () => number = Date.now) {
    this.#now = now;
    this.#f = {
      promptId: null,
      position: 0,
      selected,
      attempt: null,
      mode: null,
      stage: "starting",
      promptStartedMs: null,
      lastEventMs: null,
      lastEvent: null,
      tools: 0,
    };
  }

  /** A runner transition (the patch the plane writes into the snapshot). */
  patch(p: SnapshotPatch): void {
    const f = this.#f;
    const promptChanged = p.prompt_id !== undefined && p.prompt_id !== f.promptId;
    if (promptChanged || (p.attempt !== undefined && p.attempt !== f.attempt)) {
      this.#tokens.attemptStarted();
      this.#running.clear();
      f.tools = 0;
    }
    if (p.prompt_id !== undefined) f.promptId = p.prompt_id;
    if (p.prompt_position !== undefined) f.position = p.prompt_position;
    if (p.selected_count !== undefined) f.selected = p.selected_count;
    if (p.attempt !== undefined) f.attempt = p.attempt;
    if (p.mode !== undefined) f.mode = p.mode;
    if (p.stage !== undefined) f.stage = p.stage;
    if (p.prompt_started_at !== undefined) {
      const t = p.prompt_started_at === null ? NaN : Date.parse(p.prompt_started_at);
      f.promptStartedMs = Number.isFinite(t) ? t : null;
    }
  }

  /** A recorded event. */
  event(e: Envelope): void {
    const f = this.#f;
    f.lastEventMs = this.#now();
    f.lastEvent = e.type;
    if (e.type === "tool_call_started") {
      f.tools++;
      this.#running.set(e.data.tool_call_id, { name: e.data.tool_name, sinceMs: f.lastEventMs });
    } else if (e.type === "tool_call_completed" || e.type === "tool_call_failed") {
      this.#running.delete(e.data.tool_call_id);
    } else if (e.type === "run_started") {
      this.#tokens.streamStarted();
      this.#running.clear();
    } else if (e.type === "run_completed" || e.type === "run_failed" || e.type === "run_cancelled") {
      this.#running.clear();
    }
    if (e.type === "run_completed" && e.data.token_usage) this.#tokens.usage(e.data.token_usage);
    else if (e.type === "token_usage_updated") this.#tokens.usage(e.data);
  }

  /** The facts now. */
  facts(): ProgressFacts {
    const running = [...this.#running.values()].at(-1) ?? null;
    return { ...this.#f, runningTool: running, tokens: { attempt: this.#tokens.attempt, run: this.#tokens.run } };
  }
}

/** Something fed the run's transitions and recorded events (the {@link RunProgress}, the CI log of src/run/ci.ts). */
export interface PlaneObserver {
  patch(p: SnapshotPatch): void;
  event(e: Envelope): void;
}

/** The run's plane with every transition and recorded event also folded into `progress` (and each of `also`). */
export function trackPlane(plane: RunnerPlane, progress: RunProgress, ...also: PlaneObserver[]): RunnerPlane {
  return {
    get runId() {
      return plane.runId;
    },
    get view() {
      return plane.view;
    },
    get steers() {
      return plane.steers;
    },
    record(event, ctx) {
      const envelope = plane.record(event, ctx);
      progress.event(envelope);
      for (const o of also) o.event(envelope);
      return envelope;
    },
    transition(patch) {
      plane.transition(patch);
      progress.patch(patch);
      for (const o of also) o.patch(patch);
    },
    boundary: () => plane.boundary(),
    wake: () => plane.wake(),
    steersDelivered: (steers, info) => plane.steersDelivered(steers, info),
    steerRejected: (steer, reason) => plane.steerRejected(steer, reason),
    guardrail: (params) => plane.guardrail(params),
    agentControl: (entry) => plane.agentControl(entry),
    syncRecord: () => plane.syncRecord(),
    close: (status, reason) => plane.close(status, reason),
  };
}
