/**
 * Detached runs (`start`, `run --detach`; docs/reference/cli.md §3.1): start this same program's `run` in its own session with its
 * output appended to `<store>/logs/runner-<ts>.log`, wait until it holds the store root's lease, and report
 * `{run_id, pid, store_root}`. The caller exits 0 while the runner carries on.
 */
import { LeaseHeldError, NotFoundError, PacketError, RunFailedError, UsageError } from "../errors.ts";
import { readLease } from "../store/lease.ts";
import { storePaths } from "../store/paths.ts";
import { readTextOrNull } from "../util/fs.ts";
import { ensureStoreDir, openStoreFile } from "../util/safe_fs.ts";
import { fileStamp } from "../util/time.ts";
import { readCurrentRunRecord } from "../store/run_record_read.ts";
import { runHelper } from "../util/helper.ts";
import { systemdRunArgv } from "./systemd_user.ts";

/** What a detached start reports. */
export interface DetachedRun {
  run_id: string;
  pid: number;
  store_root: string;
  /** The runner's log file. */
  log: string;
  /** The systemd user unit the runner runs in (`operator.containment: systemd_user`), else null. */
  unit: string | null;
}

/** Options of {@link detachRun}. */
export interface DetachOptions {
  /** Deno `--allow-*` flags of the `run` command, given by cli/ (which owns the permission sets). */
  denoFlags: readonly string[];
  /** Working directory of the runner (default: this process's). */
  cwd?: string;
  /** Extra environment for the runner (it inherits this process's environment). */
  env?: Record<string, string>;
  /** How long to wait for the lease (default 60 s). */
  timeoutMs?: number;
  /**
   * Launch as this transient `systemd-run --user` unit (`operator.containment: systemd_user`) instead of a plain
   * background process; the caller checked that a user systemd is reachable.
   */
  systemdUnit?: string;
}

/**
 * V8 flags of a runner process the product starts (detached runs, `deno task compile`, the README's alias): a young
 * generation capped at 2 MB semi-spaces instead of V8's 16 MB, and the old generation let grow by half its live size
 * between full collections instead of a factor V8 picks per run (up to 4×). A runner's garbage is small and
 * short-lived, so the scavenges this adds cost no measurable CPU, while a long run no longer keeps tens of MB of RSS
 * its young generation grew to, nor ends 60 MB higher in one run than in the next (a 10,000-prompt run: 154–218 MB
 * without the second flag, 154–158 with it; docs/bench.md, "Memory at 10,000 prompts"). V8 reads them only at start:
 * they cannot be set from inside.
 */
export const RUNNER_V8_FLAGS: readonly string[] = ["--v8-flags=--max-semi-space-size=2,--heap-growing-percent=50"];

/** Flags that make no sense for the detached runner: its output is a log file. */
const DROPPED = new Set(["--detach", "--json"]);

/** Whether this process runs under the `deno` executable (not a compiled binary). */
export function underDeno(execPath = Deno.execPath()): boolean {
  const base = execPath.slice(execPath.lastIndexOf("/") + 1);
  return base === "deno" || base === "deno.exe";
}

/**
 * The command line that runs `prompt_runner run ARGS…`: under `deno run`, the executable with the `run`
 * subcommand's permission flags (`denoFlags`, from cli/) and the main module; compiled, the binary itself.
 */
export function runnerCommand(
  args: string[],
  opts: { denoFlags: readonly string[]; execPath?: string; mainModule?: string },
): string[] {
  const execPath = opts.execPath ?? Deno.execPath();
  const runArgs = ["run", ...args.filter((a) => !DROPPED.has(a))];
  if (!underDeno(execPath)) return [execPath, ...runArgs];
  const main = new URL(opts.mainModule ?? Deno.mainModule).pathname;
  const config = `${main.slice(0, main.lastIndexOf("/"))}/deno.json`;
  const configFlags = (() => {
    try {
      return Deno.statSync(config).isFile ? ["--config", config] : [];
    } catch {
      return [];
    }
  })();
  return [
    execPath,
    "run",
    "--quiet",
    "--no-prompt",
    ...configFlags,
    ...RUNNER_V8_FLAGS,
    ...opts.denoFlags,
    main,
    ...runArgs,
  ];
}

