/** The public surface of src/packet/: what other folders import from it (docs/architecture.md, Layers). */
export {
  type AgentAction,
  type AgentControlConfig,
  contractItems,
  DEFAULT_MAX_ITERATIONS,
  type ExecutionPolicy,
  VERIFIER_OWNED,
} from "./agent_control.ts";
export { type ExplainedValue, explainPacket, type PacketExplanation, type ValueSource } from "./explain.ts";
export { packetFingerprint } from "./fingerprint.ts";
export { outsideMessage, type OutsidePacket, outsidePacket } from "./confine.ts";
export { parseFrontMatter } from "./front_matter.ts";
export {
  discoverPromptFiles,
  inspectPacket,
  loaderEnv,
  type LoadOptions,
  loadPacket,
  type PacketInspection,
  packetOf,
  registerRepoRemap,
  type RepoRemap,
} from "./load.ts";
export { type PromptText, promptTexts } from "./packet_files.ts";
export { promptBodyAt } from "./prompt_body.ts";
export { ENUM_OPTIONS, normalizeEnum, normalizeProvider, PROVIDERS } from "./options.ts";
export {
  profileEntries,
  type ProfileEntry,
  profileNameProblem,
  profileOptionFindings,
  requireConfigHome,
  resolveProfileForNew,
  resolveProfileOptions,
  writeHomeProfile,
} from "./profile_store.ts";
export { configHome } from "./profiles.ts";
export { normalizeVerify } from "./prompt_file.ts";
export { filenamePrefix, hasPlaceholderMarkers } from "./prompt_text.ts";
export {
  contentChecks,
  initHome,
  type InitItem,
  manifestText,
  type PromptContract,
  promptFileText,
  slug,
} from "./scaffold.ts";
export { ALL, type Selection, selectPrompts } from "./select.ts";
export { lintSimulate } from "./simulate_lint.ts";
export { listTemplates, loadTemplate, type TemplateEntry } from "./templates.ts";
export type {
  ExecutionOptions,
  Finding,
  OptionOverrides,
  Packet,
  PermissionMode,
  Prompt,
  ProviderName,
  RecoveryOptions,
  Repo,
} from "./types.ts";
