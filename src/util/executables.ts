/**
 * The names of the executables the process driver spawns by itself, in a module of their own: the `--allow-run`
 * list (src/run/run_permissions.ts) and the lane catalog name them without evaluating the process-tree code that
 * spawns them (a read-only command such as `plan` only lists them; docs/bench.md, cold start).
 */

/** The executable that sends signals when `Deno.kill` is not allowed. */
export const KILL_EXECUTABLE = "kill";
/** Reads one or more `/proc` files when direct reads are not allowed. */
export const PROC_READER = "cat";
/** Expands the `/proc/[0-9]*` glob for a full process listing (Deno cannot list `/proc` either). */
export const PROC_LISTER = "/bin/sh";

/**
 * Every executable the process driver may spawn by itself, exactly as it spawns them: the `/proc` readers and the
 * signal sender used when `Deno.kill` is not allowed. A narrow `--allow-run` must list them all.
 */
export const DRIVER_EXECUTABLES: readonly string[] = [PROC_READER, PROC_LISTER, KILL_EXECUTABLE];
