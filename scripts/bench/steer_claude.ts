/** Steer latency of the `claude` lane (scripts/bench/_steer.ts); skipped when `claude` is not installed. */
import { benchLane } from "./_steer.ts";

/** Run the claude steer benchmark. */
export function bench(): Promise<Record<string, number | string>> {
  return benchLane("claude");
}
