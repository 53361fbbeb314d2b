/**
 * Child of stream_yield_test.ts: pumps a never-pausing stream through `pumpStream` long enough for the pump to give
 * the event loop turns (a timer set at its start fires during it), then returns. The process must exit by
 * itself: a turn channel left open would keep it alive.
 */
import { nullPlane } from "../../src/control/null_plane.ts";
import { DEFAULT_VIEW, type ProviderEvent } from "../../src/events/types.ts";
import { fakeSession, pumpThrough } from "./_pump_support.ts";

let fired = false;
async function* provider(): AsyncGenerator<ProviderEvent> {
  yield { type: "run_started", data: { provider_session_id: "x", model: "simulated" } };
  // Only a turn of the event loop runs this timer: the stream is busy for its 20 ms, and turns come every ms of work.
  setTimeout(() => (fired = true), 20);
  while (!fired) yield { type: "message_streamed", data: { delta: "token " } };
  yield { type: "run_completed", data: { stop_reason: "end_turn" } };
}
const hooks = {
  applyView() {},
  steerGate: () => ({ promptRunning: false, sessionLive: false }),
  steerAccepted() {},
  notice() {},
};
const plane = nullPlane("20261201T100000Z-EXIT01", { ...DEFAULT_VIEW }, hooks);
const obs = await pumpThrough(plane, fakeSession(provider(), "x"));
console.log(`pumped ${obs.events} events`);
