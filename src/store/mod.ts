/** The public surface of src/store/: what other folders import from it (docs/architecture.md, Layers). */
export {
  AGENT_ENV,
  AGENT_RECORD_SCHEMA,
  AGENT_SDK_FILES,
  type AgentRecord,
  type AgentScope,
  closedMarker,
  envOfScope,
  parseAgentRecord,
  scopeFromEnv,
  SDK_SCHEMAS,
  type TerminalAction,
  writeAgentRecord,
} from "./agent_records.ts";
export { assertStoreIntact } from "./guard.ts";
export { appendJournal } from "./journal.ts";
export { ensureControlDirs, ensureStoreIgnored, ensureStoreRoot, readStoreInfo } from "./layout.ts";
export { acquireLease, type Lease, leaseHeldMessage, type LeaseState, readLease } from "./lease.ts";
export { type StorePaths, storePaths, storeRootForPacket } from "./paths.ts";
export { appendProgress } from "./progress_append.ts";
export {
  type LenientProgress,
  parseProgressLenient,
  type ProgressMap,
  type ProgressStatus,
  readProgress,
} from "./progress.ts";
export { mergeStatePending } from "./state_pending.ts";
export {
  readCurrentRunRecord,
  readRunRecord,
  type ResumeDecision,
  resumeDecision,
  runPidPresent,
} from "./run_record_read.ts";
export { closeRunRecord, type OpenedRun, openRunRecord, readCurrentRun, writeRunRecord } from "./run_record.ts";
export type { RunRecord } from "./run_record_read.ts";
