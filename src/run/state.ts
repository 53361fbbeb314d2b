/**
 * `state.json` (docs/reference/runner.md §10.2): per-prompt attempts and results, a view derived from what the runner
 * did. The runner keeps the document in memory; every change of a prompt entry is appended at once to
 * `state.pending.jsonl` (the whole entry, one line), and `state.json` itself is rewritten (atomically, compact JSON)
 * at most every {@link STATE_REWRITE_MS} ms — and no sooner than {@link STATE_REWRITE_SPACING} times the last
 * rewrite's own duration after it — on a whole-document change and when the run ends; then the pending file is
 * emptied. Readers merge the pending lines over `state.json` ({@link readState}), so a crash at any instant loses
 * nothing that was recorded. An unreadable or invalid file refuses the run (`state_store_invalid`, exit 1).
 */
import { storePaths } from "../store/paths.ts";
import { atomicWriteStoreChunks } from "../util/safe_fs.ts";
import { HeldAppender } from "../util/held_append.ts";
import { nowIso } from "../util/time.ts";
import { type AttemptRecord, emptyState, type PromptState, type StateDoc } from "./state_doc.ts";
import { readState, readStateText } from "./state_read.ts";
export { readState } from "./state_read.ts";
export { emptyState, pendingOf } from "./state_doc.ts";
export type {
  AttemptRecord,
  AttemptStatus,
  CommitClaim,
  CommitPending,
  CommitRecord,
  FailureRecord,
  PreservedRepoRecord,
  PromptResult,
  PromptState,
  PromptStatus,
  StateDoc,
  StreamRecord,
} from "./state_doc.ts";
import { atRest, docPieces, freezeEntry, FrozenEntry, type HeldEntry, thawEntry } from "./state_entries.ts";

/** The shortest interval between two rewrites of `state.json` while prompt entries change (docs/reference/runner.md §10.2). */
export const STATE_REWRITE_MS = 2000;

/**
 * A rewrite is followed by at least this many times its own duration before the next (while prompt entries change):
 * the document grows with the run (~2.5 KB per finished prompt), so with a fixed interval its rewrites would take a
 * growing share of the run (66 ms every 2 s at 10,000 prompts, docs/bench.md "Seventeenth pass"); spaced by their
 * own duration they stay under 1/50 of it at any size.
 */
export const STATE_REWRITE_SPACING = 50;

/**
 * Whether `state.json` is due for a rewrite, `sinceLastMs` after the end of the last one, which took `lastMs`: at
 * least `minMs` and {@link STATE_REWRITE_SPACING} (or `spacing`) times `lastMs` have passed.
 */
export function rewriteDue(
  sinceLastMs: number,
  lastMs: number,
  minMs: number,
  spacing = STATE_REWRITE_SPACING,
): boolean {
  return sinceLastMs >= Math.max(minMs, spacing * lastMs);
}

/**
 * The runner's handle on `state.json`: the document lives in memory (only the lease holder writes it). A prompt
 * change is appended to `state.pending.jsonl` before its promise resolves; the whole document is rewritten when
 * {@link rewriteDue} (after {@link STATE_REWRITE_MS}, and {@link STATE_REWRITE_SPACING} times the last rewrite's
 * duration), on {@link StateStore.update} and on {@link StateStore.flush}. Writes are serialised so concurrent updates
 * never lose each other.
 *
 * Memory stays flat in the number of prompts (issue #13): an entry with no attempt under way is held as compact text
 * with its verification report once (src/run/state_entries.ts), and the rewrite streams those texts to the file.
 */
export class StateStore {
  #chain: Promise<unknown> = Promise.resolve();
  readonly #memory: boolean;
  /** Prompt entries appended to the pending file since `state.json` was last rewritten. */
  #pending = 0;
  /** `state.pending.jsonl`, held open between appends while the path still names it (src/util/held_append.ts). */
  readonly #appender: HeldAppender;
  #tornPending = false;
  #lastRewrite = performance.now();
  /** How long the last rewrite took (ms). */
  #lastRewriteTook = 0;
  readonly #rewriteMs: number;
  readonly #spacing: number;
  #head!: Omit<StateDoc, "prompts">;
  #entries = new Map<string, HeldEntry<PromptState>>();
  #generation = 0;
  private constructor(
    readonly storeRoot: string,
    doc: StateDoc,
    memory = false,
    rewriteMs = STATE_REWRITE_MS,
    spacing = STATE_REWRITE_SPACING,
  ) {
    this.#memory = memory;
    this.#appender = new HeldAppender(storePaths(storeRoot).statePending);
    this.#rewriteMs = rewriteMs;
    this.#spacing = spacing;
    this.#hold(doc);
  }

