/**
 * Process-tree facts from `/proc` (Linux): identity with start ticks, descendants by parent links, and killing a
 * recorded process only while its start time still matches (so a reused pid is never signalled).
 */
import { sendSignal } from "./signal.ts";
import { PROC_LISTER as SHELL, PROC_READER as CAT } from "./executables.ts";
import { runHelper } from "./helper.ts";

/** Process identity for the lease's `provider` field and orphan reaping. */
export interface ProcessIdentity {
  pid: number;
  pgid: number;
  start_ticks: number | null;
}

/** The fields of `/proc/<pid>/stat` the driver needs. */
export interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  state: string;
  /** Start time in clock ticks after boot (field 22). */
  startTicks: number;
}

/** A process remembered before signalling: pid plus start ticks. */
export interface RecordedProcess {
  pid: number;
  startTicks: number;
}

/** Parse the text of `/proc/<pid>/stat`; null when malformed. The command name may contain spaces and parens. */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgid = Number(rest[2]);
  const sid = Number(rest[3]);
  const startTicks = Number(rest[19]);
  if (state === undefined || ![pid, ppid, pgid, sid, startTicks].every(Number.isInteger)) return null;
  return { pid, ppid, pgid, sid, state, startTicks };
}

/**
 * How `/proc` is read. Deno refuses direct reads of `/proc` without `--allow-all`, so under the runner's scoped
 * permissions the stat files are read by a `cat` child instead (`--allow-run` is granted there).
 */
let mode: "direct" | "cat" | "none" | null = null;

function readDirect(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    try {
      out.push(Deno.readTextFileSync(p));
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) throw e;
      // vanished process
    }
  }
  return out;
}

function readViaCat(args: string[], glob: boolean): string[] {
  try {
    const cmd = glob
      ? new Deno.Command(SHELL, {
        args: ["-c", "cat /proc/[0-9]*/stat"],
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      })
      : new Deno.Command(CAT, { args, stdin: "null", stdout: "piped", stderr: "null" });
    const text = new TextDecoder().decode(cmd.outputSync().stdout);
    return text.split("\n").filter((l) => l.trim() !== "");
  } catch {
    return [];
  }
}

/** Whether spawning `command` is granted now (never prompts: an ungranted reader is simply not used). */
function mayRun(command: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command }).state === "granted";
  } catch {
    return false;
  }
}

function pickMode(): "direct" | "cat" | "none" {
  if (mode !== null) return mode;
  try {
    Deno.readTextFileSync("/proc/self/stat");
    mode = "direct";
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      mode = mayRun(CAT) && readViaCat(["/proc/self/stat"], false).length > 0 ? "cat" : "none";
    } else {
      mode = "none";
    }
  }
  return mode;
}

/** Read the stat of each pid that still exists (one `cat` for all of them when direct reads are not allowed). */
function readProcStats(pids: readonly number[]): ProcStat[] {
  if (pids.length === 0) return [];
  const paths = pids.map((p) => `/proc/${p}/stat`);
  const m = pickMode();
  const texts = m === "direct" ? readDirect(paths) : m === "cat" ? readViaCat(paths, false) : [];
  return texts.map(parseProcStat).filter((x): x is ProcStat => x !== null);
}

/** Read one process's stat, or null when it is gone (or /proc is unavailable). */
export function readProcStat(pid: number): ProcStat | null {
  return readProcStats([pid])[0] ?? null;
}

/** A process's command line (NUL separators turned into spaces), or null when it is gone. Works without -A. */
export function readProcCmdline(pid: number): string | null {
  const path = `/proc/${pid}/cmdline`;
  const m = pickMode();
  let bytes: Uint8Array | null = null;
  if (m === "direct") {
    try {
      bytes = Deno.readFileSync(path);
    } catch {
      bytes = null;
    }
  } else if (m === "cat") {
    try {
      const out = new Deno.Command(CAT, { args: [path], stdin: "null", stdout: "piped", stderr: "null" })
        .outputSync();
      bytes = out.success ? out.stdout : null;
    } catch {
      bytes = null;
    }
  }
  return bytes === null ? null : new TextDecoder().decode(bytes).replaceAll("\0", " ").trim();
}

/** Every process visible in `/proc` (empty when /proc is unavailable). */
export function listProcesses(): ProcStat[] {
  const m = pickMode();
  if (m === "none") return [];
  if (m === "cat") return readViaCat([], true).map(parseProcStat).filter((x): x is ProcStat => x !== null);
  const paths: string[] = [];
  try {
    for (const e of Deno.readDirSync("/proc")) if (/^\d+$/.test(e.name)) paths.push(`/proc/${e.name}/stat`);
  } catch {
    return [];
  }
  return readDirect(paths).map(parseProcStat).filter((x): x is ProcStat => x !== null);
}

/**
 * Descendants of `rootPid` by parent links, plus every other member of the process group `pgid` (a child whose
 * parent already exited was reparented but stays in the group). Pure over a process list.
 */
export function descendantsOf(rootPid: number, pgid: number | null, procs: readonly ProcStat[]): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const seen = new Set<number>([rootPid]);
  const out: ProcStat[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const c of children.get(pid) ?? []) {
      if (seen.has(c.pid)) continue;
      seen.add(c.pid);
      out.push(c);
      queue.push(c.pid);
    }
  }
  if (pgid !== null) {
    for (const p of procs) {
      if (p.pgid === pgid && !seen.has(p.pid)) {
        seen.add(p.pid);
        out.push(p);
      }
    }
  }
  return out;
}

/** Identity of a live process (pgid and start ticks from /proc; the pid itself as pgid when /proc is unreadable). */
export function processIdentity(pid: number): ProcessIdentity {
  const st = readProcStat(pid);
  return { pid, pgid: st?.pgid ?? pid, start_ticks: st?.startTicks ?? null };
}

