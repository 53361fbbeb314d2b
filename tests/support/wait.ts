/**
 * Waiting in tests: on a condition, never on a fixed sleep (a loaded machine makes every fixed sleep too short
 * somewhere). `tests/support_test.ts` fails on a fixed-sleep wait anywhere under tests/ outside this folder.
 */

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
  /** Poll interval (default 25 ms). */
  intervalMs?: number;
}

/** A condition: a value when met, else null, undefined, false (or another falsy value). */
export type Condition<T> = () => T | null | undefined | false | Promise<T | null | undefined | false>;

/**
 * Poll `condition` until it returns a truthy value and return that value; throws after `timeoutMs` naming `what`.
 */
export async function waitFor<T>(condition: Condition<T>, opts: WaitOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await condition();
    if (v) return v;
    if (Date.now() > until) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what ?? "the condition"}`);
    }
    await pause(opts.intervalMs ?? 25);
  }
}

/** The promise's value, or `fallback` when it has not settled within `ms` (the timer is always cleared). */
export async function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((r) => timer = setTimeout(() => r(fallback), ms));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A fixed pause. Only for what is not a wait: a poll interval, spacing two signals so they are not coalesced, or a
 * window in which something must NOT happen. Each use outside tests/support is allowlisted in tests/support_test.ts.
 */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * How many descriptors of process `pid` are open on `path` (a follower following it holds one). Read through `sh`:
 * Deno reads `/proc` only with all permissions, and the tests' own permissions allow running it.
 */
export async function openCount(pid: number, path: string): Promise<number> {
  const out = await new Deno.Command("sh", {
    args: ["-c", 'for f in /proc/"$1"/fd/*; do readlink "$f"; done 2>/dev/null', "sh", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l === path).length;
}

/** Whether process `pid` has `path` open (see {@link openCount}). */
export async function holdsOpen(pid: number, path: string): Promise<boolean> {
  return await openCount(pid, path) > 0;
}

/**
 * A child's text output read as it arrives: `until` reads until the text so far satisfies `done` (or the stream ends),
 * `rest` to the end. Both return everything read so far.
 */
export class TextFollower {
  #reader: ReadableStreamDefaultReader<string>;
  /** Everything read so far. */
  text = "";
  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Read until `done(text)` holds or the stream ends. */
  async until(done: (text: string) => boolean): Promise<string> {
    while (!done(this.text)) {
      const { value, done: ended } = await this.#reader.read();
      if (ended) break;
      this.text += value;
    }
    return this.text;
  }

  /** Read to the end of the stream. */
  rest(): Promise<string> {
    return this.until(() => false);
  }
}
