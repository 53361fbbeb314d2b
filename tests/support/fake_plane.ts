/**
 * A plane that records nothing to disk, for code that needs a `RunPlane` and nothing else: the runner's null plane
 * (src/control/null_plane.ts) with hooks that apply nothing and admit no steer, and the context of prompt 01's first
 * attempt. Shared by tests/run/run_progress_test.ts and the progress benchmark (scripts/bench/progress.ts).
 */
import { nullPlane } from "../../src/control/null_plane.ts";
import type { PlaneHooks, RunnerPlane } from "../../src/control/plane_types.ts";
import { DEFAULT_VIEW, type Envelope } from "../../src/events/types.ts";

/** Hooks that apply no view, admit no steer and drop notices. */
export const QUIET_HOOKS: PlaneHooks = {
  applyView() {},
  steerGate: () => ({ promptRunning: false, sessionLive: false }),
  steerAccepted() {},
  notice() {},
};

/** The event context of prompt 01's first attempt on the simulated provider. */
export const PROMPT_01_CTX = {
  prompt_id: "01",
  attempt: 1,
  stream: "initial" as const,
  provider: "simulated",
  session_id: null,
};

/** A null plane of run `R` in the default view; `onRecord` sees every stamped envelope. */
export function fakePlane(onRecord?: (e: Envelope) => void): RunnerPlane {
  return nullPlane("R", { ...DEFAULT_VIEW }, QUIET_HOOKS, onRecord);
}
