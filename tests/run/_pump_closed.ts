/**
 * Child of stream_yield_test.ts: a stream still live when its plane closes (a second Ctrl-C closes the plane mid-run).
 * The provider only ends on a timer, so the pump must leave the event loop free: a pump that treated the closed
 * plane's wake-up as a request spun in microtasks, never fired the timer, and grew its heap until it ran out.
 */
import { acquireLease } from "../../src/store/lease.ts";
import { openPlane } from "../../src/control/plane.ts";
import { DEFAULT_VIEW, type ProviderEvent } from "../../src/events/types.ts";
import type { LaneSession } from "../../src/lanes/types.ts";
import type { RunContext } from "../../src/run/context.ts";
import { pumpStream } from "../../src/run/stream.ts";

const RUN_ID = "20261201T100000Z-CLOSED";
const storeRoot = await Deno.makeTempDir({ prefix: "pr-pump-closed-" });
await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["test"] });
const plane = await openPlane({
  storeRoot,
  runId: RUN_ID,
  resumed: false,
  packet: { name: "closed", dir: storeRoot },
  workspace: null,
  view: { ...DEFAULT_VIEW },
  selectedCount: 1,
  maxSteers: 3,
  hooks: {
    applyView() {},
    steerGate: () => ({ promptRunning: false, sessionLive: false, used: 0, max: 3 }),
    steerAccepted() {},
    notice() {},
  },
});
async function* provider(): AsyncGenerator<ProviderEvent> {
  yield { type: "run_started", data: { provider_session_id: "c", model: "simulated" } };
  await plane.close("failed", "interrupted"); // the plane closes while the stream is live
  await new Promise((r) => setTimeout(r, 0)); // a macrotask: only a free event loop runs it
  yield { type: "run_completed", data: { stop_reason: "end_turn" } };
}
const session: LaneSession = {
  events: provider(),
  sessionId: "c",
  isReady: () => true,
  whenReady: () => Promise.resolve(),
  interrupt: () => Promise.resolve(),
  kill: () => {},
  end: () => ({ kind: "ok" }),
  process: null,
};
const ctx = { plane, io: { json: true }, live: null, attemptLog: null } as unknown as RunContext;
const obs = await pumpStream(ctx, session, {
  promptId: "01",
  attempt: 1,
  kind: "initial",
  provider: "simulated",
  sessionId: "c",
}, null);
await Deno.remove(storeRoot, { recursive: true });
console.log(`pumped ${obs.events} events`);
