/**
 * Shared helpers of the benchmark cases (docs/bench.md): a case measures only what it has checked. Commands run
 * through {@link runChecked} (exit code and output checked before a time is kept), repeated figures are medians of
 * at least {@link MIN_REPEATS} samples, and `--quick` (env `BENCH_QUICK=1`) shrinks sizes for a smoke run.
 * Files starting with `_` are not cases.
 */

/** The fewest repeats a median is taken over. */
export const MIN_REPEATS = 5;

/** A benchmark case failed: its figures must not be recorded. */
export class BenchFailure extends Error {
  override name = "BenchFailure";
}

/** Thrown by a case that cannot run on this machine (e.g. an optional binary is missing); not a failure. */
export class BenchSkip extends Error {
  override name = "BenchSkip";
}

/** Whether this is a `--quick` smoke run. */
export function quick(): boolean {
  return Deno.env.get("BENCH_QUICK") === "1";
}

/** `full` normally, `small` under `--quick`. */
export function sized<T>(full: T, small: T): T {
  return quick() ? small : full;
}

/** Throw a {@link BenchFailure} with `message` unless `cond` holds. */
export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new BenchFailure(message);
}

/** The median of `xs` (the mean of the two middle values for an even count); throws on fewer than `min` values. */
export function median(xs: readonly number[], min = MIN_REPEATS): number {
  check(xs.length >= min, `a median needs at least ${min} samples, got ${xs.length}`);
  check(xs.every(Number.isFinite), `a sample is not a finite number: ${xs.join(", ")}`);
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * A rate with some load against the same rate without, measured in alternated windows (U L U L … U: `without` has one
 * more window than `with`): each loaded window against the mean of the two unloaded windows around it, the median of
 * those ratios. A drift of the machine over the seconds this takes cancels out; one long loaded window between two
 * unloaded ones measured the drift as much as the load.
 */
export function alternatedRatio(withLoad: readonly number[], without: readonly number[]): number {
  check(
    without.length === withLoad.length + 1,
    `alternated windows: ${withLoad.length} loaded need ${withLoad.length + 1} unloaded, got ${without.length}`,
  );
  check([...withLoad, ...without].every((r) => r > 0), `a window with no events: ${withLoad} / ${without}`);
  return median(withLoad.map((r, k) => r / ((without[k]! + without[k + 1]!) / 2)));
}

/**
 * Durations with some load against the same without, measured in pairs (repeat r ran both, in a rotated order): the
 * median over repeats of `withLoad[r] / without[r]`. The machine's drift between repeats cancels out; a ratio of the
 * two medians measured it as much as the load.
 */
export function pairedRatio(withLoad: readonly number[], without: readonly number[]): number {
  check(withLoad.length === without.length, `paired runs: ${withLoad.length} with load, ${without.length} without`);
  check([...withLoad, ...without].every((ms) => ms > 0), `a run with no duration: ${withLoad} / ${without}`);
  return median(withLoad.map((ms, r) => ms / without[r]!));
}

/** The `p`-th percentile (nearest rank) of `xs`; throws on an empty list. */
export function percentile(xs: readonly number[], p: number): number {
  check(xs.length > 0, "a percentile of no samples");
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(s.length, rank) - 1]!;
}

/** Run `fn` `n` (≥ {@link MIN_REPEATS}) times, one after the other, and return every result. */
export async function repeat<T>(n: number, fn: (i: number) => Promise<T> | T): Promise<T[]> {
  check(n >= MIN_REPEATS, `at least ${MIN_REPEATS} repeats are required, got ${n}`);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

/** Round to `digits` decimals. */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** One checked command: its wall time and output. */
export interface CheckedRun {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runChecked}. */
export interface RunCheckedOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** The exit code the case expects (default 0). */
  expectCode?: number;
  /** Checks the output; returns a description of what is wrong, or null when it is right. */
  expect?: (stdout: string, stderr: string) => string | null;
}

/**
 * Run a command to its end, timing it from spawn to exit; throws a {@link BenchFailure} naming the command when
 * the exit code is not the expected one or the output check fails, so a broken command never yields a figure.
 */
export async function runChecked(command: string, args: string[], opts: RunCheckedOptions = {}): Promise<CheckedRun> {
  const t0 = performance.now();
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  }).output();
  const ms = performance.now() - t0;
  const dec = new TextDecoder();
  const run = { ms, code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  const shown = `${command === Deno.execPath() ? "deno" : command} ${args.join(" ")}`;
  const expected = opts.expectCode ?? 0;
  if (run.code !== expected) {
    throw new BenchFailure(
      `\`${shown}\` exited ${run.code}, expected ${expected}: ${(run.stderr || run.stdout).trim().slice(-600)}`,
    );
  }
  const wrong = opts.expect?.(run.stdout, run.stderr) ?? null;
  if (wrong !== null) throw new BenchFailure(`\`${shown}\` printed unexpected output: ${wrong}`);
  return run;
}

/** Parse `text` as a JSON object, or describe why it is not one (for {@link RunCheckedOptions.expect}). */
export function jsonObjectOf(text: string): Record<string, unknown> | string {
  try {
    const v = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : "not an object";
  } catch (e) {
    return `not JSON (${e instanceof Error ? e.message : String(e)}): ${text.slice(0, 200)}`;
  }
}
