/** The public surface of src/util/: what other folders import from it (docs/architecture.md, Layers). */
export { concatBytes } from "./bytes.ts";
export { defaultAuthor, elapsedSince, errorMessage, jsonRecordOrNull, localHostname, utf8Length } from "./common.ts";
export { isRecord } from "./is_record.ts";
export {
  readSurvivors,
  reapEarlierRun,
  recordSurvivors,
  SESSION_TOKEN_ENV,
  sweepByEnv,
  type SweepResult,
  sweepRun,
} from "./containment.ts";
export { closest, editDistance } from "./edit_distance.ts";
export { escapeControl } from "./escape.ts";
export { failpoint } from "./failpoint.ts";
export {
  atomicWriteJson,
  atomicWriteText,
  ensureDir,
  exists,
  FILE_MODE,
  parseJsonLines,
  prettyJson,
  readTextOrNull,
  writeViaTemp,
} from "./fs.ts";
export { DRIVER_EXECUTABLES, KILL_EXECUTABLE, PROC_LISTER, PROC_READER } from "./executables.ts";
export { runHelper } from "./helper.ts";
export { normalizePromptId } from "./ids.ts";
export { basename, dirname, existsSync, isAbsolute, join, normalize, relative, resolve, sep } from "./path.ts";
export {
  aliveRecordedAsync,
  descendantsOf,
  killRecorded,
  listProcesses,
  listProcessesAsync,
  type ProcessIdentity,
  processIdentity,
  readProcStat,
  type RecordedProcess,
  trySignal,
} from "./proc_tree.ts";
export {
  appendStoreLine,
  appendStoreLineSync,
  atomicWriteStoreJson,
  atomicWriteStoreJsonSync,
  atomicWriteStoreText,
  createStoreFileOnceSync,
  ensureStoreDir,
  ensureStoreDirSync,
  lstatStore,
  lstatStoreSync,
  openStoreFile,
  openStoreFileSync,
  secureStoreRoot,
  secureStoreRootSync,
  StoreIntegrityError,
} from "./safe_fs.ts";
export {
  openStoreReaderSync,
  readStoreBytesOrNullSync,
  readStoreTextOrNull,
  readStoreTextOrNullSync,
} from "./safe_read.ts";
export { sendSignal } from "./signal.ts";
export { spawnRetryingBusy } from "./spawn.ts";
export { denoOut, guardWorkflowCommands, type TextOut, writeCommand } from "./text_out.ts";
export { fileStamp, formatAge, formatDuration, isRunId, newRunId, nowIso, parseDuration } from "./time.ts";
export { parseYaml, stringifyYaml, YamlSyntaxError } from "./yaml.ts";
export { NOT_SUBSET, readYamlSubset } from "./yaml_subset.ts";
export { createNew } from "./create_new.ts";
export { nullIfAbsent } from "./fs.ts";
export { appendHeldLine, closeHeldAppends, HeldAppender, HeldAppends, openHeldAppends } from "./held_append.ts";
export { meterRead, meterSpawn, meterWrite, readTotals, spawnTotals, writeTotals } from "./read_meter.ts";
export { flushStageTrace, STAGE_TRACE_ENV, stageTraceOn, traceStage, traceStageAt, wallMs } from "./stage_trace.ts";
export {
  activeHelperShell,
  closeHelperShell,
  HelperShell,
  openHelperShell,
  type ShellRequest,
} from "./helper_shell.ts";
export { parseRequirement, satisfies, type VersionRequirement } from "./version_range.ts";
export { findOnPath } from "./which.ts";
export { ciColourOff, type CiEnvironment, ciEnvironment, denoEnv, type EnvLookup, truthy } from "./ci_env.ts";
