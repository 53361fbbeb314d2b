/**
 * Bounded helper processes (git, `--version` probes, `/proc` readers): every helper the runner spawns gets its own
 * process group, a deadline with SIGTERM → SIGKILL escalation, and a bounded drain, so a helper that ignores
 * SIGTERM or leaves a child holding its stdout can never hang the runner (docs/processes.md).
 *
 * Deno's `detached` spawn (a new session) has to `fork()` the runner — a large process, so every helper paid for
 * copying its page tables and then for a copy-on-write fault on each page the runner wrote afterwards: most of a
 * trivial prompt's CPU (docs/bench.md `scale`). A helper started with `viaSetsid` is spawned the cheap way
 * (`vfork`) as `setsid <command> …`: setsid(1), not a group leader, calls setsid() and execs the command in place,
 * so the command runs in its own session and process group under the same pid, exactly as a detached spawn would.
 */
import { concatBytes } from "./bytes.ts";
import { sendSignal } from "./signal.ts";
import { spawnRetryingBusy } from "./spawn.ts";
import { meterSpawn } from "./read_meter.ts";

/** Default deadline of a helper. */
const HELPER_TIMEOUT_MS = 30_000;
/** Default grace between SIGTERM and SIGKILL of a helper's group. */
const HELPER_KILL_GRACE_MS = 1000;
/** How long pipes may stay open after the helper itself exited (a leftover child holding them). */
const DRAIN_MS = 500;

/** How to run one helper. */
export interface HelperOptions {
  args?: string[];
  cwd?: string;
  /** Added to the inherited environment. */
  env?: Record<string, string>;
  /** Deadline in ms (default {@link HELPER_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace (default {@link HELPER_KILL_GRACE_MS}). */
  killGraceMs?: number;
  /** Capture stderr (default true); false discards it. */
  stderr?: boolean;
  /**
   * Start through `setsid(1)` (see the module note) when it is installed. Only for commands that are safe to run
   * again: a terminal signal (Ctrl-C) that lands in the instant before setsid() took the helper out of the runner's
   * process group kills it before the command started, and it is then started again the detached way. A command
   * that is not installed exits 127 (setsid's report on stderr) instead of throwing.
   */
  viaSetsid?: boolean;
}

/** Where setsid(1) is, or null when it is not installed (then helpers spawn detached). */
let setsidPath: string | null | undefined;

/**
 * Whether this process may spawn `command` without asking: a query never prompts, and a spawn outside a narrow
 * `--allow-run` list would stop a terminal run at Deno's permission question.
 */
export function mayRunQuietly(command: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command }).state === "granted";
  } catch {
    return false;
  }
}

function findSetsid(): string | null {
  if (setsidPath !== undefined) return setsidPath;
  setsidPath = null;
  for (const p of ["/usr/bin/setsid", "/bin/setsid"]) {
    try {
      if (mayRunQuietly(p) && Deno.statSync(p).isFile) {
        setsidPath = p;
        break;
      }
    } catch { /* not here */ }
  }
  return setsidPath;
}

/** Signals a terminal sends its foreground process group: what can reach a helper before setsid() ran. */
const TERMINAL_SIGNALS: ReadonlySet<string> = new Set(["SIGINT", "SIGQUIT", "SIGHUP"]);

/** What a helper did. */
export interface HelperResult {
  success: boolean;
  /** Exit code (null when killed by a signal). */
  code: number | null;
  signal: string | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
  /** The deadline fired and the helper's group was terminated. */
  timedOut: boolean;
}

function killGroup(pid: number, signal: Deno.Signal): void {
  if (!sendSignal(-pid, signal)) sendSignal(pid, signal);
}

async function collect(stream: ReadableStream<Uint8Array> | null, stop: Promise<void>): Promise<Uint8Array> {
  if (stream === null) return new Uint8Array();
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  const stopped = stop.then(() => null);
  try {
    while (true) {
      const r = await Promise.race([reader.read(), stopped]);
      if (r === null || r.done) break;
      parts.push(r.value);
    }
  } catch {
    // the stream errored: keep what arrived
  } finally {
    await reader.cancel().catch(() => {});
  }
  return concatBytes(parts);
}

/**
 * Run `command` to completion under a deadline, in its own process group with stdin closed. Throws only when the
 * helper cannot be started (the spawn error, e.g. `Deno.errors.NotFound`); never hangs past
 * `timeoutMs + killGraceMs + 500 ms`.
 */
export async function runHelper(command: string, opts: HelperOptions = {}): Promise<HelperResult> {
  const setsid = opts.viaSetsid ? findSetsid() : null;
  if (setsid === null) return await runOnce(command, opts, null);
  let first: HelperResult;
  try {
    first = await runOnce(command, opts, setsid);
  } catch {
    setsidPath = null; // setsid cannot be spawned here (permissions): spawn detached from now on
    return await runOnce(command, opts, null);
  }
  // Killed by the terminal before setsid() ran: the command never started (afterwards no terminal signal reaches it).
  if (first.timedOut || first.signal === null || !TERMINAL_SIGNALS.has(first.signal)) return first;
  return await runOnce(command, opts, null);
}

async function runOnce(command: string, opts: HelperOptions, setsid: string | null): Promise<HelperResult> {
  meterSpawn(command);
  const child = spawnRetryingBusy(setsid ?? command, {
    args: setsid ? [command, ...opts.args ?? []] : opts.args ?? [],
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
    ...(opts.env !== undefined ? { env: opts.env } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: opts.stderr === false ? "null" : "piped",
    detached: setsid === null,
  });
  let timedOut = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const deadline = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), opts.killGraceMs ?? HELPER_KILL_GRACE_MS);
  }, opts.timeoutMs ?? HELPER_TIMEOUT_MS);
  let release!: () => void;
  const stop = new Promise<void>((r) => (release = r));
  const out = collect(child.stdout, stop);
  const err = opts.stderr === false ? Promise.resolve(new Uint8Array()) : collect(child.stderr, stop);
  const status = await child.status;
  clearTimeout(deadline);
  clearTimeout(killTimer);
  // A leftover child may still hold the pipes: give it a moment, then take the group down and stop reading.
  const drain = setTimeout(() => {
    killGroup(child.pid, "SIGKILL");
    release();
  }, timedOut ? 0 : DRAIN_MS);
  const [stdout, stderr] = await Promise.all([out, err]);
  clearTimeout(drain);
  release();
  if (timedOut) killGroup(child.pid, "SIGKILL");
  return {
    success: status.success && !timedOut,
    code: status.signal === null ? status.code : null,
    signal: status.signal ?? null,
    stdout,
    stderr,
    timedOut,
  };
}
