/**
 * Which executable a lane session spawns (docs/lanes.md): kept apart from the lane profile code so that what only
 * needs the name — the `--allow-run` list of `plan` and `run` (src/lanes/catalog.ts) — does not load the session,
 * parser and tool-vocabulary code with it (docs/bench.md, "Cold start").
 */
import type { LaneProfile, SessionOptions } from "./types.ts";
import { denoEnv } from "../util/ci_env.ts";

/** The lane's option bag from the merged provider options (empty when absent). */
export function laneOpts(options: SessionOptions, key: string): Record<string, unknown> {
  return options.provider_opts[key] ?? {};
}

/**
 * The executable to run: the lane's first option bag's `cli_path`, else `PROMPT_RUNNER_<LANE>_CLI` (session env, then process env),
 * else the profile's binary name.
 */
export function resolveExecutable(
  profile: { lane: LaneProfile },
  options: SessionOptions,
  env: Record<string, string>,
): string {
  const bag = profile.lane.optionKeys[0];
  const fromOpts = bag === undefined ? undefined : laneOpts(options, bag)["cli_path"];
  if (typeof fromOpts === "string" && fromOpts.trim() !== "") return fromOpts;
  const envName = profile.lane.executableEnv;
  if (envName) {
    const v = env[envName] ?? denoEnv(envName);
    if (v !== undefined && v.trim() !== "") return v;
  }
  return profile.lane.executable ?? profile.lane.name;
}
