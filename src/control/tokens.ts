/**
 * Token counting shared by the snapshot (src/control/plane.ts) and the runner's live status line and heartbeat
 * (src/run/run_progress.ts), so every surface shows the same figures (docs/status.md): a provider reports each
 * stream's usage cumulatively (`token_usage_updated`, and again on `run_completed`); an attempt's tokens are its
 * streams' sums; the run's are every attempt's.
 */

/** Input and output tokens. */
export interface TokenPair {
  input: number;
  output: number;
}

/** Folds usage reports into attempt and run totals. */
export class TokenTally {
  #closed: TokenPair = { input: 0, output: 0 };
  #cur: TokenPair = { input: 0, output: 0 };
  #run: TokenPair;

  constructor(run: TokenPair = { input: 0, output: 0 }) {
    this.#run = { ...run };
  }

  /** A new stream of the attempt begins (`run_started`): its usage starts from zero. */
  streamStarted(): void {
    this.#closed = { input: this.#closed.input + this.#cur.input, output: this.#closed.output + this.#cur.output };
    this.#cur = { input: 0, output: 0 };
  }

  /** A new attempt begins: its tokens start from zero; the run's keep counting. */
  attemptStarted(): void {
    this.#closed = { input: 0, output: 0 };
    this.#cur = { input: 0, output: 0 };
  }

  /** The stream's cumulative usage so far (a repeated report adds nothing). */
  usage(u: { input_tokens: number; output_tokens: number }): void {
    const input = Number(u.input_tokens) || 0;
    const output = Number(u.output_tokens) || 0;
    this.#run = {
      input: this.#run.input + input - this.#cur.input,
      output: this.#run.output + output - this.#cur.output,
    };
    this.#cur = { input, output };
  }

  /** The current (or last) attempt's tokens. */
  get attempt(): TokenPair {
    return { input: this.#closed.input + this.#cur.input, output: this.#closed.output + this.#cur.output };
  }

  /** Every attempt's tokens in this run. */
  get run(): TokenPair {
    return { ...this.#run };
  }
}
