/**
 * Retention of archived event streams (docs/reference/control-plane.md §5.5): when a run opens, the archives of
 * earlier runs in `control/events/` beyond the newest `keepRuns`, or beyond `keepBytes` in total, are removed —
 * whole runs, oldest first, never the run that is opening (its sealed segments live there too). The runner holds
 * the store's lease while it prunes, so no other runner of this store is writing any of them.
 */
import { storePaths } from "../store/paths.ts";
import { archiveEntry } from "./segments.ts";

/** How many archived runs, and how many bytes of archives, a store keeps. */
export interface RetentionPolicy {
  /** Earlier runs whose archives are kept (newest first); 0 keeps none. */
  keepRuns: number;
  /** Total bytes of archives kept (newest runs first); `Infinity` for no cap. */
  keepBytes: number;
}

/** The default: the archives of the 20 newest earlier runs, at most 2 GiB in all. */
export const DEFAULT_RETENTION: RetentionPolicy = { keepRuns: 20, keepBytes: 2 * 1024 * 1024 * 1024 };

/** One archived run that retention removed. */
export interface PrunedRun {
  run_id: string;
  files: number;
  bytes: number;
}

interface ArchivedRun {
  runId: string;
  files: string[];
  bytes: number;
  newest: number;
}

/** Every archived run in `control/events/` except `liveRunId`, newest first (by the latest file's mtime). */
export function archivedRuns(storeRoot: string, liveRunId: string): ArchivedRun[] {
  const dir = storePaths(storeRoot).eventsArchive;
  const runs = new Map<string, ArchivedRun>();
  try {
    for (const e of Deno.readDirSync(dir)) {
      if (!e.isFile) continue;
      const entry = archiveEntry(e.name);
      if (entry === null || entry.runId === liveRunId) continue;
      let st: Deno.FileInfo;
      try {
        st = Deno.lstatSync(`${dir}/${e.name}`);
      } catch {
        continue;
      }
      const run = runs.get(entry.runId) ?? { runId: entry.runId, files: [], bytes: 0, newest: 0 };
      run.files.push(`${dir}/${e.name}`);
      run.bytes += st.size;
      run.newest = Math.max(run.newest, st.mtime?.getTime() ?? 0);
      runs.set(entry.runId, run);
    }
  } catch { /* no archive directory */ }
  return [...runs.values()].sort((a, b) => b.newest - a.newest || (a.runId < b.runId ? 1 : -1));
}

/** Remove the archived runs the policy does not keep; returns what was removed, oldest first. */
export function pruneArchives(storeRoot: string, liveRunId: string, policy: RetentionPolicy): PrunedRun[] {
  const runs = archivedRuns(storeRoot, liveRunId);
  const pruned: PrunedRun[] = [];
  let kept = 0;
  let bytes = 0;
  let full = false; // once a run is dropped, every older run is too (never a hole in the history kept)
  for (const run of runs) {
    if (!full && kept < policy.keepRuns && bytes + run.bytes <= policy.keepBytes) {
      kept++;
      bytes += run.bytes;
      continue;
    }
    full = true;
    let files = 0;
    for (const f of run.files) {
      try {
        Deno.removeSync(f);
        files++;
      } catch { /* already gone */ }
    }
    pruned.push({ run_id: run.runId, files, bytes: run.bytes });
  }
  return pruned.reverse();
}
