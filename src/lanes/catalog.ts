/** The catalog of lane names, aliases, option bags and model patterns that packets read, built from the profiles alone. */
import { LANE_PROFILES } from "./profiles.ts";
import { resolveExecutable } from "./executable.ts";
import type { LaneExecutables, LaneProfile, LaneTransport, SessionOptions } from "./types.ts";
import { DRIVER_EXECUTABLES } from "../util/executables.ts";

/** What packets know about lanes, derived from lane profiles only. */
export interface LaneCatalog {
  /** Lane names in order. */
  names: readonly string[];
  /** Alias → lane name, in lane order. */
  aliases: Readonly<Record<string, string>>;
  /** Every lane's option bags, in lane order. */
  optionKeys: readonly string[];
  /** Bag → keys whose relative paths resolve against the packet directory. */
  packetRelativePaths: Readonly<Record<string, readonly string[]>>;
  /** Lane name → the transports it can run a session over, the default first (docs/lanes.md). */
  transports: Readonly<Record<string, readonly LaneTransport[]>>;
  /** A lane name or alias (any case, trimmed) → lane name, or null. */
  normalize(value: string): string | null;
  /** The lane a model name implies (docs/reference/packet.md §3): the first lane whose patterns match, else the default lane. */
  inferFromModel(model: string): string;
}

/**
 * The catalog of a list of profiles. Throws when two lanes share a name, alias or option bag, or when not exactly
 * one lane is the default for models — a lane added wrongly fails every test that loads a packet.
 */
export function laneCatalog(profiles: readonly LaneProfile[]): LaneCatalog {
  const names = profiles.map((p) => p.name);
  const aliases: Record<string, string> = {};
  const optionKeys: string[] = [];
  const packetRelativePaths: Record<string, readonly string[]> = {};
  const seen = new Set<string>();
  const claim = (what: string, value: string) => {
    if (seen.has(`${what}:${value}`)) throw new Error(`two lanes declare the ${what} "${value}"`);
    seen.add(`${what}:${value}`);
  };
  for (const p of profiles) {
    claim("name", p.name);
    for (const a of p.aliases) {
      if (names.includes(a)) throw new Error(`the alias "${a}" of lane ${p.name} is a lane name`);
      claim("alias", a);
      aliases[a] = p.name;
    }
    for (const k of p.optionKeys) {
      claim("option bag", k);
      optionKeys.push(k);
    }
    Object.assign(packetRelativePaths, p.packetRelativePaths ?? {});
  }
  const defaults = profiles.filter((p) => p.defaultForModels);
  if (defaults.length !== 1) throw new Error(`exactly one lane must be the default for models (${defaults.length})`);
  const fallback = defaults[0]!.name;
  return {
    names,
    aliases,
    optionKeys,
    packetRelativePaths,
    transports: Object.fromEntries(profiles.map((p) => [p.name, p.transports])),
    normalize(value) {
      const v = value.trim().toLowerCase();
      return names.includes(v) ? v : aliases[v] ?? null;
    },
    inferFromModel(model) {
      return profiles.find((p) => p.modelPatterns.some((re) => re.test(model)))?.name ?? fallback;
    },
  };
}

const CATALOG = laneCatalog(LANE_PROFILES);

/** The catalog of the shipped lanes. */
export function lanes(): LaneCatalog {
  return CATALOG;
}

/**
 * What a session of the named lane spawns (`--allow-run`), or null for a lane that spawns nothing: from the profile
 * alone, so `plan` and preflight never load a lane implementation (each CLI lane's `executables()` gives the same,
 * tests/lanes/executables_test.ts). Throws for a name no lane declares.
 */
export function laneExecutables(name: string, options: SessionOptions): LaneExecutables | null {
  const lane = LANE_PROFILES.find((p) => p.name === name);
  if (!lane) throw new Error(`no lane is named "${name}"`);
  if (lane.executable === null) return null;
  return { executable: resolveExecutable({ lane }, options, {}), helpers: DRIVER_EXECUTABLES };
}
