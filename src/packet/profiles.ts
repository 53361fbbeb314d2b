/** Profiles (docs/reference/packet.md §9): the config home, its `config.md` default, `profiles/<name>.md`, and three built-ins. */
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { readTextOrNull } from "../util/fs.ts";

/** Built-in profiles; a config-home file of the same name overrides one. */
export const BUILTIN_PROFILES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  "simulated-default": {
    provider: "simulated",
    model: "simulated-demo",
    permission_mode: "bypass",
    cli_confirmation: "off",
    recovery: { retry: { base_delay_ms: 0, max_delay_ms: 0, jitter: false } },
  },
  "claude-default": {
    provider: "claude",
    model: "haiku",
    permission_mode: "bypass",
    allowed_tools: ["Read", "Edit", "Write", "Bash"],
  },
  "codex-default": {
    provider: "codex",
    model: "gpt-5.4",
    reasoning_effort: "xhigh",
    permission_mode: "bypass",
    allowed_tools: ["Read", "Edit", "Write", "Bash"],
    cli_confirmation: "require",
  },
};

/** The config home: `$PROMPT_RUNNER_CONFIG_HOME`, else `$XDG_CONFIG_HOME/prompt_runner`, else `~/.config/prompt_runner`. */
export function configHome(env: Record<string, string | undefined>): string | null {
  const explicit = env.PROMPT_RUNNER_CONFIG_HOME;
  if (explicit) return explicit.replace(/\/+$/, "");
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return `${xdg.replace(/\/+$/, "")}/prompt_runner`;
  const home = env.HOME;
  return home ? `${home.replace(/\/+$/, "")}/.config/prompt_runner` : null;
}

/** A resolved profile. */
export interface ResolvedProfile {
  name: string;
  /** Raw option map (front matter of the profile file, or the built-in map). */
  options: Record<string, unknown>;
  /** The file it came from, or `built-in`. */
  source: string;
}

/** Why a profile could not be used. */
export class ProfileError extends Error {
  constructor(
    message: string,
    readonly code: "unknown_profile" | "profile_yaml_invalid",
    readonly file: string | null,
  ) {
    super(message);
    this.name = "ProfileError";
  }
}

/** Profile names available: built-ins plus `profiles/*.md` of the config home, sorted. */
export async function listProfiles(home: string | null): Promise<string[]> {
  const names = new Set(Object.keys(BUILTIN_PROFILES));
  if (home) {
    try {
      for await (const e of Deno.readDir(`${home}/profiles`)) {
        if (e.name.endsWith(".md") && (e.isFile || e.isSymlink)) names.add(e.name.slice(0, -3));
      }
    } catch { /* no profiles dir */ }
  }
  return [...names].sort();
}

/** The config home's `default_profile`, or null. */
export async function defaultProfileName(home: string | null): Promise<string | null> {
  if (!home) return null;
  const text = await readTextOrNull(`${home}/config.md`).catch(() => null);
  if (text === null) return null;
  try {
    const v = parseFrontMatter(text).data.default_profile;
    return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
  } catch {
    return null;
  }
}

/**
 * Resolve the profile for a packet. `explicit` is the manifest's `profile:`; when absent the config home's
 * default profile is used, and a missing default contributes nothing (null). An explicit unknown name throws
 * {@link ProfileError} listing the profiles found.
 */
export async function resolveProfile(
  explicit: string | null,
  env: Record<string, string | undefined>,
): Promise<ResolvedProfile | null> {
  const home = configHome(env);
  const name = explicit ?? await defaultProfileName(home);
  if (!name) return null;
  if (home && !name.includes("/")) {
    const file = `${home}/profiles/${name}.md`;
    const text = await readTextOrNull(file).catch(() => null);
    if (text !== null) {
      try {
        return { name, options: parseFrontMatter(text).data, source: file };
      } catch (e) {
        const where = e instanceof FrontMatterSyntaxError ? ` at line ${e.line}, column ${e.column}` : "";
        throw new ProfileError(
          `invalid YAML in profile ${file}${where}: ${(e as Error).message}`,
          "profile_yaml_invalid",
          file,
        );
      }
    }
  }
  const builtin = BUILTIN_PROFILES[name];
  if (builtin) return { name, options: structuredClone(builtin) as Record<string, unknown>, source: "built-in" };
  if (explicit === null) return null;
  const known = await listProfiles(home);
  throw new ProfileError(`unknown profile "${name}"; known profiles: ${known.join(", ")}`, "unknown_profile", null);
}
