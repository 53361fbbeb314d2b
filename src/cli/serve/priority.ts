/**
 * The server's scheduling priority (docs/reference/http_api.md §1): `control serve` is an observer of the runs it
 * serves, so by default it yields the cores to them. On a machine the run keeps busy (a CI runner with two cores),
 * the server's per-event work would otherwise take the run's time; at a lower priority it takes the time the run
 * leaves (docs/bench.md, `serve`).
 *
 * The nice value is set on the calling thread, the one that runs the server's JavaScript and its sockets; threads the
 * runtime starts later inherit it. It is only ever raised: a server started under `nice` keeps the lower priority it
 * was given, and raising a priority back would need a privilege the server does not ask for. `node:os` is imported
 * when the server starts, not statically: a static `node:` import is hoisted to the top of the bundle and would load
 * Deno's Node compatibility layer at every start of every command (tests/cli/bundle_test.ts).
 */

/** The nice value `control serve` takes unless told (`--nice`). */
export const DEFAULT_NICE = 10;

/** What {@link lowerPriority} did: the nice value now in force, or why it could not be read or set. */
export type PriorityOutcome = { nice: number } | { nice: null; error: string };

/** Parse `--nice`'s value: a whole number from 0 (leave the priority as it is) to 19. */
export function parseNice(text: string | undefined): number | null {
  if (text === undefined) return DEFAULT_NICE;
  const t = text.trim();
  if (!/^\d{1,2}$/.test(t)) return null;
  const n = Number(t);
  return n <= 19 ? n : null;
}

/**
 * Lower this thread's priority to nice `target` (never raise it). Returns the nice value in force afterwards, or the
 * error when the platform refused (the server then runs at the priority it had, and says so).
 */
export async function lowerPriority(target: number): Promise<PriorityOutcome> {
  try {
    const { getPriority, setPriority } = await import("node:os");
    const now = getPriority();
    if (target <= now) return { nice: now };
    setPriority(target);
    return { nice: getPriority() };
  } catch (e) {
    return { nice: null, error: e instanceof Error ? e.message : String(e) };
  }
}
