/**
 * Opt-in stage timestamps on one clock across processes, for finding where a control request's time goes
 * (docs/bench.md, "Control under full load"). With `PROMPT_RUNNER_STAGE_TRACE=<file>` in the environment (and the
 * permission to read it), {@link traceStage} keeps `<wall ms> <stage> <key> <pid>` lines in memory — wall ms with sub-ms
 * precision, `performance.timeOrigin + performance.now()`, the same machine clock in every process — and
 * {@link flushStageTrace} appends them to that file. Off (the default) a call is one comparison; the environment
 * is read once, at the first call, and never prompts for the permission.
 */

/** The variable naming the trace file. */
export const STAGE_TRACE_ENV = "PROMPT_RUNNER_STAGE_TRACE";

let file: string | null | undefined;
let lines: string[] = [];

function traceFile(): string | null {
  if (file !== undefined) return file;
  file = null;
  try {
    const granted = Deno.permissions.querySync({ name: "env", variable: STAGE_TRACE_ENV }).state === "granted";
    if (granted) file = Deno.env.get(STAGE_TRACE_ENV) || null;
  } catch { /* no permission API or no permission: off */ }
  return file;
}

/** This process's wall clock in ms with sub-ms precision (comparable across processes of one machine). */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Whether stage tracing is on in this process. */
export function stageTraceOn(): boolean {
  return traceFile() !== null;
}

/** Note that `stage` happened now for `key` (a request name, or `-`); nothing when tracing is off. */
export function traceStage(stage: string, key: string): void {
  if (file === null || (file === undefined && traceFile() === null)) return;
  traceStageAt(wallMs(), stage, key);
}

/** Note that `stage` happened at `wall` ({@link wallMs}) for `key`, known only afterwards; nothing when off. */
export function traceStageAt(wall: number, stage: string, key: string): void {
  if (traceFile() === null) return;
  lines.push(`${wall.toFixed(3)} ${stage} ${key || "-"} ${Deno.pid}`);
}

/** Append what was noted to the trace file and forget it; nothing when tracing is off or nothing was noted. */
export function flushStageTrace(): void {
  const path = traceFile();
  if (path === null || lines.length === 0) return;
  const text = lines.join("\n") + "\n";
  lines = [];
  try {
    Deno.writeTextFileSync(path, text, { append: true });
  } catch { /* a diagnostic only: never fails the run */ }
}
