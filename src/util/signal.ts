/**
 * Signalling processes and process groups under any `--allow-run`. Deno allows `Deno.kill` only with an
 * unrestricted `--allow-run`; under a narrow `--allow-run=<list>` it throws `NotCapable`, so the signal is sent by
 * the `kill` executable instead (which must then be on the list: see src/run/run_permissions.ts).
 */

import { KILL_EXECUTABLE } from "./executables.ts";

let viaExecutable = false;

function killWithExecutable(pid: number, signal: Deno.Signal): boolean {
  try {
    const out = new Deno.Command(KILL_EXECUTABLE, {
      args: ["-s", signal, "--", String(pid)],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return out.success;
  } catch {
    return false;
  }
}

/** Whether an unrestricted `--allow-run` is granted (a query, which never prompts). */
function runGranted(): boolean {
  try {
    return Deno.permissions.querySync({ name: "run" }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Send `signal` to `pid` (a negative pid names a process group). Returns whether it was delivered; a process that
 * is gone, or a signal nobody may send, is `false`, never an exception.
 */
export function sendSignal(pid: number, signal: Deno.Signal): boolean {
  // Asked first, never tried: under a narrow --allow-run the try would prompt in a terminal instead of throwing.
  if (!viaExecutable && !runGranted()) viaExecutable = true;
  if (viaExecutable) return killWithExecutable(pid, signal);
  try {
    Deno.kill(pid, signal);
    return true;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotCapable)) return false;
    viaExecutable = true;
    return killWithExecutable(pid, signal);
  }
}
