/** Steer latency of the `codex` lane (scripts/bench/_steer.ts); skipped when `codex` is not installed. */
import { benchLane } from "./_steer.ts";

/** Run the codex steer benchmark. */
export function bench(): Promise<Record<string, number | string>> {
  return benchLane("codex");
}
