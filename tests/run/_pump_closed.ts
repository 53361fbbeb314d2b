/**
 * Child of stream_yield_test.ts: a stream still live when its plane closes (a second Ctrl-C closes the plane mid-run).
 * The provider only ends on a timer, so the pump must leave the event loop free: a pump that treated the closed
 * plane's wake-up as a request spun in microtasks, never fired the timer, and grew its heap until it ran out.
 */
import { acquireLease } from "../../src/store/lease.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { fakeSession, openTestPlane, pumpThrough } from "./_pump_support.ts";

const RUN_ID = "20261201T100000Z-CLOSED";
const storeRoot = await Deno.makeTempDir({ prefix: "pr-pump-closed-" });
await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["test"] });
const plane = await openTestPlane(storeRoot, RUN_ID);
async function* provider(): AsyncGenerator<ProviderEvent> {
  yield { type: "run_started", data: { provider_session_id: "c", model: "simulated" } };
  await plane.close("failed", "interrupted"); // the plane closes while the stream is live
  await new Promise((r) => setTimeout(r, 0)); // a macrotask: only a free event loop runs it
  yield { type: "run_completed", data: { stop_reason: "end_turn" } };
}
const obs = await pumpThrough(plane, fakeSession(provider(), "c"));
await Deno.remove(storeRoot, { recursive: true });
console.log(`pumped ${obs.events} events`);
