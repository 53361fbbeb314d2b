/**
 * The state one run shares across prompts, attempts and streams: the plane, the lease, the state store, the live
 * view and renderer, the output streams, and the run-wide flags (interrupted, halted). Decisions live elsewhere.
 */
import type { TextOut } from "../cli/frame.ts";
import type { Lease } from "../control/lease.ts";
import type { EventContext, RunnerPlane } from "../control/plane_types.ts";
import type { Envelope, RunnerEvent, View } from "../events/types.ts";
import { encodeEnvelope } from "../events/json.ts";
import type { LaneSession } from "../lanes/types.ts";
import type { Packet, Prompt } from "../packet/types.ts";
import type { Renderer, TextSink } from "../render/types.ts";
import { painter } from "../render/ansi.ts";
import type { StateStore } from "./state.ts";
import type { ProgressMap } from "./progress.ts";

/** Commit policy of a run (runner.md §9). */
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
  /** The live view (control-plane.md §7): seeds every later renderer. */
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
      /** Random source for jitter. */
      random: () => number;
    },
  ) {
    this.view = { ...packet.options.view };
    this.paint = painter(io.color);
  }

  /** Highest envelope seq printed under `--json`, and seqs skipped (recorded by the plane itself). */
  jsonLast = 0;
  jsonMissing = new Set<number>();

  /** Print one envelope line under `--json`, remembering gaps for {@link RunContext.jsonBacklog}. */
  jsonEmit(seq: number, line: string): void {
    for (let s = this.jsonLast + 1; s < seq; s++) this.jsonMissing.add(s);
    if (seq > this.jsonLast) this.jsonLast = seq;
    this.jsonMissing.delete(seq);
    this.io.stdout.write(line + "\n");
  }

  /** Print envelopes recorded by the plane itself (not yet printed) from `events.jsonl` text. */
  jsonBacklog(eventsText: string): void {
    for (const line of eventsText.split("\n")) {
      if (!line.trim()) continue;
      let seq: unknown;
      try {
        seq = (JSON.parse(line) as { seq?: unknown }).seq;
      } catch {
        continue;
      }
      if (typeof seq !== "number") continue;
      if (seq > this.jsonLast || this.jsonMissing.has(seq)) this.jsonEmit(seq, line);
    }
  }

  /** Record a runner event through the plane (and print it under `--json`). */
  record(event: RunnerEvent, stamp: EventContext): Envelope {
    const env = this.plane.record(event, stamp);
    if (this.io.json) this.jsonEmit(env.seq, encodeEnvelope(env));
    return env;
  }

  /**
   * Await work that may take a while (verification commands, commits) while still consuming control requests:
   * every wake-up of the plane is a boundary (control-plane.md §6.1).
   */
  async withBoundaries<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    while (!settled) {
      await Promise.race([done.catch(() => {}), this.plane.wake()]);
      if (!settled) this.plane.boundary();
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

  /** A marker line in the attempt log only (runner.md §10.4). */
  marker(line: string): void {
    this.attemptLog?.write(line + "\n");
  }

  /** Session working directory and the other target repos of a prompt. */
  reposFor(prompt: Prompt): { name: string; path: string }[] {
    const byName = new Map(this.packet.repos.map((r) => [r.name, r.path]));
    const named = prompt.targets.map((t) => ({ name: t, path: byName.get(t) ?? "" })).filter((r) => r.path !== "");
    if (named.length) return named;
    if (this.packet.defaultRepo) return [{ name: this.packet.defaultRepo.name, path: this.packet.defaultRepo.path }];
    return [{ name: "default", path: this.packet.dir }];
  }

  /** Repo index for the verifier and the simulated lane: name → root, plus `packet`. */
  repoIndex(): Record<string, string> {
    const index: Record<string, string> = {};
    for (const r of this.packet.repos) index[r.name] = r.path;
    index.packet = this.packet.dir;
    return index;
  }
}
