/**
 * When the plane writes `snapshot.json` between the writes it makes at once (docs/reference/control-plane.md §4.4).
 * A transition (a session going live or ending, a prompt boundary, a stage change) is written now when the last write is
 * a window old or older; a transition inside the window, and a change that may wait (event counters), is coalesced: it
 * reaches the file with the next write, whatever causes it, or by a timer one window later. When the timer fires it
 * writes only if no write was made for a whole window: a timer armed early finds a later write already made and re-arms
 * for the rest of the window since that one instead of adding a write of its own. So a run of prompts shorter than the
 * window writes about once a window, and a reader polling the file sees every change at most about one window late.
 */

/** A pending timer of a {@link ScheduleClock}. */
export type TimerHandle = ReturnType<typeof setTimeout>;

/** The time source of a {@link SnapshotSchedule} (tests drive it by hand). */
export interface ScheduleClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Call `fn` once after `ms`; returns a handle for {@link ScheduleClock.clear}. */
  after(fn: () => void, ms: number): TimerHandle;
  /** Cancel a pending {@link ScheduleClock.after}. */
  clear(handle: TimerHandle): void;
}

/** The real clock: `performance.now()` and `setTimeout`. */
export const REAL_CLOCK: ScheduleClock = {
  now: () => performance.now(),
  after: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle),
};

/** Decides when a coalesced snapshot change is written; the owner calls {@link SnapshotSchedule.wrote} on every write. */
export class SnapshotSchedule {
  #dirty = false;
  #writtenAt = -Infinity;
  #timer: TimerHandle | null = null;
  #stopped = false;

  /** `write` writes the snapshot (and calls {@link SnapshotSchedule.wrote}); `windowMs` is the coalescing window. */
  constructor(
    readonly windowMs: number,
    private readonly write: () => void,
    private readonly clock: ScheduleClock = REAL_CLOCK,
  ) {}

  /** Whether a change has not reached the file yet. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** Whether the window's timer is armed (test seam). */
  get armed(): boolean {
    return this.#timer !== null;
  }

  /**
   * A change that may wait (event counters, stage changes): written with the next write, whatever causes it, or by the
   * timer one window after the change (a burst after a quiet spell is one write, not two).
   */
  changed(): void {
    if (this.#stopped) return;
    this.#dirty = true;
    if (this.#timer === null) this.#arm(this.windowMs);
  }

  /** A state transition: written now when the last write is a window old or older, else coalesced like a change. */
  transition(): void {
    if (this.#stopped) return;
    if (this.#left() <= 0) this.write();
    else this.changed();
  }

  /** The owner wrote the snapshot: every change so far is in the file, the window starts again. */
  wrote(): void {
    this.#dirty = false;
    this.#writtenAt = this.clock.now();
  }

  /** No more timed writes (the plane is closing). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) this.clock.clear(this.#timer);
    this.#timer = null;
  }

  /** Milliseconds until the window since the last write ends (≤ 0: it has ended). */
  #left(): number {
    return this.#writtenAt + this.windowMs - this.clock.now();
  }

  #arm(ms: number): void {
    this.#timer = this.clock.after(() => this.#fire(), ms);
  }

  #fire(): void {
    this.#timer = null;
    if (this.#stopped || !this.#dirty) return;
    const left = this.#left();
    // A write since the timer was armed (a prompt's own live, ended or boundary write) restarted the window.
    if (left > 0) this.#arm(left);
    else this.write();
  }
}
