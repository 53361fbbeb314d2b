/**
 * The state one run shares across prompts, attempts and streams: the plane, the lease, the state store, the live
 * view and renderer, the output streams, and the run-wide flags (interrupted, halted). Decisions live elsewhere.
 */
import type { TextOut } from "../util/text_out.ts";
import type { Lease } from "../store/lease.ts";
import type { EventContext, RunnerPlane } from "../control/plane_types.ts";
import type { Envelope, RunnerEvent, View } from "../events/types.ts";
import type { LaneSession } from "../lanes/types.ts";
import type { Packet, Prompt } from "../packet/types.ts";
import type { Renderer, TextSink } from "../render/types.ts";
import { painter } from "../render/ansi.ts";
import type { StateStore } from "./state.ts";
import { appendProgress, type ProgressMap, type ProgressStatus } from "../store/progress.ts";
import { nowIso } from "../util/time.ts";
import { promptRepos } from "./dirty.ts";

/** Commit policy of a run (docs/reference/runner.md §9). */
export type CommitPolicy = "git" | "noop" | "none";

/** Output streams and their modes. */
export interface RunIo {
  stdout: TextOut;
  stderr: TextOut;
  json: boolean;
  color: boolean;
}

/** The live stream, when one is running. */
export interface LiveStream {
  session: LaneSession;
  promptId: string;
  attempt: number;
  cwd: string;
  renderer: Renderer;
  /** Lane name (for log markers). */
  provider: string;
}

/** Shared run state. */
export class RunContext {
  /** The live view (docs/reference/control-plane.md §7): seeds every later renderer. */
  view: View;
  /** The current prompt and attempt (null before the first attempt). */
  promptId: string | null = null;
  attempt: number | null = null;
  /** The live stream. */
  live: LiveStream | null = null;
  /** The open attempt log (ANSI-stripped transcript). */
  attemptLog: TextSink | null = null;
  /** First SIGINT/SIGTERM seen. */
  interrupted = false;
  /** Ids completed in this run. */
  completedThisRun = new Set<string>();
  /** Ids whose contract already passed before their first session ran (src/run/vacuous.ts). */
  vacuous = new Set<string>();
  /**
   * The current prompt's pre-existing uncommitted paths by canonical repo root (docs/keep_going.md): kept out of
   * `changed_paths_only`, the commit and every repair prompt.
   */
  preexisting: Record<string, string[]> = {};
  /** The plane; set once opened. */
  plane!: RunnerPlane;
  readonly paint: ReturnType<typeof painter>;

  constructor(
    readonly packet: Packet,
    readonly storeRoot: string,
    public runId: string,
    readonly state: StateStore,
    public progress: ProgressMap,
    readonly lease: Lease | null,
    readonly io: RunIo,
    readonly opts: {
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
    },
  ) {
    this.view = { ...packet.options.view };
    this.paint = painter(io.color);
  }

  /** Whether this run writes its store root (false for `--runtime-store memory|noop`). */
  get persist(): boolean {
    return this.opts.persist !== false;
  }

  /** Append a progress line (docs/reference/runner.md §10.3) and note it in {@link RunContext.progress}; memory-only runs skip the file. */
  async appendProgress(id: string, status: ProgressStatus, suffix: string | null): Promise<void> {
    if (this.persist) await appendProgress(this.storeRoot, id, status, suffix);
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
      // A closed plane (a second Ctrl-C closes it mid-work) wakes at once: yield to the event loop, never spin.
      await new Promise((r) => setTimeout(r, 0));
    }
    return await done;
  }

  /** A human output line (stdout and the attempt log); dropped from stdout under `--json`. */
  say(line: string, color?: "green" | "red" | "yellow" | "dim"): void {
    if (!this.io.json) this.io.stdout.write((color ? this.paint(color, line) : line) + "\n");
    this.attemptLog?.write(line + "\n");
  }

  /** An error or warning line on stderr (also copied to the attempt log). */
  err(line: string): void {
    this.io.stderr.write(line + "\n");
    this.attemptLog?.write(line + "\n");
  }

  /** A marker line in the attempt log only (docs/reference/runner.md §10.4). */
  marker(line: string): void {
    this.attemptLog?.write(line + "\n");
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
