/** The public surface of src/lanes/: one Lane per provider name. Nothing outside this folder names a provider. */
import type { ProviderName } from "../packet/types.ts";
import { ampLane } from "./amp.ts";
import { antigravityLane } from "./antigravity.ts";
import { claudeLane } from "./claude.ts";
import { codexLane } from "./codex.ts";
import { cursorLane } from "./cursor.ts";
import { simulatedLane } from "./simulated.ts";
import type { Lane } from "./types.ts";

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

/** Every lane, in the order of packet.md §3. */
export function allLanes(): Lane[] {
  return Object.values(LANES);
}
