/**
 * When closing a `Deno.watchFs` watcher is safe (docs/reference/control-plane.md §6.2, docs/control-protocol.md "FIFOs and the file
 * watcher"). On Linux the watcher's own thread opens new entries of the watched directory; opening a FIFO blocks that
 * thread until a writer appears, and a FIFO created and removed again before anyone opens it read+write leaves it
 * blocked for good (no writer can reach an unlinked FIFO). Closing such a watcher freezes the main thread at its next
 * event-loop turn — nothing after it runs, not even a timer. So a watcher is closed only when no thread of this
 * process is waiting for a FIFO partner; otherwise it is detached (left open, never read again). In the CLI, where
 * every command ends in `Deno.exit`, watchers are always detached at stop: the exit ends the process whatever a
 * watcher thread is doing.
 */

let alwaysDetach = false;

/** Detach instead of closing every watcher from now on (the CLI sets this; `Deno.exit` follows every command). */
export function detachWatchersAtStop(on = true): void {
  alwaysDetach = on;
}

/** Kernel wait channel of a thread blocked opening a FIFO that has no partner yet (fs/pipe.c). */
const FIFO_WAIT = "wait_for_partner";

/**
 * Whether closing a watcher now could freeze this process: the CLI policy is set, or some thread waits in a FIFO
 * open. Unknown (Deno reads `/proc` only with all permissions) counts as safe: outside the CLI, whose policy always
 * detaches, only in-process embedders and tests close watchers. Other systems' watchers open nothing.
 */
export function watcherCloseUnsafe(): boolean {
  if (alwaysDetach) return true;
  if (Deno.build.os !== "linux") return false;
  try {
    for (const t of Deno.readDirSync("/proc/self/task")) {
      let chan = "";
      try {
        chan = Deno.readTextFileSync(`/proc/self/task/${t.name}/wchan`).trim();
      } catch { /* thread ended */ }
      if (chan === FIFO_WAIT) return true;
    }
    return false;
  } catch {
    return false;
  }
}
