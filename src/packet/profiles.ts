/** Profiles (docs/reference/packet.md §9): the config home, its `config.md` default, `profiles/<name>.md`, and three built-ins. */
import { FrontMatterSyntaxError, parseFrontMatter } from "./front_matter.ts";
import { closest } from "../util/edit_distance.ts";
import { MANIFEST_OPTION_KEYS } from "./options.ts";

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
    /** The field at fault when it is not the manifest's `profile:` (`default_profile` of `config.md`). */
    readonly key: string | null = null,
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

/**
 * The text of a config-home file, or null when absent; any other failure is a {@link ProfileError} naming it. Only a
 * regular file is read: a FIFO at a profile path would wait forever.
 */
async function readConfigFile(file: string): Promise<string | null> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) {
      throw new ProfileError(
        `cannot read ${file}: it is not a regular file; expected a markdown file with front matter`,
        "profile_unreadable",
        file,
      );
    }
    return await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof ProfileError) throw e;
    if (e instanceof Deno.errors.NotFound) return null;
    throw unreadable(file, e);
  }
}

/** The keys `config.md` may have. */
const CONFIG_KEYS: readonly string[] = ["default_profile"];

/** The keys a profile file may have: the manifest's option keys and `prompt_template` (read by `prompt new`). */
export const PROFILE_KEYS: readonly string[] = [...MANIFEST_OPTION_KEYS, "prompt_template"];

/** A key of a config-home file that nothing reads (`default_profle:` in config.md, `recovry:` in a profile). */
export interface ProfileNote {
  /** The file (absolute). */
  file: string;
  key: string;
  /** The closest known key, or null. */
  hint: string | null;
}

function unknownKeys(file: string, data: Record<string, unknown>, known: readonly string[], notes: ProfileNote[]) {
  for (const key of Object.keys(data)) {
    if (!known.includes(key)) notes.push({ file, key, hint: closest(key, known) });
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
 * be read or parsed throws {@link ProfileError}, as a broken profile file does; its unknown keys go to `notes`.
 */
async function defaultProfileName(home: string | null, notes: ProfileNote[]): Promise<string | null> {
  if (!home) return null;
  const file = `${home}/config.md`;
  const text = await readConfigFile(file);
  if (text === null) return null;
  const data = await configFrontMatter(file, text, "config");
  unknownKeys(file, data, CONFIG_KEYS, notes);
  const v = data.default_profile;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

/**
 * Resolve the profile for a packet. `explicit` is the manifest's `profile:`; when absent the config home's
 * default profile is used, and no default contributes nothing (null). An unknown name — explicit, or the
 * `default_profile` of `config.md` — throws {@link ProfileError} listing the profiles found. Keys of `config.md`
 * and of the profile file that nothing reads are pushed to `notes` (the loader warns).
 */
export async function resolveProfile(
  explicit: string | null,
  env: Record<string, string | undefined>,
  notes: ProfileNote[] = [],
): Promise<ResolvedProfile | null> {
  const home = configHome(env);
  const name = explicit ?? await defaultProfileName(home, notes);
  if (!name) return null;
  if (home && !name.includes("/")) {
    const file = `${home}/profiles/${name}.md`;
    const text = await readConfigFile(file);
    if (text !== null) {
      const options = await configFrontMatter(file, text, "profile");
      unknownKeys(file, options, PROFILE_KEYS, notes);
      return { name, options, source: file };
    }
  }
  const builtin = BUILTIN_PROFILES[name];
  if (builtin) return { name, options: structuredClone(builtin) as Record<string, unknown>, source: "built-in" };
  const names = await listProfiles(home);
  const known = names.join(", ");
  if (explicit === null) {
    const hint = closest(name, names);
    // A default that names nothing used to be skipped silently, and the packet ran on the built-in default lane.
    const file = `${home}/config.md`;
    throw new ProfileError(
      `${file}: default_profile "${name}" names no profile${
        hint ? `; did you mean "${hint}"?` : ""
      }; known profiles: ${known}`,
      "unknown_profile",
      file,
      "default_profile",
    );
  }
  throw new ProfileError(`unknown profile "${name}"; known profiles: ${known}`, "unknown_profile", null);
}
