/** Shared pieces of the stream-pump tests (stream_yield_test.ts and its child scripts): a session and a plane. */
import { openPlane } from "../../src/control/plane.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import type { LaneSession } from "../../src/lanes/types.ts";
import type { RunContext } from "../../src/run/context.ts";
import { pumpStream, type StreamObservation } from "../../src/run/stream.ts";
import type { View } from "../../src/events/types.ts";

/** A lane session that plays `events` and ends `ok` (the benchmarks' own). */
export { benchSession as fakeSession } from "../../scripts/bench/_session.ts";

/** A file plane on `storeRoot` (the lease must be held) for one prompt; `applyView` sees every applied view change. */
export function openTestPlane(
  storeRoot: string,
  runId: string,
  opts: { pollMs?: number; applyView?: (view: View, changed: Partial<View>) => void } = {},
): ReturnType<typeof openPlane> {
  return openPlane({
    storeRoot,
    runId,
    resumed: false,
    packet: { name: "pump", dir: storeRoot },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 1,
    maxSteers: 3,
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
    hooks: {
      applyView: opts.applyView ?? (() => {}),
      steerGate: () => ({ promptRunning: false, sessionLive: false, used: 0, max: 3 }),
      steerAccepted() {},
      notice() {},
    },
  });
}

/** Pump `session` as prompt 01's initial stream, through a context holding only `plane`. */
export function pumpThrough(plane: RunContext["plane"], session: LaneSession): Promise<StreamObservation> {
  const ctx = { plane, io: { json: true }, live: null, attemptLog: null } as unknown as RunContext;
  const meta = { promptId: "01", attempt: 1, kind: "initial" as const, provider: "simulated", sessionId: null };
  return pumpStream(ctx, session, { ...meta, sessionId: session.sessionId }, null);
}
