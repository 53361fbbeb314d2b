/**
 * A live run for the `control serve` hub tests (serve_hub_test.ts, serve_hub_frames_test.ts): the run's lease, a test
 * plane on its store, and a recorder that streams N messages then flushes them as the runner does at a boundary.
 */
import { RUN_ID, testPlane } from "../control/_harness.ts";
import { acquireLease, type Lease } from "../../src/store/lease.ts";
import type { SseFrame } from "../../src/cli/serve/sse.ts";

/** The event context of every recorded message. */
export const HUB_CTX = {
  prompt_id: "01",
  attempt: 1,
  stream: "initial" as const,
  provider: "simulated",
  session_id: "s",
};

/** A live run on `storeRoot`: release `lease` (and close `plane` if the test did not) when done. */
export interface HubRun {
  lease: Lease;
  plane: Awaited<ReturnType<typeof testPlane>>["plane"];
  /** Record `n` streamed messages, then a boundary, and wait until they are on disk. */
  record(n: number): Promise<void>;
}

/** Open a live run on `storeRoot` for a hub test. */
export async function hubRun(storeRoot: string): Promise<HubRun> {
  const lease = await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["test"] });
  const { plane } = await testPlane(storeRoot);
  const record = async (n: number) => {
    for (let i = 0; i < n; i++) plane.record({ type: "message_streamed", data: { delta: `m${i} ` } }, HUB_CTX);
    plane.boundary();
    await plane.sync();
  };
  return { lease, plane, record };
}

/** The end frame a hub client falls back to (a test sees it only if the real end never came). */
export const fallbackEnd = (): Promise<SseFrame> => Promise.resolve({ event: "end", data: { status: "fallback" } });
