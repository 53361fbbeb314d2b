/**
 * What one run shares across prompts, attempts and streams, in three layers built in order:
 * - {@link RunEnv}: the immutable run environment (packet, store root, run id, state store, lease, output streams,
 *   options) — fixed before the run starts;
 * - {@link LiveSlot} (src/run/live_slot.ts): what changes while it runs, each field behind an explicit begin/end;
 * - {@link RunScope} (environment + slot): what exists before the control plane — the steer desk and the plane
 *   hooks are built on it — and {@link RunContext}, the scope plus the opened plane and the run's tallies.
 * The plane is opened before the context exists, so nothing reaches a plane that is not there yet. Decisions live
 * elsewhere.
 */
import { ContractGuard } from "./contract_guard.ts";
import type { HidingState } from "../contract/mod.ts";
import type { TextOut } from "../util/mod.ts";
import type { Lease } from "../store/mod.ts";
import type { EventContext, RunnerPlane } from "../control/runner_api.ts";
import type { AgentControlSnap } from "../control/mod.ts";
import type { Envelope, RunnerEvent, View } from "../events/mod.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import type { TextSink } from "../render/mod.ts";
import { painter } from "../render/ansi.ts";
import type { StateStore } from "./state.ts";
import type { ProgressMap, ProgressStatus } from "../store/mod.ts";
import { appendProgress } from "../store/progress_append.ts";
import { nowIso } from "../util/time.ts";
import { promptRepos } from "./dirty.ts";
import { BaselinePrefetch } from "./baseline_prefetch.ts";
import { RunHiding } from "./hiding_run.ts";
import { PreservedRefs } from "./preserve.ts";
import type { LiveSlot, LiveStream } from "./live_slot.ts";
import { sparesFor } from "./spare_files.ts";
import { storePaths } from "../store/paths.ts";
import { escapeControlKeepLines } from "../util/escape.ts";

export type { LiveStream } from "./live_slot.ts";

/** Commit policy of a run (docs/reference/runner.md §9). */
export type CommitPolicy = "git" | "noop" | "none";

/** Output streams and their modes. */
export interface RunIo {
  stdout: TextOut;
  stderr: TextOut;
  json: boolean;
  color: boolean;
}

/** Run-wide options decided before the run starts. */
export interface RunOptions {
  commit: CommitPolicy;
  keepGoing: boolean;
  /** The first attempt of each prompt is a repair (the `repair` command). */
  repairFirst: boolean;
  /** The run id was resumed (`run --remaining`): interrupted sessions continue in mode `resume`. */
  resumed?: boolean;
  /**
   * False for `--runtime-store memory|noop` (docs/reference/runner.md §1): nothing is written under the store root — no
   * progress, logs, events files or verification history.
   */
  persist?: boolean;
  /** Random source for jitter. */
  random: () => number;
}

/** The immutable environment of one run. */
export class RunEnv {
  /** Colours for human output lines. */
  readonly paint: ReturnType<typeof painter>;
  /** The preserved refs of the target repos, listed once per run (src/run/preserve.ts). */
  readonly preserved = new PreservedRefs();
  /** Each session's prompt file, noted before it and compared after it (src/run/contract_guard.ts). */
  readonly contractGuard = new ContractGuard();

  constructor(
    readonly packet: Packet,
    readonly storeRoot: string,
    readonly runId: string,
    readonly state: StateStore,
    readonly lease: Lease | null,
    readonly io: RunIo,
    readonly opts: Readonly<RunOptions>,
  ) {
    this.paint = painter(io.color);
  }

  /** Whether this run writes its store root (false for `--runtime-store memory|noop`). */
  get persist(): boolean {
    return this.opts.persist !== false;
  }

  /** Session working directory and the other target repos of a prompt. */
  reposFor(prompt: Prompt): { name: string; path: string }[] {
    return promptRepos(this.packet, prompt);
  }

  /** Repo index for the verifier and the simulated lane: name → root, plus `packet`. */
  repoIndex(): Record<string, string> {
    const index: Record<string, string> = {};
    for (const r of this.packet.repos) index[r.name] = r.path;
    index.packet = this.packet.dir;
    return index;
  }
}

/**
 * The environment and the live slot, read through one object (every getter is read-only: writes go through the
 * slot's begin/end methods), plus the human output lines, which also go to the slot's open attempt log.
 */
export class RunScope {
  constructor(readonly env: RunEnv, readonly slot: LiveSlot) {}