/** The human line printed after a detached start. */
export function detachedLine(r: DetachedRun): string {
  const where = r.unit ? `in systemd unit ${r.unit}` : "in the background";
  return `Started run ${r.run_id} ${where} (pid ${r.pid}); store ${r.store_root}; log ${r.log}`;
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

async function logTail(path: string, lines = 15): Promise<string[]> {
  // Deliberately tolerant: the tail only decorates the error being reported (the child's own failure); a log that
  // cannot be read must not replace that error, and the hints still name the log's path.
  const text = await readTextOrNull(path).catch(() => null);
  return text ? text.trimEnd().split("\n").slice(-lines) : [];
}

function childFailure(code: number, log: string, tail: string[]): Error {
  const message = `the detached runner exited with code ${code} before holding the lease`;
  const hints = [...tail, `log: ${log}`];
  switch (code) {
    case 2:
      return new UsageError("detached_run_failed", message, { hints });
    case 3:
      return new PacketError("detached_run_failed", message, { hints });
    case 4:
      return new NotFoundError("detached_run_failed", message, { hints });
    case 5:
      return new LeaseHeldError("lease_held", message, { hints });
    default:
      return new RunFailedError("detached_run_failed", message, { hints });
  }
}

/** The run `runs/current.json` names, read through the one run-record reader (ids validated), or null. */
async function currentRunId(storeRoot: string): Promise<string | null> {
  // Deliberately tolerant: polled while the detached child writes its run record; an unreadable record here means
  // "not yet", and the child's own exit (or the lease wait) reports a real problem.
  return (await readCurrentRunRecord(storeRoot).catch(() => null))?.run_id ?? null;
}

/**
 * Start `prompt_runner run ARGS…` detached (own session, stdin null, stdout and stderr appended to
 * `<store>/logs/runner-<ts>.log`) and wait until it holds the lease of `storeRoot`. A runner that exits first is
 * reported with its exit code mapped back (5 lease held, 3 packet invalid, …) and the tail of its log; one that
 * completed at once (exit 0) is reported from its run record.
 */
export async function detachRun(args: string[], storeRoot: string, opts: DetachOptions): Promise<DetachedRun> {
  const paths = storePaths(storeRoot);
  await ensureStoreDir(paths.root, paths.logs);
  const log = `${paths.logs}/runner-${fileStamp()}.log`;
  (await openStoreFile(log)).close(); // created here (never through a link) before the shell appends to it
  const cmd = runnerCommand(args, { denoFlags: opts.denoFlags });
  // Deno cannot hand a file to a child's stdout; a shell opens the log and execs the runner (same pid).
  const script = `exec ${cmd.map(shellQuote).join(" ")} >> ${shellQuote(log)} 2>&1`;
  const env: Record<string, string> = opts.systemdUnit
    ? { PROMPT_RUNNER_SERVICE_MODE: "systemd", PROMPT_RUNNER_SYSTEMD_UNIT: opts.systemdUnit, ...opts.env }
    : { PROMPT_RUNNER_SERVICE_MODE: "detached", ...opts.env };
  const unit = opts.systemdUnit ?? null;
  const launched = opts.systemdUnit
    ? await launchUnit(opts.systemdUnit, script, opts.cwd ?? Deno.cwd(), env)
    : launchProcess(script, opts.cwd ?? Deno.cwd(), env);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let settleUntil: number | null = null;
  while (Date.now() < deadline) {
    const lease = await readLease(storeRoot);
    const leaseRun = typeof lease.info?.run_id === "string" ? lease.info.run_id : null;
    // A unit's runner has a pid systemd chose; the lease was down before the launch, so an up lease is its.
    if (lease.state === "up" && (launched.pid === null || lease.pid === launched.pid) && leaseRun) {
      // The runner writes run.pid with a fresh id, then settles it after its resume decision (docs/reference/runner.md §10.5).
      settleUntil ??= Date.now() + 5_000;
      if ((await currentRunId(storeRoot)) === leaseRun || Date.now() > settleUntil) {
        return { run_id: leaseRun, pid: lease.pid ?? launched.pid ?? 0, store_root: paths.root, log, unit };
      }
    }
    const done = launched.exited();
    if (done) {
      const runId = await currentRunId(storeRoot);
      if (done.code === 0 && runId) {
        return { run_id: runId, pid: launched.pid ?? 0, store_root: paths.root, log, unit };
      }
      throw childFailure(done.code, log, await logTail(log));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const who = launched.pid === null ? `unit ${opts.systemdUnit}` : `pid ${launched.pid}`;
  throw new RunFailedError(
    "detach_timeout",
    `the detached runner (${who}) did not take the lease of ${paths.root} within ${
      Math.round((opts.timeoutMs ?? 60_000) / 1000)
    }s`,
    { hints: [...(await logTail(log)), `log: ${log}`, `it may still be starting; see: prompt_runner status`] },
  );
}

/** A launched runner: its pid when known, and its exit once it has exited (null for a unit: systemd owns it). */
interface Launched {
  pid: number | null;
  exited(): Deno.CommandStatus | null;
}

function launchProcess(script: string, cwd: string, env: Record<string, string>): Launched {
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", script],
    cwd,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  let exited: Deno.CommandStatus | null = null;
  child.status.then((s) => (exited = s), () => {});
  return { pid: child.pid, exited: () => exited };
}

async function launchUnit(unit: string, script: string, cwd: string, env: Record<string, string>): Promise<Launched> {
  const argv = systemdRunArgv(unit, ["/bin/sh", "-c", script], {
    cwd,
    envNames: Object.keys(Deno.env.toObject()),
    setEnv: env,
  });
  const r = await runHelper(argv[0]!, { args: argv.slice(1), cwd, timeoutMs: 30_000 });
  if (!r.success) {
    throw new RunFailedError(
      "workspace_containment_unavailable",
      `systemd-run --user could not start unit ${unit} (exit ${r.code ?? r.signal}); nothing was started`,
      { hints: new TextDecoder().decode(r.stderr).trim().split("\n").slice(-10) },
    );
  }
  return { pid: null, exited: () => null };
}
