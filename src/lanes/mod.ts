/**
 * The public surface of src/lanes/: one Lane per provider name, and the catalog of names, aliases, option bags and
 * model patterns that packets read (src/packet/options.ts). Nothing outside this folder names a provider: adding a
 * lane is adding its file and its entry in {@link LANES}.
 */
import { ampLane } from "./amp.ts";
import { antigravityLane } from "./antigravity.ts";
import { claudeLane } from "./claude.ts";
import { codexLane } from "./codex.ts";
import { cursorLane } from "./cursor.ts";
import { simulatedLane } from "./simulated.ts";
import type { Lane } from "./types.ts";
import { LANE_PROFILES } from "./profiles.ts";

export type { Lane, LaneExecutables, LaneProfile, PermissionMode, ProbeResult, SessionOptions } from "./types.ts";

/** Every lane, in the order of docs/reference/packet.md §3 (also the order model patterns are tried in). */
const LANES: readonly Lane[] = [claudeLane, codexLane, ampLane, cursorLane, antigravityLane, simulatedLane];

export { type LaneCatalog, laneCatalog, laneExecutables, lanes } from "./catalog.ts";
export { LANE_PROFILES } from "./profiles.ts";

// The lanes and the catalog's profiles must agree, name for name and in order.
if (LANES.map((l) => l.profile.name).join() !== LANE_PROFILES.map((p) => p.name).join()) {
  throw new Error("src/lanes/mod.ts: LANES and LANE_PROFILES list different lanes");
}

/** The lane for a provider name; throws for a name no lane declares (packets are validated when they load). */
export function laneFor(name: string): Lane {
  const lane = LANES.find((l) => l.profile.name === name);
  if (!lane) throw new Error(`no lane is named "${name}"`);
  return lane;
}

/** Every lane, in the order of docs/reference/packet.md §3. */
export function allLanes(): Lane[] {
  return [...LANES];
}
export { whichExecutable } from "./cli_lane.ts";
export {
  acceptsInputAfterStart,
  type InputAck,
  InputRefused,
  LANE_TRANSPORTS,
  type LaneSession,
  type LaneTransport,
  LaunchError,
  type SimulatedCursor,
  type SimulatedStep,
  type StreamEnd,
  TRANSPORT_CAPABILITIES,
  type TransportCapabilities,
} from "./types.ts";
