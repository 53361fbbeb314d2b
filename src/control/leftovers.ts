/**
 * What `status` can say about processes a run may have left behind, read from files only (status has no
 * `--allow-run`, so it cannot look at `/proc` itself): the survivors record of the last containment sweep, and a
 * stale `run.pid` naming the provider of a runner that died without closing (docs/processes.md).
 */
import { readSurvivors } from "../util/containment.ts";
import type { LeaseState } from "../store/lease.ts";
import { isRecord } from "../util/common.ts";

/** One process named by {@link Leftovers}. */
export interface LeftoverProcess {
  pid: number;
  /** Process group, when known (the provider group of a stale lease). */
  pgid: number | null;
  command: string | null;
}

/** Processes of a run that may still be alive. */
export interface Leftovers {
  run_id: string | null;
  /**
   * `sweep`: they survived SIGTERM and SIGKILL in the named sweep; `stale_lease`: the runner died without closing
   * and nobody has swept its processes yet (the next run, or `stop`, will).
   */
  source: "sweep" | "stale_lease";
  checked_at: string | null;
  processes: LeftoverProcess[];
}

/** Leftovers of the store root's runs, or null when nothing is known to be left. */
export async function readLeftovers(storeRoot: string, lease: LeaseState): Promise<Leftovers | null> {
  const info = lease.info;
  if (lease.state === "down" && info !== null && isRecord(info.provider) && typeof info.provider.pid === "number") {
    const pgid = typeof info.provider.pgid === "number" ? info.provider.pgid : null;
    return {
      run_id: typeof info.run_id === "string" ? info.run_id : null,
      source: "stale_lease",
      checked_at: null,
      processes: [{ pid: info.provider.pid, pgid, command: null }],
    };
  }
  const rec = await readSurvivors(storeRoot);
  if (rec === null || rec.survivors.length === 0) return null;
  return {
    run_id: rec.run_id,
    source: "sweep",
    checked_at: rec.checked_at,
    processes: rec.survivors.map((s) => ({ pid: s.pid, pgid: null, command: s.command })),
  };
}

/** One human line naming the leftovers (status `leftovers` row). */
export function describeLeftovers(l: Leftovers): string {
  const names = l.processes.map((p) =>
    `pid ${p.pid}${p.pgid !== null ? ` (group ${p.pgid})` : ""}${p.command ? ` ${p.command.slice(0, 60)}` : ""}`
  ).join(", ");
  const run = l.run_id ? `run ${l.run_id}` : "the run";
  return l.source === "sweep"
    ? `${names} of ${run} survived SIGKILL at ${l.checked_at ?? "?"}`
    : `${names} of ${run} may still be running: its runner died without closing (stop or the next run reaps it)`;
}
