/** The public surface of src/events/: what other folders import from it (docs/architecture.md, Layers). */
export { checkHeadline, type CheckNote, checkNoteLines } from "./check_lines.ts";
export { encodeEnvelope } from "./json.ts";
export {
  RUN_SUMMARY_SCHEMA,
  type RunSummary,
  type RunSummaryStream,
  type SummaryAttempt,
  type SummaryCommit,
  type SummaryCounts,
  type SummaryPrompt,
} from "./run_summary.ts";
export {
  type AttemptMode,
  DEFAULT_VIEW,
  type Envelope,
  type EnvelopeOf,
  isProviderEventType,
  type ProviderErrorInfo,
  type ProviderEvent,
  type ProviderEventData,
  type RunnerEvent,
  type SteerDeliveryKind,
  type StreamKind,
  type TokenUsage,
  type View,
  VIEW_VALUES,
} from "./types.ts";
