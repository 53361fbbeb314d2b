/** The state of a store root's latest run, as workspace listings show it. */
import { readLease } from "../store/lease.ts";
import { effectiveStatus, readSnapshotFile, type ReadStatus } from "../control/snapshot.ts";

/**
 * `not_started` (no snapshot, as the Control API's `no_run`), `running`, `completed`, `failed`, `abandoned` (a
 * `running` snapshot whose lease is down) or `unknown` (an unreadable snapshot or a foreign status).
 */
export async function runState(storeRoot: string): Promise<ReadStatus | "not_started"> {
  const file = await readSnapshotFile(storeRoot).catch(() => null);
  if (file === null || file.kind === "invalid") return "unknown";
  if (file.kind === "none") return "not_started";
  const status = file.value.status;
  return status === "running" ? effectiveStatus(status, (await readLease(storeRoot)).state) : status;
}
