/**
 * The runner side of the control plane (docs/reference/control-plane.md §4–§8): records events into `events.jsonl` and the
 * snapshot, and consumes request files at boundaries with the §6.3 algorithm and §6.4 idempotency order. A run
 * without a store root uses {@link nullPlane}, which writes nothing at all.
 */
import type { Envelope, ProviderEvent, RunnerEvent, View } from "../events/mod.ts";
import { isProviderEventType } from "../events/types.ts";
import { encodeEnvelope } from "../events/json.ts";
import { appendStoreLineSync, atomicWriteStoreText, lstatStoreSync } from "../util/safe_fs.ts";
import { readStoreTextOrNullSync } from "../util/safe_read.ts";
import { nowIso } from "../util/time.ts";
import { meterWrite } from "../util/read_meter.ts";
import { flushStageTrace, traceStage } from "../util/stage_trace.ts";
import type {
  AcceptedSteer,
  EventContext,
  PlaneHooks,
  RunnerPlane,
  SnapshotPatch,
  SteerDelivery,
} from "./plane_types.ts";
import type { AgentControlEntry } from "./plane_types.ts";
import { storePaths } from "../store/paths.ts";
import { ensureControlDirs, ensureStoreRoot } from "../store/layout.ts";
import { DEFAULT_SEGMENT_BYTES, EventAppender, firstRunId, rotateEvents } from "./event_log.ts";
import { lastRunSeq, sealedSegments } from "./segments.ts";
import { DEFAULT_RETENTION, pruneArchives, type RetentionPolicy } from "./retention.ts";
import { AuditWriter } from "./audit.ts";
import type { LogEntry } from "./log.ts";
import { type Decision, RequestInbox } from "./inbox.ts";
import { validateView } from "./view.ts";
import { steerAcceptance, steerFirstLine } from "./steer.ts";
import { initialSnapshot, type SnapshotDoc } from "./snapshot.ts";
import { SnapshotSchedule } from "./snapshot_schedule.ts";
import { isSnapshotTemp, SnapshotWriter } from "./snapshot_writer.ts";
import { prettyJson } from "../util/fs.ts";
import { SteerLedger } from "./steer_ledger.ts";
import { TokenTally } from "./tokens.ts";
import { deliveriesOf, type InterventionRecord } from "./interventions.ts";
import { elapsedSince, errorMessage, isRecord, localHostname } from "../util/common.ts";
import { PlaneWaker } from "./waker.ts";
import { RunFailedError } from "../errors.ts";

/** Options of {@link openPlane}. */
export interface OpenPlaneOptions {
  storeRoot: string;
  runId: string;
  resumed: boolean;
  packet: { name: string; dir: string };
  workspace: string | null;
  view: View;
  selectedCount: number;
  maxSteers: number;
  /** The steer budget of one prompt (its own `recovery.max_steers`); default: `maxSteers` for every prompt. */
  maxSteersFor?: (promptId: string) => number;
  hooks: PlaneHooks;
  /** Selected prompt ids for the `run_opened` event. */
  selection?: string[];
  /** Poll fallback interval (default 1000 ms). */
  pollMs?: number;
  /** Quiet window folding a burst of watcher events into at most two wake-ups (default 5 ms; see waker.ts). */
  debounceMs?: number;
  /** Use `Deno.watchFs` (default true). */
  watch?: boolean;
  /**
   * Called synchronously with every envelope the plane records (its own `run_opened`, `view_changed`, `steer_*`
   * and `run_finished` included), in seq order, right after it is appended (`run --json`).
   */
  onRecord?: (envelope: Envelope) => void;
  /** Size bound of one event segment (default 64 MiB, docs/reference/control-plane.md §5.2). */
  segmentBytes?: number;
  /** Retention of earlier runs' archives, applied when the plane opens (default {@link DEFAULT_RETENTION}). */
  retention?: RetentionPolicy;
  /**
   * Write queued events at every boundary, as before boundaries were batched (default false). Only the runner
   * benchmark sets it: its baseline for the batching gain.
   */
  flushEveryBoundary?: boolean;
  /** The snapshot's coalescing window (default 50 ms, docs/reference/control-plane.md §4.4); tests widen it. */
  snapshotCoalesceMs?: number;
}

