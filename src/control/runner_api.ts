/**
 * The runner's side of the control plane: what src/run/ uses (the plane, interventions, steer limits). Readers and
 * tools use the Control API in mod.ts, which never loads this side (docs/architecture.md, Public surfaces).
 */
export { readInterventions, steerCountsForRun } from "./interventions.ts";
export { settleIntents } from "./amend_intent.ts";
export type {
  AcceptedSteer,
  AgentControlEntry,
  EventContext,
  PlaneHooks,
  RunnerPlane,
  SnapshotPatch,
} from "./plane_types.ts";
export { nullPlane, openPlane } from "./plane.ts";
export { restartWithSteerPrompt, steerInTurnPrompt, steerResumePrompt } from "./steer.ts";
export { DEFAULT_RETENTION, type RetentionPolicy } from "./retention.ts";
export { type TokenPair, TokenTally } from "./tokens.ts";
