/**
 * Giving the event loop a turn while a provider stream is consumed (docs/reference/control-plane.md §6.1). A stream whose events
 * are already buffered (the simulated provider at zero delay, a burst of parsed lines) resolves every `next()` as a
 * microtask: the pump never reaches the macrotask queue, so file-watch callbacks, timers and other I/O completions
 * wait until the stream ends or pauses, and control requests would only be picked up by the boundary's time-based
 * rescan. The pump asks {@link TurnYielder.due} after each event and awaits {@link TurnYielder.yield} when a turn is
 * due: at most one turn per `intervalMs` of work, so the cost is bounded by elapsed time, not by the event count.
 */

import { traceStage } from "../util/stage_trace.ts";

/**
 * Default time between two forced turns of the event loop, in ms. A turn through the yielder's one channel costs
 * about 10 µs when nothing is pending (about 1% of a busy loop at 1 ms); a request's watch event then waits for its
 * turn 0.5 ms on average, 1 ms at most (plus whatever the machine's scheduler adds).
 */
export const TURN_INTERVAL_MS = 1;

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

/**
 * Decides when a busy loop should give the event loop a turn, and gives it. The turns of one yielder go through one
 * `MessageChannel`, opened at the first turn and closed by {@link TurnYielder.close}: a fresh channel per turn cost
 * several times more than the turn itself.
 */
export class TurnYielder {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #last: number;
  #channel: MessageChannel | null = null;
  #resume: (() => void) | null = null;
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
    if (this.#channel === null) {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const resume = this.#resume;
        this.#resume = null;
        resume?.();
      };
      this.#channel = channel;
    }
    const channel = this.#channel;
    traceStage("yield", "-");
    await new Promise<void>((resolve) => {
      this.#resume = resolve;
      channel.port2.postMessage(null);
    });
    this.#last = this.#now();
    traceStage("turn", "-");
  }

  /** Close the channel (an open port would keep the process alive); a later turn opens a new one. */
  close(): void {
    const channel = this.#channel;
    this.#channel = null;
    channel?.port1.close();
    channel?.port2.close();
    const resume = this.#resume;
    this.#resume = null;
    resume?.();
  }
}
