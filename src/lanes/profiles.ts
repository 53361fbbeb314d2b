/**
 * What each lane declares about itself (docs/lanes.md): name, aliases, option bags, model patterns, executable. Pure data
 * with no imports of lane code, so reading packets (src/packet/options.ts, through src/lanes/catalog.ts) never loads a
 * lane implementation. Each lane file builds its lane from its profile here.
 */
import type { LaneProfile } from "./types.ts";

/** The claude lane (docs/reference/providers.md §2). */
export const CLAUDE_PROFILE: LaneProfile = {
  name: "claude",
  aliases: ["claude_agent", "claude_agent_sdk"],
  optionKeys: ["claude_opts"],
  modelPatterns: [],
  defaultForModels: true,
  executable: "claude",
  executableEnv: "PROMPT_RUNNER_CLAUDE_CLI",
  // `claude_opts.transport: stream_json` selects stdin kept open (in-turn steering); exec stays the default (docs/lanes.md).
  transports: ["exec", "stream_json"],
  installHint: "npm install -g @anthropic-ai/claude-code",
};

/** The codex lane (docs/reference/providers.md §3). */
export const CODEX_PROFILE: LaneProfile = {
  name: "codex",
  aliases: ["codex_sdk"],
  optionKeys: ["codex_opts", "codex_thread_opts"],
  packetRelativePaths: { codex_thread_opts: ["additional_directories"] },
  modelPatterns: [/gpt/i],
  executable: "codex",
  executableEnv: "PROMPT_RUNNER_CODEX_CLI",
  // `codex_opts.app_server: true` selects the JSON-RPC app-server (in-turn steering); exec stays the default (docs/lanes.md).
  transports: ["exec", "app_server"],
  installHint: "npm install -g @openai/codex",
};

/** The amp lane. */
export const AMP_PROFILE: LaneProfile = {
  name: "amp",
  aliases: ["amp_sdk"],
  optionKeys: ["amp_opts"],
  modelPatterns: [/amp/i],
  executable: "amp",
  executableEnv: "PROMPT_RUNNER_AMP_CLI",
  transports: ["exec"],
  installHint: "npm install -g @sourcegraph/amp",
};

/** The cursor agent lane. */
export const CURSOR_PROFILE: LaneProfile = {
  name: "cursor",
  aliases: ["cursor_agent", "cursor_cli_sdk"],
  optionKeys: ["cursor_opts"],
  modelPatterns: [],
  executable: "agent",
  executableEnv: "PROMPT_RUNNER_CURSOR_CLI",
  transports: ["exec"],
  installHint: "curl https://cursor.com/install -fsS | bash",
};

/** The antigravity lane. */
export const ANTIGRAVITY_PROFILE: LaneProfile = {
  name: "antigravity",
  aliases: ["antigravity_cli_sdk"],
  optionKeys: ["antigravity_opts"],
  modelPatterns: [],
  executable: "agy",
  executableEnv: "PROMPT_RUNNER_ANTIGRAVITY_CLI",
  transports: ["exec"],
  installHint: "the vendor install script for the Antigravity CLI (agy ≥ 1.1.8)",
};

/** The built-in simulated lane: in-process, always available; models every transport (`simulate: {transport: …}`). */
export const SIMULATED_PROFILE: LaneProfile = {
  name: "simulated",
  aliases: ["simulation"],
  optionKeys: [],
  modelPatterns: [],
  executable: null,
  executableEnv: null,
  transports: ["exec", "stream_json", "app_server"],
  installHint: "built in",
};

/** Every shipped lane's profile, in the order of docs/reference/packet.md §3 (also the order model patterns are tried in). */
export const LANE_PROFILES: readonly LaneProfile[] = [
  CLAUDE_PROFILE,
  CODEX_PROFILE,
  AMP_PROFILE,
  CURSOR_PROFILE,
  ANTIGRAVITY_PROFILE,
  SIMULATED_PROFILE,
];
