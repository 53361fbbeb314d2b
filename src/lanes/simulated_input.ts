/**
 * Input written into a live simulated session (docs/lanes.md): the queue of in-turn texts, the
 * one pending in-process interrupt, and their acknowledgements. The session injects queued texts at its next "model
 * request" (between scripted actions) and refuses everything once its turn has ended.
 */
import { type InputAck, InputRefused } from "./types.ts";

/** One text waiting to reach the simulated model. */
export interface PendingInput {
  readonly text: string;
  resolve(ack: InputAck): void;
  reject(e: Error): void;
}

/** The inbox of one simulated session. */
export class SimulatedInbox {
  #queue: PendingInput[] = [];
  #interrupt: PendingInput | null = null;
  #closed: string | null = null;

  #pending(text: string): { input: PendingInput; promise: Promise<InputAck> } {
    let resolve!: (ack: InputAck) => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<InputAck>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { input: { text, resolve, reject }, promise };
  }

  /** Queue `text` for the next model request; rejects with InputRefused once the turn has ended. */
  send(text: string): Promise<InputAck> {
    if (this.#closed !== null) return Promise.reject(new InputRefused(this.#closed));
    const { input, promise } = this.#pending(text);
    this.#queue.push(input);
    return promise;
  }

  /** Ask to stop the turn and continue with `text`; a second request before the first is taken is refused. */
  interrupt(text: string): Promise<InputAck> {
    if (this.#closed !== null) return Promise.reject(new InputRefused(this.#closed));
    if (this.#interrupt !== null) return Promise.reject(new InputRefused("an interrupt is already in progress"));
    const { input, promise } = this.#pending(text);
    this.#interrupt = input;
    return promise;
  }

  /** Whether an in-process interrupt waits to be taken. */
  get interruptRequested(): boolean {
    return this.#interrupt !== null;
  }

  /** The pending interrupt, taken. */
  takeInterrupt(): PendingInput | null {
    const i = this.#interrupt;
    this.#interrupt = null;
    return i;
  }

  /** Every queued in-turn text, taken in order. */
  drain(): PendingInput[] {
    return this.#queue.splice(0);
  }

  /** The turn ended: refuse what is still waiting and everything sent later. */
  close(reason: string): void {
    this.#closed ??= reason;
    const left = [...this.drain(), ...(this.#interrupt ? [this.#interrupt] : [])];
    this.#interrupt = null;
    for (const p of left) p.reject(new InputRefused(reason));
  }
}
