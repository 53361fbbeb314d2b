/**
 * The live slot of a run: what changes while it runs — the live view, the current prompt and attempt, the live
 * stream, the open attempt log, the current prompt's pre-existing paths, and the interrupt flag. Every field is
 * private and changes only through an explicit begin/end pair (or a one-way method) named for its owner, so no
 * other file assigns run state. Everything that does not change during a run lives in {@link RunEnv}.
 */
import type { View } from "../events/mod.ts";
import type { LaneSession } from "../lanes/mod.ts";
import type { Renderer, TextSink } from "../render/mod.ts";
import type { HidingState } from "../contract/mod.ts";

/** The live stream, when one is running. */
export interface LiveStream {
  readonly session: LaneSession;
  readonly promptId: string;
  readonly attempt: number;
  readonly cwd: string;
  /** Replaced (through {@link LiveSlot.replaceRenderer}) when a view change switches the log mode. */
  readonly renderer: Renderer;
  /** Lane name (for log markers). */
  readonly provider: string;
}

/** The slot's own, writable copy of the live stream (readers get it as {@link LiveStream}). */
type OwnedStream = { -readonly [K in keyof LiveStream]: LiveStream[K] };

/** What changes while a run runs; see the module comment for the owner of each pair. */
export class LiveSlot {
  #view: View;
  #promptId: string | null = null;
  #attempt: number | null = null;
  #live: OwnedStream | null = null;
  #log: TextSink | null = null;
  #preexisting: Record<string, string[]> = {};
  #hiding: Record<string, HidingState> = {};
  #interrupted = false;
  readonly #abort = new AbortController();

  constructor(view: View) {
    this.#view = { ...view };
  }

  /** The live view (docs/reference/control-plane.md §7): seeds every later renderer. */
  get view(): View {
    return this.#view;
  }

  /**
   * The current prompt, or the last one until the next begins (null before the first). Between prompts it stays
   * set: a steer arriving then is refused because no session is live, not because no prompt ran.
   */
  get promptId(): string | null {
    return this.#promptId;
  }

  /** The current (or last) attempt of {@link LiveSlot.promptId}; null until its first attempt begins. */
  get attempt(): number | null {
    return this.#attempt;
  }

  /** The live stream (null between streams). */
  get live(): LiveStream | null {
    return this.#live;
  }

  /** The open attempt log (ANSI-stripped transcript), null when none is open. */
  get attemptLog(): TextSink | null {
    return this.#log;
  }

  /**
   * The current prompt's pre-existing uncommitted paths by canonical repo root (docs/keep_going.md): kept out of
   * `changed_paths_only`, the commit and every repair prompt. Empty outside a prompt.
   */
  get preexisting(): Record<string, string[]> {
    return this.#preexisting;
  }

  /**
   * The current prompt's hiding baseline by canonical repo root (src/run/hiding_baseline.ts): compared by
   * `changed_paths_only` and `repos_clean` at verification. Empty outside a prompt.
   */
  get hiding(): Record<string, HidingState> {
    return this.#hiding;
  }

  /** Whether the first SIGINT/SIGTERM was seen. */
  get interrupted(): boolean {
    return this.#interrupted;
  }

  /** Aborted by the first SIGINT/SIGTERM: stops work that is not a provider stream (verification commands). */
  get interruptSignal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The plane applied a view change (runner: plane hooks). */
  setView(view: View): void {
    this.#view = { ...view };
  }

  /** A prompt becomes current, with no attempt yet (runner: the prompt loop). */
  beginPrompt(promptId: string): void {
    this.#promptId = promptId;
    this.#attempt = null;
  }

  /** An attempt of a prompt begins (prompt chain). */
  beginAttempt(promptId: string, attempt: number): void {
    this.#promptId = promptId;
    this.#attempt = attempt;
  }

  /** The prompt's pre-existing paths hold until {@link LiveSlot.endPreexisting} (prompt guard). */
  beginPreexisting(byRoot: Record<string, string[]>): void {
    this.#preexisting = byRoot;
  }

  /** The prompt ended: no path is pre-existing any more (prompt guard). */
  endPreexisting(): void {
    this.#preexisting = {};
  }

  /** The prompt's hiding baseline holds until {@link LiveSlot.endHiding} (prompt guard). */
  beginHiding(byRoot: Record<string, HidingState>): void {
    this.#hiding = byRoot;
  }

  /** The prompt ended: no hiding baseline any more (prompt guard). */
  endHiding(): void {
    this.#hiding = {};
  }

  /** The attempt's log opened (null: a run without a store root keeps none) (attempt). */
  beginLog(log: TextSink | null): void {
    this.#log = log;
  }

  /** Close the attempt log, if one is open (prompt chain, after each attempt). */
  endLog(): void {
    this.#log?.close();
    this.#log = null;
  }

  /** A stream went live (attempt); returns the live stream as readers see it. */
  beginStream(live: LiveStream): LiveStream {
    this.#live = { ...live };
    return this.#live;
  }

  /**
   * A view change switched the log mode: the live stream renders with `renderer` from now on (plane hooks). The
   * live stream stays the same object, so a steer delivery waiting on it still recognises it.
   */
  replaceRenderer(renderer: Renderer): void {
    if (this.#live) this.#live.renderer = renderer;
  }

  /** The live stream ended (attempt). */
  endStream(): void {
    this.#live = null;
  }

  /** The first SIGINT/SIGTERM arrived; never reset (runner: signal handler). */
  interrupt(): void {
    this.#interrupted = true;
    this.#abort.abort();
  }
}
