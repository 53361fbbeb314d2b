/** The public surface of src/run/: what other folders import from it (docs/architecture.md, Layers). */
export { amendedFingerprint } from "./amended_from.ts";
export type { CommitPolicy } from "./context.ts";
export { detachedLine, detachRun } from "./detach.ts";
export {
  assertSystemdUser,
  stopUnit,
  type Systemctl,
  systemdRunArgv,
  systemdUserProblem,
  unitName,
  type UnitStop,
} from "./systemd_user.ts";
export { dirtyRepos } from "./dirty.ts";
export { lintGateForSelection } from "./lint_gate.ts";
export { editRefusal, editStanding } from "./contract_guard.ts";
export { vacuousFindings } from "./preflight_vacuous.ts";
export { hasLeftovers } from "./prompt_guard.ts";
export { pendingClaims } from "./commit_pending.ts";
export { readinessReport, renderReadiness } from "./readiness.ts";
export { type RunPermissions, runPermissionsFor } from "./run_permissions.ts";
export { runPacket, type RuntimeStore } from "./runner.ts";
export type { EventLimits } from "./run_request.ts";
export type { DisplayRequest } from "./progress_display.ts";
export { readState } from "./state_read.ts";
export { pendingOf } from "./state_doc.ts";
export {
  buildRunSummary,
  readRunSummary,
  readRunSummaryStream,
  type SummaryInput,
  type SummaryRun,
  summaryRunOf,
  writeSummaryJson,
} from "./summary.ts";
export type { StateDoc } from "./state.ts";
export { DEFAULT_HEARTBEAT_MS, Heartbeat, HEARTBEAT_ENV, heartbeatInterval } from "./heartbeat.ts";
export type { CiRequest } from "./run_request.ts";
export { abortedSummary, parseReports, REPORT_FORMATS, type ReportRequest, writeReports } from "./reports.ts";
export { appendStepSummary, CiLog } from "./ci.ts";
