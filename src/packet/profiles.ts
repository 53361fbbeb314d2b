/** Profiles (docs/reference/packet.md §9): the config home, its `config.md` default, `profiles/<name>.md`, and three built-ins. */
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { readTextOrNull } from "../util/fs.ts";

/** Built-in profiles; a config-home file of the same name overrides one. */
const BUILTIN_PROFILES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
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
    model: "gpt-5.5",
    reasoning_effort: "xhigh",
    permission_mode: "bypass",
    allowed_tools: ["Read", "Edit", "Write", "Bash"],
    cli_confirmation: "require",
  },
};

/** The built-in profiles' names, sorted. */
export function builtinProfileNames(): string[] {
  return Object.keys(BUILTIN_PROFILES).sort();
}

/** A built-in profile's options (a copy), or null when there is no built-in of that name. */
export function builtinProfile(name: string): Record<string, unknown> | null {
  const p = BUILTIN_PROFILES[name];
  return p ? structuredClone(p) as Record<string, unknown> : null;
}

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
    readonly code: "unknown_profile" | "profile_yaml_invalid" | "profile_unreadable",
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
    const dir = `${home}/profiles`;
    try {
      for await (const e of Deno.readDir(dir)) {
        if (e.name.endsWith(".md") && (e.isFile || e.isSymlink)) names.add(e.name.slice(0, -3));
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw unreadable(dir, e); // no profiles dir: built-ins only
    }
  }
  return [...names].sort();
}

/** A config-home file that exists but cannot be read (a directory, no permission …): named, never skipped. */
function unreadable(file: string, e: unknown): ProfileError {
  return new ProfileError(`cannot read ${file}: ${(e as Error).message}`, "profile_unreadable", file);
}

/** The text of a config-home file, or null when absent; any other failure is a {@link ProfileError} naming it. */
async function readConfigFile(file: string): Promise<string | null> {
  try {
    return await readTextOrNull(file);
  } catch (e) {
    throw unreadable(file, e);
  }
}

/** The front matter of a config-home file; invalid YAML is a {@link ProfileError} naming the file and position. */
async function configFrontMatter(file: string, text: string, what: string): Promise<Record<string, unknown>> {
  try {
    return (await parseFrontMatter(text)).data;
  } catch (e) {
    const where = e instanceof FrontMatterSyntaxError ? ` at line ${e.line}, column ${e.column}` : "";
    throw new ProfileError(
      `invalid YAML in ${what} ${file}${where}: ${(e as Error).message}`,
      "profile_yaml_invalid",
      file,
    );
  }
}

/**
 * The config home's `default_profile`, or null (no home, no `config.md`, or no such key). A `config.md` that cannot
 * be read or parsed throws {@link ProfileError}, as a broken profile file does.
 */
async function defaultProfileName(home: string | null): Promise<string | null> {
  if (!home) return null;
  const file = `${home}/config.md`;
  const text = await readConfigFile(file);
  if (text === null) return null;
  const v = (await configFrontMatter(file, text, "config")).default_profile;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
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
    const text = await readConfigFile(file);
    if (text !== null) return { name, options: await configFrontMatter(file, text, "profile"), source: file };
  }
  const builtin = BUILTIN_PROFILES[name];
  if (builtin) return { name, options: structuredClone(builtin) as Record<string, unknown>, source: "built-in" };
  if (explicit === null) return null;
  const known = await listProfiles(home);
  throw new ProfileError(`unknown profile "${name}"; known profiles: ${known.join(", ")}`, "unknown_profile", null);
}
