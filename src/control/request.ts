/**
 * Request files (docs/reference/control-plane.md §3.1): unique, time-ordered names and the write protocol — exclusive create in
 * `control/.tmp/`, write, close, rename into `control/requests/` — so the runner only ever sees complete files.
 */
import { FILE_MODE } from "../util/fs.ts";
import { lstatStoreSync } from "../util/safe_fs.ts";
import { storePaths } from "../store/paths.ts";

/** Schema tag of a request body. */
export const REQUEST_SCHEMA = "prompt_runner.control_request/v1";
/** Largest accepted request file. */
export const MAX_REQUEST_BYTES = 65536;

/** The body of a request file. */
export interface RequestBody {
  schema: typeof REQUEST_SCHEMA;
  command: "set_view" | "steer";
  params: Record<string, unknown>;
  run_id: string | null;
  author: string;
  issued_at: string;
}

let seq = 0;
let lastMicros = 0;

/** Wall-clock microseconds since the epoch, strictly increasing within this process. */
function nowMicros(): number {
  // Date has millisecond resolution; the high-resolution clock fills the last three digits.
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  lastMicros = Math.max(micros, lastMicros + 1);
  return lastMicros;
}

/** Format microseconds since the epoch as `YYYYMMDDTHHMMSS.ffffffZ`. */
export function microStamp(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString(); // 2026-11-30T12:07:01.123Z
  const base = iso.slice(0, 19).replaceAll("-", "").replaceAll(":", "");
  const frac = String(micros % 1_000_000).padStart(6, "0");
  return `${base}.${frac}Z`;
}

/**
 * A new request file name: `<YYYYMMDDTHHMMSS.ffffffZ>-<pid>-<seq 6 digits>-<4 hex>.json`. Byte order equals time
 * order; pid, per-process sequence and random suffix keep concurrent writers apart.
 */
export function requestName(): string {
  seq += 1;
  const rand = crypto.getRandomValues(new Uint16Array(1))[0]!.toString(16).padStart(4, "0");
  return `${microStamp(nowMicros())}-${Deno.pid}-${String(seq).padStart(6, "0")}-${rand}.json`;
}

/** Whether a file name has the request name shape. */
export function isRequestName(name: string): boolean {
  return /^\d{8}T\d{6}\.\d{6}Z-\d+-\d{6,}-[0-9a-f]{4}\.json$/.test(name);
}

/**
 * Write a request into an existing control directory and return its file name. Throws `NotFound` when the
 * control directory does not exist (it is never created here).
 */
// Every call inside is synchronous on purpose (below); `async` keeps a throw a rejection for every caller.
// deno-lint-ignore require-await
export async function writeRequest(storeRoot: string, body: RequestBody): Promise<string> {
  const p = storePaths(storeRoot);
  const name = requestName();
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  if (bytes.length > MAX_REQUEST_BYTES) throw new RangeError(`request larger than ${MAX_REQUEST_BYTES} bytes`);
  lstatStoreSync(p.requests, "dir"); // a link is refused, never written through
  lstatStoreSync(p.controlTmp, "dir");
  Deno.statSync(p.requests); // NotFound when the run never opened a control directory
  const tmp = `${p.controlTmp}/${name}`;
  // Every call is synchronous: each is microseconds, and an asynchronous one costs a hop to a worker thread and back,
  // which a loaded machine stretches to milliseconds. No fsync (docs/reference/control-plane.md §3.1): under a
  // full-speed stream it waited for the runner's own dirty event pages to reach the disk (one ext4 journal commit),
  // and it protects nothing — the request is not the record, the runner's log entry is; a file the kernel lost in a
  // power cut is either absent or arrives short, and the runner logs that as `unparseable` (never applied).
  const file = Deno.openSync(tmp, { write: true, createNew: true, mode: FILE_MODE });
  try {
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
  } catch (e) {
    file.close();
    removeQuietly(tmp);
    throw e;
  }
  file.close();
  try {
    Deno.renameSync(tmp, `${p.requests}/${name}`);
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
  return name;
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* already gone */ }
}
