/**
 * Which CI service a process runs under (docs/ci.md), from the variables the services set: GitHub Actions
 * (`GITHUB_ACTIONS=true`), GitLab CI (`GITLAB_CI=true`), or any CI that sets `CI` (true, 1, yes). Pure: the caller
 * passes the variable lookup.
 */

/** A variable lookup (`Deno.env.get`, or a map in tests); undefined when unset or not readable. */
export type EnvLookup = (name: string) => string | undefined;

/** The CI service, when there is one. */
export interface CiEnvironment {
  kind: "github" | "gitlab" | "generic";
  /** GitHub Actions: the job summary file (`GITHUB_STEP_SUMMARY`), null when unset. */
  stepSummary: string | null;
  /** GitHub Actions: the checkout root (`GITHUB_WORKSPACE`) annotation paths are relative to, null when unset. */
  workspace: string | null;
}

/** `true`, `1`, `yes` (any case). */
export function truthy(value: string | undefined): boolean {
  return value !== undefined && /^(true|1|yes)$/i.test(value.trim());
}

/** The CI service this process runs under, or null. */
export function ciEnvironment(get: EnvLookup): CiEnvironment | null {
  const nonEmpty = (name: string) => {
    const v = get(name);
    return v === undefined || v === "" ? null : v;
  };
  if (truthy(get("GITHUB_ACTIONS"))) {
    return { kind: "github", stepSummary: nonEmpty("GITHUB_STEP_SUMMARY"), workspace: nonEmpty("GITHUB_WORKSPACE") };
  }
  if (truthy(get("GITLAB_CI"))) return { kind: "gitlab", stepSummary: null, workspace: nonEmpty("CI_PROJECT_DIR") };
  if (truthy(get("CI"))) return { kind: "generic", stepSummary: null, workspace: null };
  return null;
}

/**
 * Colour is off under CI unless forced: `FORCE_COLOR` set to anything but empty or `0` (`--color always` forces it
 * too, decided by the caller).
 */
export function ciColourOff(get: EnvLookup): boolean {
  if (ciEnvironment(get) === null) return false;
  const force = get("FORCE_COLOR");
  return force === undefined || force === "" || force === "0";
}

/** `Deno.env.get` that answers undefined instead of throwing without the env permission. */
export function denoEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
