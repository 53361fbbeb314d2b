/** The state of a store root's latest run, as workspace listings show it. */
import { readLease } from "../control/lease.ts";
import { storePaths } from "../control/store.ts";
import { readTextOrNull } from "../util/fs.ts";

/** `not_started`, `running`, `completed`, `failed` or `abandoned` (a `running` snapshot whose lease is down). */
export async function runState(storeRoot: string): Promise<string> {
  const text = await readTextOrNull(storePaths(storeRoot).snapshot).catch(() => null);
  if (text === null) return "not_started";
  let status: unknown;
  try {
    status = (JSON.parse(text) as { status?: unknown }).status;
  } catch {
    return "unknown";
  }
  if (status === "running") return (await readLease(storeRoot)).state === "down" ? "abandoned" : "running";
  return typeof status === "string" ? status : "unknown";
}
