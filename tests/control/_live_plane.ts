/**
 * A stand-in runner for black-box tests: takes the lease, opens a plane on a packet's store root, records a few
 * events, and serves boundaries (delivering accepted steers at once) until stdin closes; then closes the run.
 *
 * Usage: deno run -A tests/control/_live_plane.ts <packetDir> <runId> [completed|failed|crash] [hold]
 * With `hold`, the lease is kept after the run is closed (it prints `closed`) until SIGUSR1: a runner slow to release.
 */
import { acquireLease } from "../../src/store/lease.ts";
import { openPlane } from "../../src/control/plane.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { within } from "../support/wait.ts";

const [packetDir, runId, ending = "completed", hold] = Deno.args;
if (!packetDir || !runId) throw new Error("usage: _live_plane.ts <packetDir> <runId> [completed|failed|crash]");
const storeRoot = storeRootForPacket(packetDir);
const lease = await acquireLease(storeRoot, { runId, packetDir, argv: ["run"] });
const plane = await openPlane({
  storeRoot,
  runId,
  resumed: false,
  packet: { name: "demo", dir: packetDir },
  workspace: null,
  view: { ...DEFAULT_VIEW },
  selectedCount: 2,
  maxSteers: 3,
  selection: ["01", "02"],
  pollMs: 200,
  hooks: {
    applyView() {},
    steerGate: () => ({ promptRunning: true, sessionLive: true }),
    steerAccepted() {},
    notice() {},
  },
});
const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "sim-01-1" };
plane.transition({
  stage: "session",
  prompt_id: "01",
  prompt_name: "First",
  prompt_position: 1,
  attempt: 1,
  mode: "run",
  stream: "initial",
  provider: "simulated",
  model: "simulated-demo",
  session_live: true,
  prompt_started_at: new Date().toISOString(),
  attempt_started_at: new Date().toISOString(),
});
plane.record({ type: "run_started", data: { provider_session_id: "sim-01-1", model: "simulated-demo" } }, ctx);
plane.record({
  type: "tool_call_started",
  data: { tool_call_id: "t1", tool_name: "shell", tool_input: { command: "mix test" } },
}, ctx);
plane.record({
  type: "tool_call_completed",
  data: { tool_call_id: "t1", tool_name: "shell", tool_output: "x".repeat(1200), is_error: false, exit_code: 0 },
}, ctx);
plane.record({ type: "token_usage_updated", data: { input_tokens: 120, output_tokens: 30 } }, ctx);
plane.boundary();
await plane.sync();

let stop = false;
(async () => {
  for await (const _ of Deno.stdin.readable) { /* wait for EOF */ }
  stop = true;
})();
console.log("ready");
while (!stop) {
  await within(plane.wake(), 50, null); // the runner's poll interval, woken early by the watcher
  plane.boundary();
  if (plane.steers.queued.length) {
    const batch = plane.steers.take();
    plane.steersDelivered(batch, {
      delivery: "interrupt_and_resume",
      prompt_id: "01",
      attempt: 1,
      lane: "simulated",
      session_id: "sim-01-1",
      interrupted: true,
    });
  }
}
if (ending === "crash") Deno.exit(0); // no close, lease lock dropped by the OS, run.pid left behind
await plane.close(ending === "failed" ? "failed" : "completed", ending === "failed" ? "verification_failed" : null);
if (hold === "hold") {
  const released = new Promise<void>((r) => Deno.addSignalListener("SIGUSR1", () => r()));
  console.log("closed");
  await released;
}
await lease.release();
