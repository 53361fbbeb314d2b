/** The state of a store root's latest run, as workspace listings show it. */
import { leaseUnit, readLease } from "../store/lease.ts";
import { effectiveStatus, readSnapshotFile, type ReadStatus } from "../control/snapshot.ts";

/**
 * `not_started` (no snapshot, as the Control API's `no_run`), `running`, `completed`, `failed`, `abandoned` (a
 * `running` snapshot whose lease is down) or `unknown` (an unreadable snapshot or a foreign status).
 */
export async function runState(storeRoot: string): Promise<ReadStatus | "not_started"> {
  // An unreadable snapshot is `unknown` by definition (above): `workspace list` reports it, never fails on one store.
  const file = await readSnapshotFile(storeRoot).catch(() => null);
  if (file === null || file.kind === "invalid") return "unknown";
  if (file.kind === "none") return "not_started";
  const status = file.value.status;
  return status === "running" ? effectiveStatus(status, (await readLease(storeRoot)).state) : status;
}

/** The systemd user unit the live run of a store root runs in (`operator.containment: systemd_user`), or null. */
export async function runUnit(storeRoot: string): Promise<string | null> {
  const lease = await readLease(storeRoot);
  return lease.state === "up" ? leaseUnit(lease.info) : null;
}
