/**
 * The home profile store (docs/reference/packet.md §9): `profiles/<name>.md` under the config home, written by
 * `profile new` and `init`, listed by `profile list`. Reading a profile for a packet stays in ./profiles.ts.
 */
import { FindingSink } from "./findings.ts";
import { inferProvider, MANIFEST_OPTION_KEYS, normalizeLayer, normalizeProvider } from "./options.ts";
import { builtinProfileNames, configHome, listProfiles, ProfileError, resolveProfile } from "./profiles.ts";
import type { Finding, Packet } from "./types.ts";
import { stringifyYaml } from "../util/yaml.ts";
import { createNew } from "../util/create_new.ts";
import { UsageError } from "../errors.ts";

/** What a profile name must look like: a file name without a path, e.g. `codex-fast` or `claude_safe`. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Why `name` cannot name a profile, or null when it can. */
export function profileNameProblem(name: string): string | null {
  if (PROFILE_NAME.test(name) && !name.endsWith(".md") && !name.includes("..")) return null;
  return `profile name ${
    JSON.stringify(name)
  } is not valid; expected letters, digits, "-", "_" or "." (at most 64, starting ` +
    `with a letter or digit, no "/")`;
}

/**
 * The findings of a profile's options, validated exactly as the loader will read them (`file` names the profile in
 * messages): a bad provider is `invalid_provider`, a bad enum value `invalid_option_value`.
 */
export function profileOptionFindings(options: Record<string, unknown>, file: string): Finding[] {
  const sink = new FindingSink();
  normalizeLayer(options, MANIFEST_OPTION_KEYS, { file }, sink);
  return sink.list;
}

/** The text of a profile file: its options as front matter, a short body saying what it is. */
export function profileFileText(name: string, options: Record<string, unknown>): string {
  return `---\n${stringifyYaml(options)}---\n\n# Profile ${name}\n\nA prompt_runner option layer under the packet ` +
    "manifest (docs/reference/packet.md §9). A packet uses it with `profile: " + name + "` in its manifest.\n";
}

/** The config home; a usage error (exit 2) when no variable names one. */
export function requireConfigHome(env: Record<string, string | undefined>): string {
  const home = configHome(env);
  if (home === null) {
    throw new UsageError("invalid_value", "no config home: set XDG_CONFIG_HOME, HOME or PROMPT_RUNNER_CONFIG_HOME");
  }
  return home;
}

/** Write a new home profile; false (and nothing written) when a file of that name already exists. */
export async function writeHomeProfile(home: string, name: string, options: Record<string, unknown>): Promise<boolean> {
  await Deno.mkdir(`${home}/profiles`, { recursive: true });
  return await createNew(`${home}/profiles/${name}.md`, profileFileText(name, options));
}

/** One row of `profile list`. */
export interface ProfileEntry {
  name: string;
  /** `home` (a file of the config home) or `built-in`. */
  source: "home" | "built-in";
  /** The profile file, or null for a built-in. */
  file: string | null;
  /** A home file of the same name as a built-in replaces it. */
  overrides_builtin: boolean;
  /** The provider the profile selects (explicit, else inferred from its model), or null when it sets neither. */
  provider: string | null;
  model: string | null;
  /** Whether the config home's `config.md` names it as `default_profile`. */
  is_default: boolean;
  /** Why the profile cannot be used (unreadable file, invalid YAML, invalid values), or null. */
  problem: string | null;
}

/** Every profile a packet can name: built-ins and the config home's files, sorted by name. */
export async function profileEntries(env: Record<string, string | undefined>): Promise<ProfileEntry[]> {
  const home = configHome(env);
  const builtins = new Set(builtinProfileNames());
  const defaultName = await resolveProfile(null, env).then((p) => p?.name ?? null, () => null);
  const out: ProfileEntry[] = [];
  for (const name of await listProfiles(home)) {
    const entry: ProfileEntry = {
      name,
      source: "built-in",
      file: null,
      overrides_builtin: false,
      provider: null,
      model: null,
      is_default: name === defaultName,
      problem: null,
    };
    try {
      const p = await resolveProfile(name, env);
      if (p) {
        const home = p.source !== "built-in";
        entry.source = home ? "home" : "built-in";
        entry.file = home ? p.source : null;
        entry.overrides_builtin = home && builtins.has(name);
        const model = typeof p.options.model === "string" ? p.options.model : null;
        entry.model = model;
        entry.provider = normalizeProvider(p.options.provider) ?? (model ? inferProvider(model) : null);
        const bad = profileOptionFindings(p.options, `profile ${name}`).filter((f) => f.severity === "error");
        if (bad.length > 0) entry.problem = bad.map((f) => f.message).join("; ");
      }
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      entry.source = "home";
      entry.file = e.file;
      entry.problem = e.message;
    }
    out.push(entry);
  }
  return out;
}

/** Check that `--profile NAME` resolves for a new packet; a usage error (exit 2) naming the profiles known. */
export async function resolveProfileForNew(name: string, env: Record<string, string | undefined>): Promise<void> {
  const problem = profileNameProblem(name);
  if (problem) throw new UsageError("invalid_value", `--profile: ${problem}`);
  try {
    await resolveProfile(name, env);
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    throw new UsageError("invalid_value", `--profile: ${e.message}`, {
      hints: ["create it with: prompt_runner profile new NAME --provider P --model M"],
    });
  }
}

/** The raw options of the profile a loaded packet uses (its `profile:`, else the default), or `{}`. */
export async function resolveProfileOptions(
  packet: Packet,
  env: Record<string, string | undefined>,
): Promise<Record<string, unknown>> {
  const explicit = typeof packet.manifest.profile === "string" && packet.manifest.profile.trim() !== ""
    ? packet.manifest.profile.trim()
    : null;
  try {
    return (await resolveProfile(explicit, env))?.options ?? {};
  } catch (e) {
    if (e instanceof ProfileError) return {};
    throw e;
  }
}
