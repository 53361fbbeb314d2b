/** Interrupts (docs/reference/runner.md §1, docs/exit_codes.md): the exit code of an interrupted run and the second Ctrl-C. */
import type { Lease } from "../store/mod.ts";
import type { RunnerPlane } from "../control/runner_api.ts";
import { killRunningCommands } from "../contract/mod.ts";

/** Exit code of an interrupted run (128 + SIGINT). */
export const INTERRUPTED_EXIT = 130;

/**
 * The second Ctrl-C: kill every verification command still running, close the plane (snapshot and event stream say the run ended) and the run record, release the
 * lease, and exit 130 — each step best effort, and the exit happens within a bound even if one of them hangs.
 */
export async function hardStop(
  plane: RunnerPlane,
  lease: Lease | null,
  closeRecord: (() => Promise<unknown>) | null,
  /** Last, after the lease is released: the `--report` files of the interrupted run (docs/ci.md). */
  lastWords: (() => Promise<unknown>) | null = null,
): Promise<never> {
  const bound = setTimeout(() => Deno.exit(INTERRUPTED_EXIT), 3000);
  killRunningCommands();
  try {
    await plane.close("failed", "interrupted");
  } catch { /* best effort */ }
  try {
    await closeRecord?.();
  } catch { /* best effort */ }
  try {
    await lease?.release();
  } catch { /* best effort */ }
  try {
    await lastWords?.();
  } catch { /* best effort */ }
  clearTimeout(bound);
  Deno.exit(INTERRUPTED_EXIT);
}
