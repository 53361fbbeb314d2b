/**
 * Spawning that tolerates a momentarily busy executable. `ETXTBSY` ("Text file busy") means some process still has
 * the file open for writing — typically a script that was just written while a concurrent fork briefly holds the
 * descriptor. It clears within milliseconds, so the spawn is retried with a short backoff instead of failing.
 */

const BUSY = /Text file busy|os error 26\b/;
const MAX_ATTEMPTS = 20;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** `new Deno.Command(command, options).spawn()`, retried (≈1 s in all) while the executable is busy. */
export function spawnRetryingBusy(command: string | URL, options: Deno.CommandOptions): Deno.ChildProcess {
  for (let attempt = 1;; attempt++) {
    try {
      return new Deno.Command(command, options).spawn();
    } catch (e) {
      if (attempt >= MAX_ATTEMPTS || !(e instanceof Error) || !BUSY.test(e.message)) throw e;
      sleepSync(5 * attempt);
    }
  }
}