  /** Hold a whole document: its top fields, and its entries (frozen when at rest). */
  #hold(doc: StateDoc): void {
    this.#generation++;
    const { prompts, ...head } = doc;
    this.#head = head;
    this.#entries = new Map();
    for (const [id, entry] of Object.entries(prompts)) {
      this.#entries.set(id, atRest(entry) ? freezeEntry(entry) : entry);
    }
  }

  /**
   * Open (and validate) the store's state file, with its pending entries merged. `rewriteMs` and `spacing` (tests)
   * replace {@link STATE_REWRITE_MS} and {@link STATE_REWRITE_SPACING}.
   */
  static async open(storeRoot: string, opts: { rewriteMs?: number; spacing?: number } = {}): Promise<StateStore> {
    const store = new StateStore(storeRoot, await readState(storeRoot), false, opts.rewriteMs, opts.spacing);
    await store.#notePending();
    return store;
  }

  async #notePending(): Promise<void> {
    // Entries a dead runner left pending are folded into state.json at the next rewrite; a torn last line (a crash
    // mid-append) is ended before the first append, so it never swallows a complete one.
    const text = await readStateText(storePaths(this.storeRoot).statePending) ?? "";
    this.#pending = text.length > 0 ? 1 : 0;
    this.#tornPending = text.length > 0 && !text.endsWith("\n");
  }

  /**
   * Read the files again (the runner opens the store before it holds the lease; a runner that finished meanwhile
   * may have written since). Only with nothing of this store's own pending.
   */
  async reload(): Promise<void> {
    if (this.#memory) return;
    await this.#serial(async () => {
      this.#hold(await readState(this.storeRoot));
      await this.#notePending();
    });
  }

  /**
   * A state store kept in memory only (`--runtime-store memory|noop`, docs/reference/runner.md §1): starts empty and never
   * touches a file, so attempt numbering and budgets still work within the run.
   */
  static memory(): StateStore {
    return new StateStore("", emptyState(), true);
  }

  /** Whether this store writes `state.json` (false for {@link StateStore.memory}). */
  get persistent(): boolean {
    return !this.#memory;
  }

  /**
   * The latest document (what `state.json` plus its pending entries say), built on each call: entries at rest are
   * fresh copies, so changing them changes nothing. For one prompt use {@link StateStore.entry}.
   */
  get current(): StateDoc {
    const prompts: Record<string, PromptState> = {};
    for (const [id, held] of this.#entries) prompts[id] = thawEntry(held);
    return { ...this.#head, prompts };
  }

  /** One prompt's entry (a copy when it is at rest), or undefined. */
  entry(promptId: string): PromptState | undefined {
    const held = this.#entries.get(promptId);
    return held === undefined ? undefined : thawEntry(held);
  }

  /**
   * Whether a prompt's entry may hold `commit_pending` (src/run/commit_pending.ts), without thawing an entry at rest:
   * the key's JSON text is looked for (a string value holding it is escaped, so a hit is the key or costs one thaw).
   */
  mayHoldCommitPending(promptId: string): boolean {
    return this.mayHold(promptId, "commit_pending");
  }

  /** Whether a prompt's entry may hold the field `key`, without thawing an entry at rest (as {@link mayHoldCommitPending}). */
  mayHold(promptId: string, key: "commit_pending" | "loaded_contract" | "hiding_left"): boolean {
    const held = this.#entries.get(promptId);
    if (held === undefined) return false;
    if (!(held instanceof FrozenEntry)) return held[key] !== undefined;
    return held.parts.some((p) => p.includes(`"${key}":`));
  }

  /** Counts the documents held: a reload makes anything derived from the entries stale. */
  get generation(): number {
    return this.#generation;
  }

  /** The ids of every prompt with an entry, in the order held. */
  ids(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** The attempts of one prompt (all runs). */
  attempts(promptId: string): AttemptRecord[] {
    return this.entry(promptId)?.attempts ?? [];
  }

  /** The text held for the prompts at rest, in UTF-16 units, and how many they are (tests: memory per prompt). */
  heldAtRest(): { prompts: number; units: number } {
    let prompts = 0, units = 0;
    for (const held of this.#entries.values()) {
      if (!(held instanceof FrozenEntry)) continue;
      prompts++;
      units += held.size;
    }
    return { prompts, units };
  }

  #serial(step: () => Promise<void> | void): Promise<void> {
    const next = this.#chain.then(step);
    this.#chain = next.catch(() => {});
    return next;
  }

  /** Rewrite `state.json` whole (compact JSON, atomic, written piece by piece), then empty the pending file. */
  async #rewrite(): Promise<void> {
    const paths = storePaths(this.storeRoot);
    const started = performance.now();
    await atomicWriteStoreChunks(paths.state, docPieces(this.#head, this.#entries), {
      failpoint: "state.before_rename",
    });
    // A crash between the rename and the truncation leaves pending lines that state.json already holds: merging them
    // again changes nothing (the last line per prompt is the entry as rewritten).
    if (this.#pending > 0) await Deno.truncate(paths.statePending, 0).catch(ignoreMissing);
    // Closed at every rewrite (every few seconds at most): the next change opens it again.
    this.#appender.close();
    this.#pending = 0;
    this.#tornPending = false;
    this.#lastRewrite = performance.now();
    this.#lastRewriteTook = this.#lastRewrite - started;
  }

  /** A change of the whole document: applied in memory and written at once (rare: crash recovery). */
  update(fn: (doc: StateDoc) => void): Promise<void> {
    return this.#serial(async () => {
      const doc = this.current;
      fn(doc);
      doc.updated_at = nowIso();
      this.#hold(doc);
      if (!this.#memory) await this.#rewrite();
    });
  }

  /** Update one prompt entry (created when absent): appended to the pending file, `state.json` rewritten when due. */
  updatePrompt(promptId: string, fn: (p: PromptState) => void): Promise<void> {
    return this.#serial(async () => {
      const at = nowIso();
      const held = this.#entries.get(promptId);
      const p = held === undefined ? { status: "running" as const, updated_at: at, attempts: [] } : thawEntry(held);
      fn(p);
      p.updated_at = at;
      this.#head.updated_at = at;
      const rest = atRest(p) ? freezeEntry(p) : null;
      this.#entries.set(promptId, rest ?? p);
      if (this.#memory) return;
      // One line of state.pending.jsonl, `{id, at, entry}` with the whole entry as it is now (the frozen text when at
      // rest: the same text JSON.stringify gives, without encoding the entry twice).
      const line = (this.#tornPending ? "\n" : "") +
        `{"id":${JSON.stringify(promptId)},"at":${JSON.stringify(at)},"entry":${
          rest ? rest.text() : JSON.stringify(p)
        }}`;
      this.#appender.appendSync(line);
      this.#tornPending = false;
      this.#pending++;
      const since = performance.now() - this.#lastRewrite;
      if (rewriteDue(since, this.#lastRewriteTook, this.#rewriteMs, this.#spacing)) await this.#rewrite();
    });
  }

  /**
   * Write `state.json` whole when anything is pending (run end, interrupt): afterwards it is complete on its own. The
   * pending file's handle is closed (the next change opens it again).
   */
  flush(): Promise<void> {
    return this.#serial(async () => {
      try {
        if (!this.#memory && this.#pending > 0) await this.#rewrite();
      } finally {
        this.#appender.close();
      }
    });
  }

  /** Close the pending file's handle without writing anything (a store dropped as a killed runner drops it). */
  close(): void {
    this.#appender.close();
  }

  /** Update the latest attempt with the given run id and number. */
  updateAttempt(promptId: string, runId: string, attempt: number, fn: (a: AttemptRecord) => void): Promise<void> {
    return this.updatePrompt(promptId, (p) => {
      for (let i = p.attempts.length - 1; i >= 0; i--) {
        const a = p.attempts[i]!;
        if (a.run_id === runId && a.attempt === attempt) {
          fn(a);
          return;
        }
      }
    });
  }
}

function ignoreMissing(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}
