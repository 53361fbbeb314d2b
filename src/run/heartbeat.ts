/**
 * The heartbeat (docs/status.md): when a run's output is not a live terminal, a line every `--heartbeat` interval
 * (default 30 s; `PROMPT_RUNNER_HEARTBEAT`) of silence — a provider thinking, a long verification command — so a CI
 * job that kills silent jobs sees the run alive, and a log reader sees where it was. Any output resets the silence.
 * Its own module so other drivers (the CI reporter) can reuse it: give it a line supplier and a writer.
 */
import { UsageError } from "../errors.ts";
import { parseDuration } from "../util/time.ts";

/** The default interval of silence before a heartbeat line. */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/** The environment variable that sets the interval when `--heartbeat` is not given. */
export const HEARTBEAT_ENV = "PROMPT_RUNNER_HEARTBEAT";

/**
 * The heartbeat interval from `--heartbeat` (else the environment variable, else the default): a duration (`30s`,
 * `500ms`, `2m`), or `off` / `0` for none (null). A bad value is a usage error naming where it came from.
 */
export function heartbeatInterval(flag: string | undefined, env: string | undefined): number | null {
  const [text, source] = flag !== undefined
    ? [flag, "--heartbeat"]
    : env !== undefined && env.trim() !== ""
    ? [env, HEARTBEAT_ENV]
    : [null, ""];
  if (text === null) return DEFAULT_HEARTBEAT_MS;
  if (text.trim() === "off" || text.trim() === "0") return null;
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    throw new UsageError("invalid_value", `${source} does not take "${text}"; expected a duration (e.g. 30s) or off`);
  }
  return ms;
}

/** Options of {@link Heartbeat}. */
export interface HeartbeatOptions {
  /** Silence before a line. */
  intervalMs: number;
  /** The line to write (without newline). */
  line: () => string;
  /** Write one line (the caller ends any open line first). */
  write: (line: string) => void;
  /** Clock (ms); default `Date.now`. */
  now?: () => number;
}

/** Writes a line after each interval of silence; {@link Heartbeat.output} marks output. */
export class Heartbeat {
  readonly #o: HeartbeatOptions;
  readonly #now: () => number;
  #last: number;
  #timer: ReturnType<typeof setInterval> | null = null;
  #writing = false;
  /** Heartbeat lines written so far. */
  beats = 0;

  constructor(opts: HeartbeatOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
    this.#last = this.#now();
  }

  /** Something was written: the silence starts over. */
  output(): void {
    if (!this.#writing) this.#last = this.#now();
  }

  /** Write a heartbeat when the silence has lasted an interval; returns whether it did. */
  check(): boolean {
    const now = this.#now();
    if (now - this.#last < this.#o.intervalMs) return false;
    this.#writing = true;
    try {
      this.#o.write(this.#o.line());
    } finally {
      this.#writing = false;
    }
    this.#last = now;
    this.beats++;
    return true;
  }

  /** Check on a timer (a tenth of the interval, at most every second) that never keeps the process alive. */
  start(): void {
    if (this.#timer !== null) return;
    const every = Math.max(10, Math.min(1000, Math.floor(this.#o.intervalMs / 10)));
    this.#timer = setInterval(() => this.check(), every);
    Deno.unrefTimer(this.#timer);
  }

  /** Stop checking. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
