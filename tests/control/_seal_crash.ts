/**
 * Opens a plane with a 4 KiB segment bound and records events until the process dies; run with
 * PROMPT_RUNNER_FAILPOINT=control.events_after_seal@<n> to be killed right after the n-th seal's rename, before the
 * fresh `events.jsonl` exists.
 *
 * Usage: deno run -A tests/control/_seal_crash.ts <storeRoot>
 */
import { testPlane } from "./_harness.ts";

const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: null };
const { plane } = await testPlane(Deno.args[0]!, { segmentBytes: 4096 });
for (let i = 0; i < 5000; i++) {
  plane.record({ type: "message_streamed", data: { delta: `token ${i} ` } }, ctx);
  plane.boundary();
}
await plane.close("completed", null);
