/** Turns a {@link CliProfile} into a {@link Lane}: start = the generic CLI session, probe = `<bin> --version`. */
import type { SessionOptions } from "./types.ts";
import { startCliSession } from "./cli_session.ts";
import { type CliProfile, resolveExecutable } from "./profile.ts";
import { type Lane, LaunchError, type ProbeResult } from "./types.ts";
import { DRIVER_EXECUTABLES } from "../util/executables.ts";
import { runHelper } from "../util/helper.ts";
import { SESSION_TOKEN_ENV, sweepByEnv } from "../util/containment.ts";
import { denoEnv } from "../util/ci_env.ts";

/** Bound of a `--version` probe. */
export const PROBE_TIMEOUT_MS = 15_000;

function isExecutableFile(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    return st.isFile && (st.mode === null || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}

/** Where `exe` resolves: itself when it names a path, else the first executable match on PATH; null if none. */
export function whichExecutable(exe: string, pathVar: string | undefined = denoEnv("PATH")): string | null {
  if (exe.includes("/")) return isExecutableFile(exe) ? exe : null;
  for (const dir of (pathVar ?? "").split(":")) {
    if (dir === "") continue;
    const candidate = `${dir.replace(/\/$/, "")}/${exe}`;
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Run `<bin> --version` for preflight (docs/reference/providers.md §1). Never throws. */
export async function probeCli(
  profile: CliProfile,
  options: SessionOptions,
  probeTimeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  const exe = resolveExecutable(profile, options, {});
  const base = { name: profile.lane.name, executable: exe };
  const path = whichExecutable(exe);
  const install = `install with: ${profile.lane.installHint}`;
  if (path === null) {
    return {
      ...base,
      path: null,
      version: null,
      available: false,
      error: `executable "${exe}" was not found; ${install}`,
    };
  }
  try {
    // Bounded: a probe that ignores SIGTERM or leaves a child holding stdout cannot hang the caller.
    // A probe that setsid()s a child escapes the helper's group: its token finds it (containment.ts).
    const token = crypto.randomUUID();
    const out = await runHelper(path, {
      args: ["--version"],
      timeoutMs: probeTimeoutMs,
      env: { [SESSION_TOKEN_ENV]: token },
    })
      .finally(() => sweepByEnv(SESSION_TOKEN_ENV, token, { termGraceMs: 200 }).catch(() => {}));
    if (out.timedOut) {
      return {
        ...base,
        path,
        version: null,
        available: false,
        error: `"${exe} --version" did not finish within ${probeTimeoutMs} ms`,
      };
    }
    const text = new TextDecoder().decode(out.stdout).trim() || new TextDecoder().decode(out.stderr).trim();
    const version = text.split("\n")[0]?.trim() || null;
    if (!out.success) {
      const why = out.signal ? `was killed by ${out.signal}` : `exited with code ${out.code}`;
      return {
        ...base,
        path,
        version: null,
        available: false,
        error: `"${exe} --version" ${why}: ${version ?? ""}`.trim(),
      };
    }
    return { ...base, path, version, available: true, error: null };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return {
      ...base,
      path,
      version: null,
      available: false,
      error: `"${exe} --version" could not run: ${msg}; ${install}`,
    };
  }
}

/** A Lane over a CLI profile. */
export function cliLane(profile: CliProfile): Lane {
  const transportFor = (options: SessionOptions) => profile.transportFor?.(options) ?? "exec";
  return {
    profile: profile.lane,
    transportFor,
    start: (spec) => {
      const transport = transportFor(spec.options);
      if (transport === "exec") return startCliSession(profile, spec);
      const start = profile.transportSessions?.[transport];
      if (!start) throw new LaunchError(`the ${profile.lane.name} lane has no ${transport} transport`);
      return start(spec);
    },
    probe: (options) => probeCli(profile, options),
    executables: (options) => ({ executable: resolveExecutable(profile, options, {}), helpers: DRIVER_EXECUTABLES }),
  };
}
