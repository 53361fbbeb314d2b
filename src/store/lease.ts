/**
 * The run lease (docs/reference/runner.md §10.6): an exclusive non-blocking lock on `run.lock` held for the whole run, plus an
 * atomically written `run.pid` naming the holder, so readers can tell a live run from an abandoned one.
 */
import { LeaseHeldError } from "../errors.ts";
import { atomicWriteStoreJson, lstatStoreSync, openStoreFile, secureStoreRoot } from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { nowIso } from "../util/time.ts";
import { storePaths } from "./paths.ts";
import { isRecord, jsonRecordOrNull, localHostname } from "../util/common.ts";
import { readProcStat } from "../util/proc_tree.ts";
import { sendSignal } from "../util/signal.ts";
import { reapEarlierRun, recordSurvivors, sweepRun } from "../util/containment.ts";

/** A process group the runner started (a provider), with its start time in clock ticks. */
export interface ProcessIdentity {
  pid: number;
  pgid: number;
  start_ticks: number;
}

/** A held lease. */
export interface Lease {
  readonly storeRoot: string;
  /** Record the live provider group (null when none); rewrites `run.pid` atomically. */
  setProvider(p: ProcessIdentity | null): Promise<void>;
  /** Record the run id once known (or changed by a resume decision). */
  setRunId(id: string): Promise<void>;
  /** Delete `run.pid` if it still names this process, then unlock. Idempotent: every call waits for the one release. */
  release(): Promise<void>;
}

/** What a reader learns from the lease. */
export interface LeaseState {
  state: "up" | "down" | "unknown";
  pid: number | null;
  hostname: string | null;
  info: Record<string, unknown> | null;
}

const RETRY_MS = 250;

/** How a runner was started: in a terminal, by `start` as a background process, or by `start` as a systemd unit. */
export type ServiceMode = "attached" | "detached" | "systemd";

/**
 * The systemd unit a lease names (`operator.containment: systemd_user`), or null. Only a name `start` gives
 * (`prompt-runner-…`) is taken, so a forged `run.pid` can never make `stop` address some other unit.
 */
export function leaseUnit(info: Record<string, unknown> | null | undefined): string | null {
  const unit = info?.unit;
  return info?.service === "systemd" && typeof unit === "string" && /^prompt-runner-[A-Za-z0-9:_.-]{1,200}$/.test(unit)
    ? unit
    : null;
}

function hhmmss(iso: unknown): string {
  return typeof iso === "string" && iso.length >= 19 ? `${iso.slice(11, 19)}Z` : "an unknown time";
}

/** The exact message of a held lease (docs/reference/runner.md §10.6). */
export function leaseHeldMessage(label: string, info: Record<string, unknown> | null): string {
  // The lock without a run record: `workspace prepare` holds it while it works (or a runner is starting).
  if (info === null) {
    return `${label} is locked by another prompt_runner process (a workspace prepare, or a run starting)`;
  }
  const pid = info && typeof info.pid === "number" ? info.pid : "?";
  const host = info && typeof info.hostname === "string" ? info.hostname : "an unknown host";
  const run = info && typeof info.run_id === "string" ? info.run_id : "unknown";
  return `${label} is already being run by pid ${pid} on ${host} (run ${run}, since ${hhmmss(info?.started_at)})`;
}

async function readPidFile(path: string): Promise<Record<string, unknown> | null> {
  return jsonRecordOrNull(await readStoreTextOrNull(path));
}

/**
 * Start time (clock ticks since boot) of a process from `/proc/<pid>/stat`, or null when it is gone. Goes through
 * the lanes' /proc reader, because Deno only lets `--allow-all` read /proc directly.
 */
export function processStartTicks(pid: number): number | null {
  return readProcStat(pid)?.startTicks ?? null;
}

async function reapOrphan(provider: unknown): Promise<void> {
  if (!isRecord(provider)) return;
  const { pid, pgid, start_ticks } = provider;
  if (typeof pid !== "number" || typeof pgid !== "number" || typeof start_ticks !== "number") return;
  if (processStartTicks(pid) !== start_ticks) return;
  // sendSignal falls back to the kill executable under a narrow --allow-run (Deno.kill needs an unrestricted one).
  const kill = (sig: Deno.Signal) => sendSignal(-pgid, sig);
  kill("SIGTERM");
  for (let waited = 0; waited < 3000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    if (processStartTicks(pid) !== start_ticks) return;
  }
  kill("SIGKILL");
}

/**
 * `run.lock` of a store root, locked: retried for up to {@link RETRY_MS} (a reader's liveness probe holds it for an
 * instant), else {@link LeaseHeldError} naming the holder `run.pid` records (`label`: the target as commands name it).
 */
async function lockRunFile(p: ReturnType<typeof storePaths>, label: string): Promise<Deno.FsFile> {
  const file = await openStoreFile(p.runLock);
  const deadline = Date.now() + RETRY_MS;
  let locked = await file.tryLock(true);
  while (!locked && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    locked = await file.tryLock(true);
  }
  if (locked) return file;
  file.close();
  const holder = await readPidFile(p.runPid);
  throw new LeaseHeldError("lease_held", leaseHeldMessage(label, holder), {
    details: { pid: holder?.pid ?? null, hostname: holder?.hostname ?? null, run_id: holder?.run_id ?? null },
  });
}

