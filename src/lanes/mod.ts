/** The public surface of src/lanes/: one Lane per provider name. Nothing outside this folder names a provider. */
import { ampLane } from "./amp.ts";
import { antigravityLane } from "./antigravity.ts";
import { claudeLane } from "./claude.ts";
import { codexLane } from "./codex.ts";
import { cursorLane } from "./cursor.ts";
import { simulatedLane } from "./simulated.ts";
import type { Lane, LaneExecutables } from "./types.ts";
import type { ExecutionOptions, ProviderName } from "../packet/types.ts";

const LANES: Readonly<Record<ProviderName, Lane>> = {
  claude: claudeLane,
  codex: codexLane,
  amp: ampLane,
  cursor: cursorLane,
  antigravity: antigravityLane,
  simulated: simulatedLane,
};

/** The lane for a provider name. */
export function laneFor(name: ProviderName): Lane {
  return LANES[name];
}

/** Every lane, in the order of docs/reference/packet.md §3. */
export function allLanes(): Lane[] {
  return Object.values(LANES);
}

/** What a session of the named lane spawns (`--allow-run`), or null for a lane that spawns nothing. */
export function laneExecutables(name: ProviderName, options: ExecutionOptions): LaneExecutables | null {
  return LANES[name].executables?.(options) ?? null;
}
