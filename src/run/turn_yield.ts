/**
 * Giving the event loop a turn while a provider stream is consumed (docs/reference/control-plane.md §6.1). A stream whose events
 * are already buffered (the simulated provider at zero delay, a burst of parsed lines) resolves every `next()` as a
 * microtask: the pump never reaches the macrotask queue, so file-watch callbacks, timers and other I/O completions
 * wait until the stream ends or pauses, and control requests would only be picked up by the boundary's time-based
 * rescan. The pump asks {@link TurnYielder.due} after each event and awaits {@link TurnYielder.yield} when a turn is
 * due: at most one turn per `intervalMs` of work, so the cost is bounded by elapsed time, not by the event count.
 */

/** Default time between two forced turns of the event loop, in ms. */
export const TURN_INTERVAL_MS = 2;

/**
 * One macrotask turn of the event loop. A message posted on a fresh channel is delivered through the event loop
 * (which polls every pending op: file-watch events, timers, reads) and, unlike `setTimeout(0)`, is never clamped to
 * 4 ms when nested.
 */
export function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      port2.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

/** Decides when a busy loop should give the event loop a turn. */
export class TurnYielder {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #last: number;
  /** Turns given so far (diagnostics and tests). */
  turns = 0;

  constructor(intervalMs = TURN_INTERVAL_MS, now: () => number = () => performance.now()) {
    this.#intervalMs = intervalMs;
    this.#now = now;
    this.#last = now();
  }

  /** Whether `intervalMs` of work has passed since the last turn. */
  due(): boolean {
    return this.#now() - this.#last >= this.#intervalMs;
  }

  /** Give the event loop one turn and restart the interval. */
  async yield(): Promise<void> {
    this.turns++;
    await eventLoopTurn();
    this.#last = this.#now();
  }
}
