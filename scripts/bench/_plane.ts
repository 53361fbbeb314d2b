/** The control plane of a benchmark's stand-in run: the real plane, with hooks that apply nothing and deliver no steer. */
import { openPlane, type OpenPlaneOptions } from "../../src/control/plane.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";

/** What differs between the benchmarks' planes. */
export interface BenchPlaneOptions {
  runId: string;
  packetDir: string;
  /** What the steer gate answers for "a prompt is running, its session is live" (default false). */
  live?: boolean;
  watch?: OpenPlaneOptions["watch"];
  pollMs?: OpenPlaneOptions["pollMs"];
}

/** Open the plane of a one-prompt run named `bench` on `storeRoot`. */
export function benchPlane(storeRoot: string, o: BenchPlaneOptions): ReturnType<typeof openPlane> {
  const live = o.live ?? false;
  return openPlane({
    storeRoot,
    runId: o.runId,
    resumed: false,
    packet: { name: "bench", dir: o.packetDir },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 1,
    maxSteers: 3,
    hooks: {
      applyView() {},
      steerGate: () => ({ promptRunning: live, sessionLive: live }),
      steerAccepted() {},
      notice() {},
    },
    ...(o.watch !== undefined ? { watch: o.watch } : {}),
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
  });
}
