/**
 * `operator.containment: systemd_user` (docs/reference/workspace.md §9): `start` launches the detached runner as a
 * transient `systemd-run --user` service with `KillMode=control-group`, so stopping the unit ends every process the
 * run started. Where no user systemd is reachable the start is refused before anything is spawned — never silently
 * downgraded to the default containment.
 */
import { RunFailedError } from "../errors.ts";
import { findOnPath } from "../util/mod.ts";
import { runHelper } from "../util/helper.ts";

/** Environment reader (injectable for tests). */
export type EnvGet = (name: string) => string | undefined;

/** Why a user systemd is not reachable, or null when it is (no spawn: the files systemd-run itself needs). */
export async function systemdUserProblem(env: EnvGet): Promise<string | null> {
  if ((await findOnPath("systemd-run", env("PATH") ?? "")) === null) return "systemd-run is not on PATH";
  const runtime = env("XDG_RUNTIME_DIR");
  if (!runtime) return "XDG_RUNTIME_DIR is not set (no user session)";
  const socket = `${runtime}/systemd/private`;
  const st = await Deno.stat(socket).catch(() => null);
  if (!st?.isSocket) return `no user systemd manager at ${socket}`;
  return null;
}

/** Refuse (exit 1) when a user systemd is not reachable, naming why and the alternative. */
export async function assertSystemdUser(env: EnvGet): Promise<void> {
  const problem = await systemdUserProblem(env);
  if (problem === null) return;
  throw new RunFailedError(
    "workspace_containment_unavailable",
    `operator.containment: systemd_user needs a reachable user systemd (systemd-run --user): ${problem}; ` +
      "nothing was started",
    { hints: ["run where a user systemd runs (loginctl enable-linger), or set operator.containment: process_group"] },
  );
}

/** A unit name systemd accepts: `prompt-runner-<id>-<stamp>` with other characters replaced by `-`. */
export function unitName(workspaceId: string, stamp: string): string {
  return `prompt-runner-${workspaceId}-${stamp}`.replace(/[^A-Za-z0-9:_.-]/g, "-");
}

/**
 * The `systemd-run` command line of a transient user service running `command`: control-group kill mode, the
 * working directory, and each inherited variable passed by name only (`--setenv=NAME` copies systemd-run's own
 * value), so no value — a key, a token — is ever visible in argv.
 */
export function systemdRunArgv(
  unit: string,
  command: string[],
  opts: { cwd: string; envNames: string[]; setEnv?: Record<string, string> },
): string[] {
  const names = [...new Set(opts.envNames)].filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)).sort();
  return [
    "systemd-run",
    "--user",
    `--unit=${unit}`,
    "--collect",
    "--quiet",
    "--property=KillMode=control-group",
    "--property=Type=exec",
    `--working-directory=${opts.cwd}`,
    ...names.map((n) => `--setenv=${n}`),
    ...Object.entries(opts.setEnv ?? {}).map(([k, v]) => `--setenv=${k}=${v}`),
    "--",
    ...command,
  ];
}

/** What `systemctl --user stop` reported: `ok`, or why not (the unit may already be gone: systemd collected it). */
export interface UnitStop {
  ok: boolean;
  detail: string;
}

/** Run one `systemctl` command line (a seam: tests pass their own; the default spawns `systemctl` from PATH). */
export type Systemctl = (args: string[]) => Promise<{ code: number | null; stderr: string }>;

const realSystemctl: Systemctl = async (args) => {
  try {
    const r = await runHelper("systemctl", { args, timeoutMs: 120_000 });
    return { code: r.code, stderr: new TextDecoder().decode(r.stderr).trim() };
  } catch (e) {
    return { code: null, stderr: e instanceof Error ? e.message : String(e) };
  }
};

/**
 * `systemctl --user stop <unit>`: with `KillMode=control-group` systemd ends every process left in the unit's control
 * group. A unit that is no longer loaded (exit 5: it ended and was collected) counts as stopped.
 */
export async function stopUnit(unit: string, systemctl: Systemctl = realSystemctl): Promise<UnitStop> {
  const r = await systemctl(["--user", "stop", unit]);
  if (r.code === 0) return { ok: true, detail: `unit ${unit} stopped` };
  if (r.code === 5) return { ok: true, detail: `unit ${unit} had already ended` };
  const why = r.stderr.split("\n").filter(Boolean).at(-1) ?? `exit ${r.code ?? "by signal"}`;
  return { ok: false, detail: `systemctl --user stop ${unit} failed: ${why}` };
}
