/** The public surface of src/contract/: what other folders import from it (docs/architecture.md, Layers). */
export { killRunningCommands } from "./bounded_process.ts";
export { canonicalJson } from "./canonical.ts";
export {
  checkHeadline,
  type CheckNote,
  checkNoteLines,
  checkNotes,
  sanitizeLine,
  TAIL_LINES,
  VERBOSE_TAIL_LINES,
} from "./check_notes.ts";
export { checklistItems, checklistPath, checklistText } from "./checklist.ts";
export { type ClauseEnv, refOf } from "./clauses/_common.ts";
export { changedPaths, gitClauseRoots, pathAllowed } from "./clauses/git_clauses.ts";
export { repoIndex, verifyContextFor } from "./context.ts";
export {
  amendedPromptIds,
  contractDiff,
  enforcedContract,
  foldAmendments,
  packetContract,
  readAmendments,
} from "./enforced.ts";
export { isLegacyCommand, isRecord, pathEscapes, pick, substituteRepo, validateEntry } from "./entries.ts";
export { GitCache, gitIn, gitStatus, parsePorcelainZ } from "./git.ts";
export {
  hidingChangeList,
  hidingChanges,
  hidingDetails,
  type HidingLeftBy,
  type HidingRead,
  hidingSince,
  type HidingState,
  ignoreFiles,
  isIgnoreFile,
  readHidingCore,
} from "./hiding.ts";
export { appendVerification, latestVerification, timingClass } from "./history.ts";
export { lintPacket, type LintResult } from "./packet_lint.ts";
export { canonicalJoin, canonicalPath, isWithin, parsePathString, resolveRef } from "./paths.ts";
export { fingerprintChain, verifyDigest, verifyOfText } from "./persisted.ts";
export { faultLines, itemLine, reportSummary } from "./report.ts";
export {
  type AmendmentRecord,
  CLAUSES,
  type Contract,
  type ReportItem,
  type VerifyReport,
  type VerifySource,
} from "./types.ts";
export { clauseEnv, verifyContract } from "./verify.ts";