/**
 * Take the store root's lease: lock `run.lock` (retrying up to 250 ms), reap a stale provider group left by a dead
 * holder, and write `run.pid`. Throws {@link LeaseHeldError} (`lease_held`, exit 5) when another runner holds it.
 */
export async function acquireLease(
  storeRoot: string,
  info: { runId: string; packetDir: string; argv: string[]; label?: string; service?: ServiceMode; unit?: string },
): Promise<Lease> {
  const p = storePaths(storeRoot);
  await secureStoreRoot(p.root);
  const file = await lockRunFile(p, info.label ?? (info.packetDir.split("/").filter(Boolean).pop() ?? info.packetDir));
  const stale = await readPidFile(p.runPid);
  if (stale && stale.hostname === localHostname()) {
    await reapOrphan(stale.provider);
    // Tools that left the provider's group (setsid, double fork) are found by the run id they inherited.
    if (typeof stale.run_id === "string") await reapEarlierRun(p.root, stale.run_id);
  }
  const doc: Record<string, unknown> = {
    pid: Deno.pid,
    hostname: localHostname(),
    started_at: nowIso(),
    run_id: info.runId,
    packet_dir: info.packetDir,
    argv: info.argv,
    // How the runner was started, for the status rollup's service line (docs/reference/workspace.md §8.1).
    service: info.service ?? "attached",
    // The systemd unit `start` launched the runner in (stop addresses it; status names it).
    ...(info.service === "systemd" && info.unit ? { unit: info.unit } : {}),
    provider: null,
  };
  const write = () => atomicWriteStoreJson(p.runPid, doc);
  try {
    await write();
  } catch (e) {
    file.close();
    throw e;
  }
  let released = false;
  let releasing: Promise<void> | null = null;
  const releaseOnce = async () => {
    // On exit (also after an interrupt or `stop`): nothing the run started may outlive it.
    const runId = String(doc.run_id);
    await sweepRun(runId).then((r) => recordSurvivors(p.root, runId, "exit", r)).catch(() => {});
    const current = await readPidFile(p.runPid);
    if (current && current.pid === Deno.pid && current.hostname === doc.hostname) {
      await Deno.remove(p.runPid).catch(() => {});
    }
    try {
      await file.unlock();
    } catch { /* closing drops the lock anyway */ }
    file.close();
  };
  return {
    storeRoot: p.root,
    async setProvider(provider) {
      if (released) return;
      doc.provider = provider;
      await write();
    },
    async setRunId(id) {
      if (released) return;
      doc.run_id = id;
      await write();
    },
    // Every caller waits for the one release: the second Ctrl-C's hard stop may call it while the run's own close is
    // half-way through it, and must not exit before the lease file is gone.
    release() {
      released = true;
      releasing ??= releaseOnce();
      return releasing;
    },
  };
}

/**
 * Hold a store root's run lock without a run record (`workspace prepare`, docs/reference/workspace.md §4): no runner can
 * take the lease until it is released, and readers still see no live run. Throws `lease_held` when a runner
 * (or another holder) has it; a store root that does not exist yet has nothing to hold (null).
 */
export async function holdStoreLock(storeRoot: string, label: string): Promise<{ release(): void } | null> {
  const p = storePaths(storeRoot);
  if (lstatStoreSync(p.root, "dir") === null) return null;
  const file = await lockRunFile(p, label);
  return {
    release() {
      try {
        file.unlockSync();
      } catch { /* closing drops the lock anyway */ }
      file.close();
    },
  };
}

/**
 * Liveness for readers: no `run.pid` → down; another host → unknown; lock acquirable (released at once) → down;
 * busy → up. Never creates files.
 */
export async function readLease(storeRoot: string): Promise<LeaseState> {
  const p = storePaths(storeRoot);
  const info = await readPidFile(p.runPid);
  if (!info) return { state: "down", pid: null, hostname: null, info: null };
  const pid = typeof info.pid === "number" ? info.pid : null;
  const hostname = typeof info.hostname === "string" ? info.hostname : null;
  const local = localHostname();
  if (hostname !== null && local !== null && hostname !== local) return { state: "unknown", pid, hostname, info };
  // Synchronous: a non-blocking lock probe takes microseconds, and each asynchronous call would cost a hop to a
  // worker thread and back (milliseconds on a loaded machine, on every Control API request).
  let file: Deno.FsFile;
  try {
    if (lstatStoreSync(p.runLock, "file") === null) return { state: "down", pid, hostname, info };
    file = Deno.openSync(p.runLock, { read: true });
  } catch {
    return { state: "down", pid, hostname, info };
  }
  try {
    const got = file.tryLockSync(true);
    if (got) file.unlockSync();
    return { state: got ? "down" : "up", pid, hostname, info };
  } catch {
    return { state: "unknown", pid, hostname, info };
  } finally {
    file.close();
  }
}