  /** The packet being run. */
  get packet(): Packet {
    return this.env.packet;
  }
  /** The store root (empty or unused when the run does not persist). */
  get storeRoot(): string {
    return this.env.storeRoot;
  }
  /** The run id. */
  get runId(): string {
    return this.env.runId;
  }
  /** The state store (state.json or in memory). */
  get state(): StateStore {
    return this.env.state;
  }
  /** The lease (null without a store root). */
  get lease(): Lease | null {
    return this.env.lease;
  }
  /** Output streams and their modes. */
  get io(): RunIo {
    return this.env.io;
  }
  /** Run-wide options. */
  get opts(): Readonly<RunOptions> {
    return this.env.opts;
  }
  /** Colours for human output lines. */
  get paint(): ReturnType<typeof painter> {
    return this.env.paint;
  }
  /** Whether this run writes its store root (false for `--runtime-store memory|noop`). */
  get persist(): boolean {
    return this.env.persist;
  }
  /** The live view. */
  get view(): View {
    return this.slot.view;
  }
  /** Each session's prompt file, noted before it and compared after it (src/run/contract_guard.ts). */
  get contractGuard(): ContractGuard {
    return this.env.contractGuard;
  }
  /** The current (or last) prompt. */
  get promptId(): string | null {
    return this.slot.promptId;
  }
  /** The current (or last) attempt. */
  get attempt(): number | null {
    return this.slot.attempt;
  }
  /** The live stream. */
  get live(): LiveStream | null {
    return this.slot.live;
  }
  /** The open attempt log. */
  get attemptLog(): TextSink | null {
    return this.slot.attemptLog;
  }
  /** The current prompt's pre-existing paths by repo root. */
  get preexisting(): Record<string, string[]> {
    return this.slot.preexisting;
  }
  /** The current prompt's hiding baseline by repo root (src/run/hiding_baseline.ts). */
  get hiding(): Record<string, HidingState> {
    return this.slot.hiding;
  }
  /** Whether the first SIGINT/SIGTERM was seen. */
  get interrupted(): boolean {
    return this.slot.interrupted;
  }
  /** Aborted by the first SIGINT/SIGTERM (verification commands stop on it). */
  get interruptSignal(): AbortSignal {
    return this.slot.interruptSignal;
  }

  /** Session working directory and the other target repos of a prompt. */
  reposFor(prompt: Prompt): { name: string; path: string }[] {
    return this.env.reposFor(prompt);
  }

  /** Repo index for the verifier and the simulated lane: name → root, plus `packet`. */
  repoIndex(): Record<string, string> {
    return this.env.repoIndex();
  }

  /**
   * End the live renderer's open line (a text run, a compact token line, a studio `◐` line) on stdout and in the
   * attempt log, so a whole line of the runner's own can follow. Nothing when no line is open.
   */
  breakStream(): void {
    const text = this.live?.renderer.breakLine() ?? "";
    if (text === "") return;
    if (!this.io.json) this.io.stdout.write(text);
    this.attemptLog?.write(text);
  }

  /**
   * A human output line (stdout and the attempt log); dropped from stdout under `--json`. Control characters other than
   * newline and tab — from a name, a provider's message — are shown escaped before the line is coloured.
   */
  say(raw: string, color?: "green" | "red" | "yellow" | "dim"): void {
    const line = escapeControlKeepLines(raw);
    this.breakStream();
    if (!this.io.json) this.io.stdout.write((color ? this.paint(color, line) : line) + "\n");
    this.attemptLog?.write(line + "\n");
  }

  /** An error or warning line on stderr (also copied to the attempt log), control characters escaped as by `say`. */
  err(raw: string): void {
    const line = escapeControlKeepLines(raw);
    this.breakStream();
    this.io.stderr.write(line + "\n");
    this.attemptLog?.write(line + "\n");
  }

  /** A marker line in the attempt log only (docs/reference/runner.md §10.4). */
  marker(line: string): void {
    this.attemptLog?.write(line + "\n");
  }
}

/** A run's scope once its control plane is open, with the run's tallies. */
export class RunContext extends RunScope {
  /** Ids completed in this run. */
  readonly completedThisRun = new Set<string>();
  /** Ids whose contract already passed before their first session ran (src/run/vacuous.ts). */
  readonly vacuous = new Set<string>();
  /** The next prompt's baseline read, started when the current prompt's work is final (src/run/baseline_prefetch.ts). */
  readonly baselines = new BaselinePrefetch();
  /** What git status hid in the judged repos when the run started (src/run/hiding_run.ts). */
  readonly runHiding = new RunHiding();

  /** The agent-control part of the snapshot (docs/agent-control.md §4); null without agent control. */
  agentSnap: AgentControlSnap | null = null;

  constructor(scope: RunScope, readonly plane: RunnerPlane, readonly progress: ProgressMap) {
    super(scope.env, scope.slot);
  }

  /** Replace the agent-control part of the snapshot and write it through the plane. */
  setAgentSnap(snap: AgentControlSnap | null): void {
    this.agentSnap = snap;
    this.plane.transition({ agent_control: snap });
  }

  /** Append a progress line (docs/reference/runner.md §10.3) and note it in {@link RunContext.progress}; memory-only runs skip the file. */
  async appendProgress(id: string, status: ProgressStatus, suffix: string | null): Promise<void> {
    if (this.persist) {
      const appended = appendProgress(this.storeRoot, id, status, suffix);
      // The runner waits while the line is fsynced: the next attempt's spare log files are made then, on a worker
      // thread (src/run/spare_files.ts), not while a session or a verification needs the machine.
      sparesFor(storePaths(this.storeRoot).logs)?.refill();
      await appended;
    }
    this.progress.set(id, { status, at: nowIso(), suffix });
  }

  /** Record a runner event through the plane (printed under `--json` by the plane's `onRecord`). */
  record(event: RunnerEvent, stamp: EventContext): Envelope {
    return this.plane.record(event, stamp);
  }

  /**
   * Await work that may take a while (verification commands, commits) while still consuming control requests:
   * every wake-up of the plane is a boundary (docs/reference/control-plane.md §6.1).
   */
  async withBoundaries<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    while (!settled) {
      await Promise.race([done.catch(() => {}), this.plane.wake()]);
      if (settled) break;
      this.plane.boundary();
      // Yield to the event loop between wake-ups, so a wake-up storm can never starve signals and timers.
      await new Promise((r) => setTimeout(r, 0));
    }
    return await done;
  }
}
