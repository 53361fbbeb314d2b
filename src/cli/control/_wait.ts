/** `--wait` for `control view|steer` [P2]: poll the request's outcome until it is final or the time is up. */
import { outcome, type RunRef } from "../../control/mod.ts";

/** The final outcome of a request (for a delivered steer, how it was delivered), or null when `timeoutMs` passed first. */
export async function waitForOutcome(
  ref: RunRef,
  request: string,
  timeoutMs: number,
): Promise<{ outcome: string; reason: string | null; delivery: string | null } | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const o = await outcome(ref, request);
    if (o) {
      // A steer's `applied` entry names how it reached the agent (docs/reference/control-plane.md §8.2).
      const delivery = o.entry.params?.["delivery"];
      return {
        outcome: o.entry.outcome,
        reason: o.entry.reason,
        delivery: typeof delivery === "string" ? delivery : null,
      };
    }
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}
