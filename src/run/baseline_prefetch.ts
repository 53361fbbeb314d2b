/**
 * The next prompt's baseline read, started as soon as the current prompt's work is final (docs/keep_going.md
 * "Baseline"; docs/bench.md "Per-prompt cost"). A prompt's baseline is one read-only `git status` per target repo
 * (src/run/dirty.ts `captureBaseline()`); the runner waited for it at the prompt's start with nothing else to do, while
 * the previous prompt's last records (progress.log, its result, the journal's `prompt_finished`, the boundary's
 * snapshot) were written just before, in turn. Those writes are all under the store, which is never part of a
 * baseline, and nothing of the runner's touches a target repo between the previous prompt's commit (or its reset, for
 * a failed prompt) and the next prompt's start, so the same read started at that point reads the same thing, and the
 * writes and the read overlap. The writes keep their order; only a read moves earlier.
 *
 * Used once per prompt: {@link BaselinePrefetch.expect} names the prompt that comes next in the run's order,
 * {@link BaselinePrefetch.start} starts its read (the first call only), {@link BaselinePrefetch.take} hands it to that
 * prompt's start. A read for any other prompt (the next one was blocked, or the loop stopped) is dropped unused, and the
 * prompt reads its own baseline at its start, as without a prefetch.
 *
 * Read beside the verification (docs/keep_going.md): when no commit follows and nothing left to run can write into the
 * repos, the work is final when the session ends, and the read starts before the verification (src/run/prompt_chain.ts
 * `readsAheadOfVerdict()`); a verdict that does not complete the prompt as it was read {@link BaselinePrefetch.drop}s it.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { canonicalPath } from "../contract/paths.ts";
import { branchStatus } from "../contract/git.ts";
import { packetContract } from "../contract/enforced.ts";
import { traceStage } from "../util/stage_trace.ts";
import { type PrefetchedReads, promptRepos, type StatusRead } from "./dirty.ts";
import { hidingRoots, startHidingReads } from "./hiding_baseline.ts";

/** The next prompt's baseline read, started early (see the module comment). */
export class BaselinePrefetch {
  #packet: Packet | null = null;
  #next: Prompt | null = null;
  #started: { promptId: string; reads: PrefetchedReads } | null = null;

  /** `read`: one repo's baseline read, with its ignored paths when `ignored` (a test counts them). */
  constructor(
    private readonly read: (repoPath: string, ignored: boolean) => StatusRead = (path, ignored) =>
      branchStatus(path, undefined, ignored),
  ) {}

  /** The prompt that runs after the current one (null: none). Drops a read started for any other prompt. */
  expect(packet: Packet, next: Prompt | null): void {
    this.#packet = packet;
    this.#next = next;
  }

  /**
   * The current prompt's work is final (committed, or reset after a failure): start the expected prompt's reads.
   * Only the first call after {@link expect} starts anything.
   */
  start(): void {
    const prompt = this.#next;
    if (prompt === null || this.#packet === null) return;
    if (this.#started?.promptId === prompt.id) return;
    traceStage("baseline_read_ahead", prompt.id);
    // The hiding state of the repos its packet contract's git clauses judge (none: nothing read); an amendment that
    // adds one is read at the prompt's start.
    const hiding = startHidingReads(hidingRoots(this.#packet, prompt, packetContract(prompt)));
    for (const read of hiding.values()) read.catch(() => {});
    const status = new Map<string, StatusRead>();
    for (const repo of promptRepos(this.#packet, prompt)) {
      const root = canonicalPath(repo.path);
      if (status.has(root)) continue;
      const read = this.read(repo.path, hiding.has(root));
      read.catch(() => {}); // dropped unused: no unhandled rejection (branchStatus does not throw; this is a guard)
      status.set(root, read);
    }
    const ignored = new Set([...status.keys()].filter((r) => hiding.has(r)));
    this.#started = { promptId: prompt.id, reads: { status, ignored, hiding } };
  }

  /**
   * Forget the reads started so far: they were started beside a verification whose verdict did not make the work final
   * as it was read (a retry, a repair, a failure's reset, a command run by the checks). A later {@link start} reads again.
   */
  drop(): void {
    this.#started = null;
  }

  /** The reads started for `promptId`, once; null when none were (the prompt then reads its own). */
  take(promptId: string): PrefetchedReads | null {
    const started = this.#started;
    this.#started = null;
    if (this.#next?.id === promptId) this.#next = null;
    return started?.promptId === promptId ? started.reads : null;
  }
}