/** Whether the recorded process is still alive (not a zombie) with the same start time. */
export function isSameProcessAlive(p: RecordedProcess): boolean {
  const st = readProcStat(p.pid);
  return st !== null && st.startTicks === p.startTicks && st.state !== "Z";
}

/**
 * Send a signal (a negative pid names a group), ignoring "no such process" and permission errors. Returns whether
 * it was delivered. Under a narrow `--allow-run` the `kill` executable sends it.
 */
export function trySignal(pid: number, signal: Deno.Signal): boolean {
  return sendSignal(pid, signal);
}

/** The recorded processes that are still alive (not zombies) with the same start time. */
function aliveRecorded(recorded: Iterable<RecordedProcess>): RecordedProcess[] {
  const list = [...recorded];
  const stats = new Map(readProcStats(list.map((p) => p.pid)).map((s) => [s.pid, s]));
  return list.filter((p) => {
    const st = stats.get(p.pid);
    return st !== undefined && st.startTicks === p.startTicks && st.state !== "Z";
  });
}

/** SIGKILL every recorded process that is still alive with a matching start time; returns the pids killed. */
export function killRecorded(recorded: Iterable<RecordedProcess>): number[] {
  return aliveRecorded(recorded).filter((p) => trySignal(p.pid, "SIGKILL")).map((p) => p.pid);
}

// ---------------------------------------------------------------------------------------------------------------
// Asynchronous readers: the same facts without blocking the event loop (the periodic scan, containment sweeps).

/** Deadline of one `/proc` reader spawn. */
const PROC_READ_TIMEOUT_MS = 10_000;

async function readViaCatAsync(args: string[], glob: boolean): Promise<string[]> {
  try {
    const r = glob
      ? await runHelper(SHELL, {
        args: ["-c", "cat /proc/[0-9]*/stat"],
        stderr: false,
        timeoutMs: PROC_READ_TIMEOUT_MS,
      })
      : await runHelper(CAT, { args, stderr: false, timeoutMs: PROC_READ_TIMEOUT_MS });
    return new TextDecoder().decode(r.stdout).split("\n").filter((l) => l.trim() !== "");
  } catch {
    return [];
  }
}

async function readDirectAsync(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    try {
      out.push(await Deno.readTextFile(p));
    } catch {
      // vanished process
    }
  }
  return out;
}

function parsed(texts: string[]): ProcStat[] {
  return texts.map(parseProcStat).filter((x): x is ProcStat => x !== null);
}

/** {@link listProcesses} without blocking: one `/bin/sh` reader (or direct async reads under `--allow-all`). */
export async function listProcessesAsync(): Promise<ProcStat[]> {
  const m = pickMode();
  if (m === "none") return [];
  if (m === "cat") return mayRun(SHELL) ? parsed(await readViaCatAsync([], true)) : [];
  const paths: string[] = [];
  try {
    for await (const e of Deno.readDir("/proc")) if (/^\d+$/.test(e.name)) paths.push(`/proc/${e.name}/stat`);
  } catch {
    return [];
  }
  return parsed(await readDirectAsync(paths));
}

/** {@link readProcStats} without blocking. */
export async function readProcStatsAsync(pids: readonly number[]): Promise<ProcStat[]> {
  if (pids.length === 0) return [];
  const paths = pids.map((p) => `/proc/${p}/stat`);
  const m = pickMode();
  if (m === "none") return [];
  return parsed(m === "direct" ? await readDirectAsync(paths) : await readViaCatAsync(paths, false));
}

/** {@link aliveRecorded} without blocking. */
export async function aliveRecordedAsync(recorded: Iterable<RecordedProcess>): Promise<RecordedProcess[]> {
  const list = [...recorded];
  const stats = new Map((await readProcStatsAsync(list.map((p) => p.pid))).map((s) => [s.pid, s]));
  return list.filter((p) => {
    const st = stats.get(p.pid);
    return st !== undefined && st.startTicks === p.startTicks && st.state !== "Z";
  });
}

/**
 * Pids of the processes whose environment holds exactly `name=value` (read from `/proc/<pid>/environ`, which the
 * kernel lets us read for our own uid). The runner's own pid is never included. Under scoped permissions one
 * `/bin/sh` runs `grep` over every environ file; the value travels as an argument, never through the shell text.
 */
export async function pidsWithEnv(name: string, value: string): Promise<number[]> {
  const entry = `${name}=${value}`;
  const m = pickMode();
  const pids: number[] = [];
  if (m === "cat") {
    if (!mayRun(SHELL)) return [];
    try {
      const r = await runHelper(SHELL, {
        args: ["-c", 'exec grep -lzxF -e "$1" /proc/[0-9]*/environ 2>/dev/null', "sh", entry],
        // The reader itself must not match (it would inherit the variable when the runner has it).
        env: { [name]: "" },
        stderr: false,
        timeoutMs: PROC_READ_TIMEOUT_MS,
      });
      for (const line of new TextDecoder().decode(r.stdout).split("\n")) {
        const hit = /^\/proc\/(\d+)\/environ$/.exec(line.trim());
        if (hit) pids.push(Number(hit[1]));
      }
    } catch {
      return [];
    }
  } else if (m === "direct") {
    try {
      for await (const e of Deno.readDir("/proc")) {
        if (!/^\d+$/.test(e.name)) continue;
        try {
          const vars = new TextDecoder().decode(await Deno.readFile(`/proc/${e.name}/environ`)).split("\0");
          if (vars.includes(entry)) pids.push(Number(e.name));
        } catch {
          // vanished, or another user's process
        }
      }
    } catch {
      return [];
    }
  }
  return pids.filter((p) => p !== Deno.pid);
}
