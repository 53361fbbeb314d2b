/**
 * Process containment (docs/processes.md): every provider session carries the run's `PROMPT_RUNNER_RUN_ID` and a
 * per-session token in its environment, and everything it starts inherits them — also a tool that called `setsid`
 * or double-forked and so left the provider's process group and parent chain. A sweep finds the processes by that
 * inheritance (`/proc/<pid>/environ`), terminates them (SIGTERM, then SIGKILL), and reports what survived.
 * A process that clears its own environment cannot be found this way: a documented limit.
 */
import { readTextOrNull } from "./fs.ts";
import { atomicWriteStoreJson } from "./safe_fs.ts";
import { nowIso } from "./time.ts";
import {
  aliveRecordedAsync,
  pidsWithEnv,
  readProcCmdline,
  readProcStatsAsync,
  type RecordedProcess,
  trySignal,
} from "./proc_tree.ts";

/** Exported to every provider session and verification command (docs/reference/cli.md §5). */
const RUN_ID_ENV = "PROMPT_RUNNER_RUN_ID";
/** A token unique to one provider session, exported to it so its own leftovers can be found at its end. */
export const SESSION_TOKEN_ENV = "PROMPT_RUNNER_SESSION_TOKEN";
/** Grace between SIGTERM and SIGKILL in a sweep. */
const SWEEP_TERM_GRACE_MS = 2000;
/** The store file naming processes that survived the last sweep of a run. */
const SURVIVORS_FILE = "survivors.json";

/** A process still alive after a sweep. */
export interface Survivor {
  pid: number;
  start_ticks: number;
  /** Its command line, when readable. */
  command: string | null;
}

/** What a sweep did. */
export interface SweepResult {
  /** Processes found carrying the marker (over all rounds). */
  found: number;
  /** Processes that were signalled and are gone. */
  killed: number;
  survivors: Survivor[];
}

/** Options of {@link sweepByEnv}. */
export interface SweepOptions {
  termGraceMs?: number;
  /** How many find → kill rounds at most (a forking process can start new children while being killed). */
  rounds?: number;
}

async function waitGone(list: RecordedProcess[], boundMs: number): Promise<RecordedProcess[]> {
  const until = Date.now() + boundMs;
  let alive = await aliveRecordedAsync(list);
  while (alive.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    alive = await aliveRecordedAsync(alive);
  }
  return alive;
}

async function marked(name: string, value: string): Promise<RecordedProcess[]> {
  const pids = await pidsWithEnv(name, value);
  const stats = await readProcStatsAsync(pids);
  return stats.filter((s) => s.state !== "Z").map((s) => ({ pid: s.pid, startTicks: s.startTicks }));
}

/**
 * Find every process whose environment holds `name=value` and terminate it: SIGTERM, SIGKILL after the grace, in up
 * to `rounds` rounds. Never signals a reused pid (start times are checked) nor the runner itself.
 */
export async function sweepByEnv(name: string, value: string, opts: SweepOptions = {}): Promise<SweepResult> {
  const grace = opts.termGraceMs ?? SWEEP_TERM_GRACE_MS;
  const seen = new Map<number, RecordedProcess>();
  for (let round = 0; round < (opts.rounds ?? 3); round++) {
    const found = await marked(name, value);
    if (found.length === 0) break;
    for (const p of found) seen.set(p.pid, p);
    // Stop them first so a forking process cannot outrun the kill, then terminate.
    for (const p of found) trySignal(p.pid, "SIGSTOP");
    for (const p of found) trySignal(p.pid, "SIGTERM");
    for (const p of found) trySignal(p.pid, "SIGCONT");
    let alive = await waitGone(found, grace);
    for (const p of alive) trySignal(p.pid, "SIGKILL");
    alive = await waitGone(alive, 2000);
  }
  const left = await marked(name, value);
  const survivors = left.map((p) => ({ pid: p.pid, start_ticks: p.startTicks, command: readProcCmdline(p.pid) }));
  const leftPids = new Set(left.map((p) => p.pid));
  return { found: seen.size, killed: [...seen.keys()].filter((p) => !leftPids.has(p)).length, survivors };
}

/** Sweep every process of a run (by its inherited `PROMPT_RUNNER_RUN_ID`). */
export function sweepRun(runId: string, opts: SweepOptions = {}): Promise<SweepResult> {
  return sweepByEnv(RUN_ID_ENV, runId, opts);
}

/** The survivors record of a store root. */
export interface SurvivorsRecord {
  run_id: string;
  checked_at: string;
  /** When the sweep ran: `exit` (the runner closing), `next_run` (a later runner), `stop`. */
  moment: string;
  survivors: Survivor[];
}

/** Record the survivors of a sweep in `<store>/survivors.json`, or remove the record when nothing survived. */
export async function recordSurvivors(storeRoot: string, runId: string, moment: string, r: SweepResult) {
  const path = `${storeRoot}/${SURVIVORS_FILE}`;
  if (r.survivors.length === 0) {
    await Deno.remove(path).catch(() => {});
    return;
  }
  const doc: SurvivorsRecord = { run_id: runId, checked_at: nowIso(), moment, survivors: r.survivors };
  await atomicWriteStoreJson(path, doc);
}

/** The survivors record of a store root, or null when there is none (or it is unreadable). */
export async function readSurvivors(storeRoot: string): Promise<SurvivorsRecord | null> {
  const text = await readTextOrNull(`${storeRoot}/${SURVIVORS_FILE}`);
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as SurvivorsRecord;
    return typeof v.run_id === "string" && Array.isArray(v.survivors) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Start-of-run hook: terminate every process still alive from an earlier run of this store (its runner crashed or
 * was SIGKILLed mid-tool), and record what could not be terminated. Called once, when the lease is taken.
 */
export async function reapEarlierRun(storeRoot: string, staleRunId: string): Promise<SweepResult> {
  const r = await sweepRun(staleRunId);
  await recordSurvivors(storeRoot, staleRunId, "next_run", r).catch(() => {});
  return r;
}
