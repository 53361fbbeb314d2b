/**
 * A test seam counting the bytes read from the store's append-only records and state files (`state.json`, its
 * pending file, `progress.log`, run journals): the scale regression test (tests/run/scale_reads_test.ts) asserts the
 * hot path reads none of them per prompt, so a quadratic re-read cannot come back unnoticed. Helper spawns (git,
 * probes) are counted the same way: a spawn of the large runner process is the most expensive thing a trivial
 * prompt does, so tests/run/scale_spawns_test.ts holds a prompt's start to one git spawn per target repo. Counting is
 * a map update; nothing is recorded but totals.
 */

const totals = new Map<string, { reads: number; bytes: number }>();

/** Note that `bytes` of the file kind `kind` (`state`, `progress`, `journal`) were read. */
export function meterRead(kind: string, bytes: number): void {
  const t = totals.get(kind) ?? { reads: 0, bytes: 0 };
  t.reads++;
  t.bytes += bytes;
  totals.set(kind, t);
}

/** The reads and bytes noted per kind since the process started. */
export function readTotals(kind: string): { reads: number; bytes: number } {
  return { ...(totals.get(kind) ?? { reads: 0, bytes: 0 }) };
}

const spawns = new Map<string, number>();

/** Note that the runner spawned the helper `command` (its base name: `git`). */
export function meterSpawn(command: string): void {
  const name = command.slice(command.lastIndexOf("/") + 1);
  spawns.set(name, (spawns.get(name) ?? 0) + 1);
}

/** How many times the helper `command` was spawned since the process started. */
export function spawnTotals(command: string): number {
  return spawns.get(command) ?? 0;
}

const writes = new Map<string, number>();

/** Note one whole-file write (temp file and rename) of the store document `kind` (`snapshot`). */
export function meterWrite(kind: string): void {
  writes.set(kind, (writes.get(kind) ?? 0) + 1);
}

/** How many whole-file writes of `kind` were made since the process started. */
export function writeTotals(kind: string): number {
  return writes.get(kind) ?? 0;
}