const SNAPSHOT_COALESCE_MS = 50;
const RECEIPT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** Remove receipts last modified before `cutoffMs` (docs/reference/control-plane.md §2.3, receipts older than 7 days). */
function pruneReceipts(dir: string, cutoffMs: number): number {
  let removed = 0;
  try {
    for (const e of Deno.readDirSync(dir)) {
      if (!e.isFile) continue;
      try {
        const m = Deno.lstatSync(`${dir}/${e.name}`).mtime?.getTime();
        if (m !== undefined && m < cutoffMs) {
          Deno.removeSync(`${dir}/${e.name}`);
          removed++;
        }
      } catch { /* raced with another remover */ }
    }
  } catch { /* no outcomes yet */ }
  return removed;
}

/**
 * Remove the snapshot temp files a runner that died mid-write left in `control/` (the plane is opened under the store
 * root's lease, so no other writer's temp can be there). Only regular files are removed; anything else is left alone.
 */
function removeSnapshotTemps(control: string): void {
  try {
    for (const e of Deno.readDirSync(control)) {
      if (!e.isFile || !isSnapshotTemp(e.name)) continue;
      try {
        Deno.removeSync(`${control}/${e.name}`);
      } catch { /* already gone */ }
    }
  } catch { /* no control directory yet */ }
}

/** The token totals of a previous snapshot of the same run (0 when absent or malformed). */
function previousRunTokens(previous: Record<string, unknown> | null): { input: number; output: number } {
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0);
  return { input: n(previous?.run_input_tokens), output: n(previous?.run_output_tokens) };
}

class FilePlane implements RunnerPlane {
  readonly runId: string;
  #view: View;
  readonly #opts: OpenPlaneOptions;
  readonly #paths;
  readonly #hooks: PlaneHooks;
  readonly #audit: AuditWriter;
  #events!: EventAppender;
  readonly #waker: PlaneWaker;
  #seq = 0;
  #snap!: SnapshotDoc;
  /** When a coalesced change is written (docs/reference/control-plane.md §4.4): with the next write, or by a timer. */
  readonly #schedule: SnapshotSchedule;
  readonly #writer: SnapshotWriter;
  #closed = false;
  #closing = false;
  #ctx: EventContext = { prompt_id: null, attempt: null, stream: null, provider: null, session_id: null };
  #tokens = new TokenTally();
  #steers!: SteerLedger;
  readonly #inbox: RequestInbox;
  #lastScan = 0;
  #snapshotError = false;
  /** Inside a request scan: transitions mark the snapshot due instead of writing it per request. */
  #scanning = false;
  #snapDue = false;

