/** The plane of a run without a store root (docs/reference/control-plane.md §1): it writes no control directory at all. */
import type { Envelope } from "../events/mod.ts";
import { isProviderEventType, type View } from "../events/types.ts";
import { nowIso } from "../util/time.ts";
import type { PlaneHooks, RunnerPlane } from "./plane_types.ts";
import { SteerLedger } from "./steer_ledger.ts";

/**
 * A plane for runs without a store root: stamps envelopes and tracks the view, but writes nothing at all.
 * `onRecord` (optional) receives every stamped envelope in seq order (`run --json`).
 */
export function nullPlane(
  runId: string,
  view: View,
  hooks: PlaneHooks,
  onRecord?: (envelope: Envelope) => void,
): RunnerPlane {
  let seq = 0;
  let live: View = { ...view };
  void hooks;
  // No requests reach a run without a store root, so nothing is ever reserved; deliveries would still be counted.
  const steers = new SteerLedger(() => 0);
  return {
    runId,
    get view() {
      return { ...live };
    },
    steers,
    record(event, ctx) {
      const envelope = {
        seq: ++seq,
        at: nowIso(),
        run_id: runId,
        origin: isProviderEventType(event.type) ? "provider" : "runner",
        type: event.type,
        ...ctx,
        timestamp: "timestamp" in event && typeof event.timestamp === "string" ? event.timestamp : null,
        ...(event.hidden ? { hidden: true as const } : {}),
        data: event.data,
      } as Envelope;
      onRecord?.(envelope);
      return envelope;
    },
    transition() {},
    boundary() {},
    wake: () => new Promise<void>(() => {}),
    steersDelivered(batch, info) {
      for (const steer of batch) steers.delivered(info.prompt_id, steer, info.delivery);
    },
    steerRejected(steer) {
      steers.rejected(steer);
    },
    guardrail() {},
    agentControl() {},
    syncRecord: () => {},
    close: () => {
      live = { ...live };
      return Promise.resolve();
    },
  };
}
