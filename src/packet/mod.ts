/** The public surface of src/packet/: what other folders import from it (docs/architecture.md, Layers). */
export {
  type AgentAction,
  type AgentControlConfig,
  contractItems,
  DEFAULT_MAX_ITERATIONS,
  type ExecutionPolicy,
  VERIFIER_OWNED,
} from "./agent_control.ts";
export { packetFingerprint } from "./fingerprint.ts";
export { parseFrontMatter } from "./front_matter.ts";
export {
  discoverPromptFiles,
  inspectPacket,
  type LoadOptions,
  loadPacket,
  type PacketInspection,
  packetOf,
  registerRepoRemap,
  type RepoRemap,
} from "./load.ts";
export { ENUM_OPTIONS, normalizeEnum, normalizeProvider, PROVIDERS } from "./options.ts";
export { normalizeVerify } from "./prompt_file.ts";
export { filenamePrefix, hasPlaceholderMarkers } from "./prompt_text.ts";
export { ALL, type Selection, selectPrompts } from "./select.ts";
export { lintSimulate } from "./simulate_lint.ts";
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