  constructor(opts: OpenPlaneOptions) {
    this.runId = opts.runId;
    this.#view = { ...opts.view };
    this.#opts = opts;
    this.#paths = storePaths(opts.storeRoot);
    this.#hooks = opts.hooks;
    this.#audit = new AuditWriter(opts.storeRoot);
    this.#inbox = new RequestInbox({
      paths: this.#paths,
      runId: opts.runId,
      audit: this.#audit,
      entry: (e) => this.#entry(e),
      closing: () => this.#closing,
      dispatch: (name, command, params, author) =>
        command === "set_view" ? this.#decideView(name, params, author) : this.#decideSteer(name, params, author),
      warn: (text) => this.#hooks.notice(text, "warning"),
    });
    this.#waker = new PlaneWaker(this.#paths.requests, {
      pollMs: opts.pollMs ?? 1000,
      debounceMs: opts.debounceMs ?? 5,
      watch: opts.watch ?? true,
    });
    this.#writer = new SnapshotWriter(
      async (text, w) => {
        await atomicWriteStoreText(this.#paths.snapshot, text, { ...w, failpoint: "snapshot.before_rename" });
        meterWrite("snapshot rename");
      },
      (e) => this.#snapshotFailed(e),
    );
    this.#schedule = new SnapshotSchedule(opts.snapshotCoalesceMs ?? SNAPSHOT_COALESCE_MS, () => {
      if (!this.#closed) this.#writeSnapshot();
    });
  }

  get view(): View {
    return { ...this.#view };
  }

  get steers(): SteerLedger {
    return this.#steers;
  }

  /** docs/reference/control-plane.md §6.5 open: dirs, rotation, seq, log index, reconciliation, snapshot, run_opened, watcher. */
  open(): void {
    const o = this.#opts;
    ensureStoreRoot(o.storeRoot, {
      kind: o.workspace ? "workspace" : "packet",
      packetDir: o.packet.dir,
      workspaceId: o.workspace,
    });
    try {
      ensureControlDirs(o.storeRoot);
    } catch (e) {
      throw new RunFailedError("control_dir_failed", `cannot create the control directory ${this.#paths.control}`, {
        cause: e,
        hints: [errorMessage(e)],
      });
    }
    removeSnapshotTemps(this.#paths.control);
    let previous: Record<string, unknown> | null = null;
    try {
      const v: unknown = JSON.parse(readStoreTextOrNullSync(this.#paths.snapshot) ?? "");
      if (isRecord(v)) previous = v;
    } catch { /* no snapshot */ }
    const oldId = typeof previous?.run_id === "string" ? previous.run_id : firstRunId(this.#paths.events);
    let eventsExist = true;
    try {
      eventsExist = Deno.statSync(this.#paths.events).size > 0;
    } catch {
      eventsExist = false;
    }
    if (eventsExist && oldId !== this.runId) rotateEvents(o.storeRoot, oldId ?? "unknown");
    // A resumed run continues seq from its live file, or from its last sealed segment (crash right after a seal).
    const last = lastRunSeq(o.storeRoot, this.runId);
    this.#seq = last.seq;
    let n = (sealedSegments(o.storeRoot, this.runId).at(-1)?.n ?? 0) + 1;
    this.#events = new EventAppender(this.#paths.events, last.torn, {
      maxBytes: o.segmentBytes ?? DEFAULT_SEGMENT_BYTES,
      nextSegment: () => {
        while (lstatStoreSync(this.#paths.eventSegment(this.runId, n), "file") !== null) n++;
        return this.#paths.eventSegment(this.runId, n++);
      },
    });
    const entries = this.#audit.open();
    this.#retain(o.retention ?? DEFAULT_RETENTION);
    this.#inbox.index(entries);
    this.#inbox.adopt();
    pruneReceipts(this.#paths.outcomes, Date.now() - RECEIPT_MAX_AGE_MS);
    // The one steer ledger: a resumed run continues its counts from the interventions/ records of its run id.
    this.#steers = SteerLedger.rebuilt(o.storeRoot, this.runId, o.maxSteersFor ?? (() => o.maxSteers));
    // A steer of this run delivered while its intervention record could not be written is known only from its
    // `applied` entry: it still counts against its prompt's budget.
    for (const e of entries) {
      if (e.command !== "steer" || e.outcome !== "applied" || e.run_id !== this.runId) continue;
      if (typeof e.prompt_id !== "string" || !isRecord(e.params) || typeof e.params.intervention_record !== "string") {
        continue;
      }
      this.#steers.counted(e.prompt_id, typeof e.params.delivery === "string" ? e.params.delivery : undefined);
    }
    this.#reconcile(entries);
    const now = nowIso();
    const sameRun = previous?.run_id === this.runId;
    const runTokens = sameRun ? previousRunTokens(previous) : { input: 0, output: 0 };
    this.#tokens = new TokenTally(runTokens);
    this.#snap = initialSnapshot({
      runId: this.runId,
      packet: o.packet,
      storeRoot: this.#paths.root,
      workspace: o.workspace,
      selectedCount: o.selectedCount,
      maxSteers: o.maxSteers,
      view: this.#view,
      startedAt: sameRun && typeof previous?.run_started_at === "string" ? previous.run_started_at : now,
      lastSeq: this.#seq,
      eventCount: sameRun ? this.#seq : 0,
      runTokens,
      hostname: localHostname(),
    });
    this.#writeSnapshot();
    this.record(
      {
        type: "run_opened",
        data: { packet: o.packet.name, selection: o.selection ?? [], resumed: o.resumed, view: { ...this.#view } },
      },
      this.#ctx,
    );
    this.#events.flush();
    this.#waker.start();
  }

  /**
   * Retention (docs/reference/control-plane.md §5.5): remove the archives of earlier runs the policy does not keep
   * (never this run's segments), with one `retention` entry in the audit log and a notice the user sees.
   */
  #retain(policy: RetentionPolicy): void {
    const pruned = pruneArchives(this.#opts.storeRoot, this.runId, policy);
    if (pruned.length === 0) return;
    const bytes = pruned.reduce((a, r) => a + r.bytes, 0);
    const reason = `kept the newest ${policy.keepRuns} earlier runs` +
      (Number.isFinite(policy.keepBytes) ? `, at most ${Math.round(policy.keepBytes / 1048576)} MiB` : "");
    try {
      this.#audit.append(this.#entry({
        key: `retention:${this.runId}:${nowIso()}`,
        request: null,
        command: "retention",
        params: {
          pruned,
          keep_runs: policy.keepRuns,
          keep_bytes: Number.isFinite(policy.keepBytes) ? policy.keepBytes : null,
        },
        author: "runner",
        outcome: "applied",
        reason,
        prompt_id: null,
        attempt: null,
      }));
    } catch (e) {
      this.#hooks.notice(`retention not logged: ${errorMessage(e)}`, "warning");
    }
    this.#hooks.notice(
      `pruned the event archives of ${pruned.length} earlier ${pruned.length === 1 ? "run" : "runs"} (${
        (bytes / 1048576).toFixed(1)
      } MiB): ${reason}`,
      "info",
    );
  }

  /**
   * Steers left `accepted` by a dead runner each get a final entry, under the run that accepted them: this runner
   * holds the lease, so no runner of any run id can deliver them any more (a plain `run` after a kill opens a new run
   * id, and closes the dead run's steers as `run --remaining` does). A steer whose intervention record was written
   * before its runner stopped was delivered: it is logged `applied` from that record; any other is `rejected`.
   */
  #reconcile(entries: Record<string, unknown>[]): void {
    const open = new Map<string, Record<string, unknown>>();
    for (const e of entries) {
      if (e.command !== "steer" || typeof e.request !== "string") continue;
      if (e.outcome === "accepted") open.set(e.request, e);
      else if (e.outcome === "applied" || e.outcome === "rejected") open.delete(e.request);
    }
    const delivered = deliveriesOf(this.#opts.storeRoot, new Set(open.keys()));
    for (const [request, e] of open) {
      const author = typeof e.author === "string" ? e.author : "unknown";
      const d = delivered.get(request);
      if (d) {
        this.#audit.append(
          this.#entry({
            run_id: d.run_id,
            key: `${request}:applied`,
            request,
            command: "steer",
            params: { text: d.text, delivery: d.delivery },
            author,
            outcome: "applied",
            reason: `delivered at ${d.at} (its intervention record); logged when the next runner opened`,
            prompt_id: d.prompt,
            attempt: typeof d.attempt === "number" ? d.attempt : null,
          }),
        );
        continue;
      }
      this.#audit.append(
        this.#entry({
          run_id: typeof e.run_id === "string" ? e.run_id : this.runId,
          key: `${request}:rejected`,
          request,
          command: "steer",
          params: isRecord(e.params) ? e.params : {},
          author,
          outcome: "rejected",
          reason: "runner stopped before the steer was delivered",
          prompt_id: typeof e.prompt_id === "string" ? e.prompt_id : null,
          attempt: typeof e.attempt === "number" ? e.attempt : null,
        }),
      );
    }
  }

  #entry(e: Omit<LogEntry, "at" | "run_id" | "prompt_id" | "attempt"> & Partial<LogEntry>): LogEntry {
    return {
      at: nowIso(),
      key: e.key,
      request: e.request,
      run_id: e.run_id !== undefined ? e.run_id : this.runId,
      command: e.command,
      params: e.params,
      author: e.author,
      outcome: e.outcome,
      reason: e.reason,
      prompt_id: e.prompt_id !== undefined ? e.prompt_id : this.#snap?.prompt_id ?? null,
      attempt: e.attempt !== undefined ? e.attempt : this.#snap?.attempt ?? null,
    };
  }

  record(event: ProviderEvent | RunnerEvent, ctx: EventContext): Envelope {
    this.#ctx = ctx;
    const envelope = {
      seq: ++this.#seq,
      at: nowIso(),
      run_id: this.runId,
      origin: isProviderEventType(event.type) ? "provider" : "runner",
      type: event.type,
      prompt_id: ctx.prompt_id,
      attempt: ctx.attempt,
      stream: ctx.stream,
      provider: ctx.provider,
      session_id: ctx.session_id,
      timestamp: "timestamp" in event && typeof event.timestamp === "string" ? event.timestamp : null,
      ...(event.hidden ? { hidden: true as const } : {}),
      data: event.data,
    } as Envelope;
    if (this.#closed) return envelope;
    this.#events.push(encodeEnvelope(envelope));
    this.#fold(envelope);
    this.#schedule.changed();
    this.#opts.onRecord?.(envelope);
    return envelope;
  }

  #fold(e: Envelope): void {
    const s = this.#snap;
    s.event_count += 1;
    s.last_seq = e.seq;
    if (e.session_id) s.session_id = e.session_id;
    const t = this.#tokens;
    if (e.type === "tool_call_started") s.tool_count += 1;
    else if (e.type === "run_started") t.streamStarted();
    else if (e.type === "token_usage_updated") t.usage(e.data);
    else if (e.type === "run_completed" && e.data.token_usage) t.usage(e.data.token_usage);
    else return;
    this.#tokensToSnapshot();
  }

  /** The tally's figures into the snapshot (docs/status.md: attempt and run tokens). */
  #tokensToSnapshot(): void {
    const s = this.#snap;
    const a = this.#tokens.attempt;
    const r = this.#tokens.run;
    s.input_tokens = a.input;
    s.output_tokens = a.output;
    s.run_input_tokens = r.input;
    s.run_output_tokens = r.output;
  }

  transition(patch: SnapshotPatch): void {
    if (this.#closed) return;
    const s = this.#snap;
    const promptChanged = patch.prompt_id !== undefined && patch.prompt_id !== s.prompt_id;
    const attemptChanged = promptChanged || (patch.attempt !== undefined && patch.attempt !== s.attempt) ||
      (patch.attempt_started_at !== undefined && patch.attempt_started_at !== s.attempt_started_at);
    if (attemptChanged) {
      this.#tokens.attemptStarted();
      s.tool_count = 0;
      this.#tokensToSnapshot();
    }
    if (promptChanged) {
      s.steer_count = this.#steers.count(patch.prompt_id ?? "");
      s.steers_pending = 0;
      s.last_verification = null;
    }
    for (const [k, v] of Object.entries(patch)) {
      if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
    }
    // Written now when the last write is older than the coalescing window, else with the next write or by the window's
    // timer (src/control/snapshot_schedule.ts) — a session going live or ending and a prompt boundary included, so a
    // session that starts after a quiet spell (any real one) is in the file at once, and a run of short prompts writes
    // about once a window instead of three times a prompt. Readers poll the file, so they see the latest state at most
    // about one window late. Not fsynced: the snapshot is a view rebuilt at the next open, so a crash needs nothing of
    // it.
    this.#schedule.transition();
  }

  #writeSnapshot(opts: { fsync?: boolean } = {}): void {
    const s = this.#snap;
    const now = Date.now();
    s.updated_at = new Date(now).toISOString();
    s.elapsed_ms = elapsedSince(s.run_started_at, now);
    s.prompt_elapsed_ms = elapsedSince(s.prompt_started_at, now);
    s.attempt_elapsed_ms = elapsedSince(s.attempt_started_at, now);
    s.view = { ...this.#view };
    this.#schedule.wrote();
    this.#snapDue = false;
    meterWrite("snapshot");
    // The snapshot never names a seq that is not in the file yet: flush, then serialise, then hand the bytes to the
    // writer (src/control/snapshot_writer.ts), which replaces the file off this thread, in order.
    this.#events.flush();
    this.#writer.submit(prettyJson(s), opts);
  }

  /** A snapshot write failed: one notice per run, and the next write still happens. */
  #snapshotFailed(e: unknown): void {
    if (!this.#snapshotError) this.#hooks.notice(`control snapshot not written: ${errorMessage(e)}`, "warning");
    this.#snapshotError = true;
  }

  /** Test seam: resolves once every snapshot handed to the writer is in the file (or has failed). */
  settled(): Promise<void> {
    return this.#writer.idle();
  }

  /**
   * A closed plane never wakes anyone: it has no requests left to consume. (Resolving at once would let a loop that
   * races a stream against `wake()` spin in microtasks forever, starving signals and timers.)
   */
  wake(): Promise<void> {
    return this.#closed ? new Promise<void>(() => {}) : this.#waker.wait();
  }

  boundary(): void {
    if (this.#closed) return;
    if (this.#opts.flushEveryBoundary) this.#events.flush();
    else this.#events.flushIfDue();
    const now = Date.now();
    this.#waker.probe(now);
    if (!this.#waker.takeDirty() && now - this.#lastScan < this.#waker.pollMs) return;
    traceStage("scan", "-");
    this.#lastScan = now;
    this.#scan();
  }

  /**
   * One pass over `requests/`. Each applied request is a state transition, but a burst is written as one snapshot
   * when the pass ends (still inside the boundary) rather than one per request, and the events the pass recorded
   * (`view_changed`, `steer_*`) are flushed at once instead of waiting for the 20 ms timer.
   */
  #scan(): void {
    this.#scanning = true;
    try {
      this.#inbox.scan();
    } finally {
      this.#scanning = false;
      if (this.#snapDue && !this.#closed) this.#writeSnapshot();
      this.#events.flush();
    }
  }

  /** A transition caused by a request: written now, or once at the end of the current scan. */
  #transitioned(): void {
    if (this.#scanning) this.#snapDue = true;
    else this.#writeSnapshot();
  }

  #decideView(name: string, params: Record<string, unknown>, author: string): Decision {
    const v = validateView(params);
    if (!v.ok) return { command: "set_view", params, author, outcome: "rejected", reason: v.reason };
    return {
      command: "set_view",
      params,
      author,
      outcome: "applied",
      reason: null,
      apply: () => {
        this.#view = { ...this.#view, ...v.changed };
        this.#hooks.applyView({ ...this.#view }, { ...v.changed });
        this.record({ type: "view_changed", data: { view: { ...this.#view }, author, request: name } }, this.#ctx);
        this.#transitioned();
      },
    };
  }

  #decideSteer(name: string, params: Record<string, unknown>, author: string): Decision {
    const gate = this.#hooks.steerGate();
    // The runner's prompt (else the snapshot's): its budget and its delivered steers plus every reservation.
    const id = gate.promptId ?? this.#snap.prompt_id ?? "";
    const acc = steerAcceptance(params.text, {
      promptRunning: gate.promptRunning,
      sessionLive: gate.sessionLive,
      used: this.#steers.used(id),
      max: this.#steers.max(id),
    });
    if (!acc.ok) {
      return {
        command: "steer",
        params,
        author,
        outcome: "rejected",
        reason: acc.reason,
        apply: () => this.#refused(name, author, acc.reason),
      };
    }
    return {
      command: "steer",
      params,
      author,
      outcome: "accepted",
      reason: null,
      apply: () => {
        const steer: AcceptedSteer = { request: name, author, text: acc.text, accepted_at: nowIso() };
        if (params.interrupt === true) steer.interrupt = true;
        this.#steers.reserve(steer);
        this.#snap.steers_pending = this.#steers.pending;
        this.#hooks.steerAccepted(steer);
        this.record({
          type: "steer_accepted",
          data: { request: name, author, text_chars: acc.text.length, pending: this.#steers.pending },
        }, this.#ctx);
        this.#hooks.notice(`↳ steer accepted: ${steerFirstLine(acc.text)}`, "warning");
        this.#transitioned();
      },
    };
  }

  #refused(request: string, author: string, reason: string): void {
    if (!this.#closing) this.record({ type: "steer_refused", data: { request, author, reason } }, this.#ctx);
    this.#hooks.notice(`↳ steer refused: ${reason}`, "error");
    this.#transitioned();
  }

  steersDelivered(steers: AcceptedSteer[], info: SteerDelivery): void {
    // The ledger counts even after close (a second Ctrl-C closes the plane mid-delivery); nothing is written then.
    const counts = steers.map((steer) => this.#steers.delivered(info.prompt_id, steer, info.delivery));
    if (this.#closed) return;
    for (const [i, steer] of steers.entries()) {
      const count = counts[i] ?? this.#steers.count(info.prompt_id);
      const record: InterventionRecord = {
        at: nowIso(),
        run_id: this.runId,
        prompt: info.prompt_id,
        attempt: info.attempt,
        author: steer.author,
        text: steer.text,
        lane: info.lane,
        delivery: info.delivery,
        interrupted: info.interrupted,
        ...(steer.interrupt ? { interrupt: true } : {}),
        batch: steers.length,
        request: steer.request,
        accepted_at: steer.accepted_at,
        session_id: info.session_id,
      };
      // The steer reached the session whatever happens to its intervention record: its final `applied` entry is
      // written either way (a missing one left it `accepted`, and the next open logged it rejected as undelivered).
      let recordError: string | null = null;
      try {
        appendStoreLineSync(this.#paths.interventionsFile(info.prompt_id), JSON.stringify(record), { fsync: true });
      } catch (e) {
        recordError = errorMessage(e);
        this.#hooks.notice(`steer record not written: ${recordError}`, "warning");
      }
      try {
        this.#audit.append(this.#entry({
          key: `${steer.request}:applied`,
          request: steer.request,
          command: "steer",
          params: {
            text: steer.text,
            delivery: info.delivery,
            ...(recordError !== null ? { intervention_record: `not written: ${recordError}` } : {}),
          },
          author: steer.author,
          outcome: "applied",
          reason: null,
          prompt_id: info.prompt_id,
          attempt: info.attempt,
        }));
      } catch (e) {
        this.#hooks.notice(`steer delivery not logged: ${errorMessage(e)}`, "warning");
      }
      this.record({
        type: "steer_delivered",
        data: { request: steer.request, author: steer.author, delivery: info.delivery, count },
      }, this.#ctx);
    }
    if (this.#snap.prompt_id === info.prompt_id) this.#snap.steer_count = this.#steers.count(info.prompt_id);
    this.#snap.steers_pending = this.#steers.pending;
    this.#writeSnapshot();
  }

  steerRejected(steer: AcceptedSteer, reason: string): void {
    if (this.#closed) return;
    this.#steers.rejected(steer);
    this.#snap.steers_pending = this.#steers.pending;
    try {
      this.#audit.append(this.#entry({
        key: `${steer.request}:rejected`,
        request: steer.request,
        command: "steer",
        params: { text: steer.text },
        author: steer.author,
        outcome: "rejected",
        reason,
      }));
    } catch (e) {
      this.#hooks.notice(`steer refusal not logged: ${errorMessage(e)}`, "warning");
    }
    this.#refused(steer.request, steer.author, reason);
  }

  guardrail(params: { tool: string; allowed_tools: string[]; rule: string }): void {
    if (this.#closed) return;
    try {
      this.#audit.append(this.#entry({
        key: `guardrail:${this.#seq}`,
        request: null,
        command: "guardrail",
        params: { ...params },
        author: "runner",
        outcome: "received",
        reason: params.rule,
      }));
    } catch (e) {
      this.#hooks.notice(`guardrail not logged: ${errorMessage(e)}`, "warning");
    }
  }

  agentControl(e: AgentControlEntry): void {
    if (this.#closed) return;
    try {
      this.#audit.append(this.#entry({
        key: e.key,
        request: null,
        command: e.kind === "progress" ? "agent_progress" : "agent_directive",
        params: { action: e.kind, iteration: e.iteration, ...e.params, ...(e.default ? { default: true } : {}) },
        author: e.author,
        outcome: e.outcome,
        reason: e.reason,
        prompt_id: e.prompt_id,
        attempt: e.attempt,
      }));
    } catch (err) {
      this.#hooks.notice(`agent-control record not logged: ${errorMessage(err)}`, "warning");
    }
    const data = {
      kind: e.kind,
      outcome: e.outcome,
      reason: e.reason,
      iteration: e.iteration,
      author: e.author,
      ...(e.default ? { default: true as const } : {}),
    };
    this.record({ type: "agent_control", data }, this.#ctx);
  }

  /** Test seam: {@link syncRecord} with the snapshot written now if anything changed, then wait until it is in the file. */
  sync(): Promise<void> {
    if (!this.#closed && this.#schedule.dirty) this.#writeSnapshot();
    this.syncRecord();
    return this.#writer.idle();
  }

  syncRecord(): void {
    if (this.#closed) return;
    // A prompt boundary is a state transition like the others (see transition()): the outcome and the completed count
    // are written now when the window since the last write has passed, else by its timer.
    if (this.#schedule.dirty) this.#schedule.transition();
    this.#events.sync();
    this.#audit.sync();
  }

  async close(status: "completed" | "failed", reason: string | null): Promise<void> {
    if (this.#closed || this.#closing) return;
    for (const steer of this.#steers.reservations()) this.steerRejected(steer, "run has finished");
    this.record({ type: "run_finished", data: { status, reason } }, this.#ctx);
    this.#closing = true;
    this.#schedule.stop();
    Object.assign(this.#snap, { status, stage: "closed", reason, session_live: false });
    this.#events.flush();
    this.#writeSnapshot({ fsync: true });
    // The closed snapshot is in the file before the last scan, so a request left after it can only come from a client
    // that read the snapshot before the run closed (a stale request, answered by the next control writer). Without
    // this wait the writer's queue kept the file saying `running` through the final write and its fsync, after the
    // scan: requests made then went unanswered until a later command.
    await this.#writer.idle();
    this.#scan();
    this.#closed = true;
    this.#events.close();
    this.#audit.close();
    this.#inbox.release();
    await this.#writer.idle();
    await this.#events.syncedAheadIdle();
    await this.#waker.stop();
    flushStageTrace();
  }

  /** Test seam: the audit writer (to simulate failed receipt writes). */
  get audit(): AuditWriter {
    return this.#audit;
  }
}

/**
 * Open the control plane of a run (docs/reference/control-plane.md §6.5). Throws when the control directory cannot be created
 * (the run then aborts with exit 1).
 */
export async function openPlane(
  opts: OpenPlaneOptions,
): Promise<RunnerPlane & { readonly audit: AuditWriter; settled(): Promise<void>; sync(): Promise<void> }> {
  const plane = new FilePlane(opts);
  plane.open();
  // The first snapshot is in the file when the plane is handed over: a reader polling the store never misses a run.
  await plane.settled();
  return plane;
}

/** A plane for runs without a store root: stamps envelopes and tracks the view, but writes nothing at all. */
export { nullPlane } from "./null_plane.ts";
