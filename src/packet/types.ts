/** The loaded packet model (docs/reference/packet.md). Produced by src/packet/load.ts, consumed by plan, runner and verifier. */
import type { View } from "../events/mod.ts";
import type { PermissionMode, SessionOptions } from "../lanes/mod.ts";

export type { PermissionMode };

/** A lane name (docs/reference/packet.md §3): one a lane profile declares (src/lanes/mod.ts); packets are checked when they load. */
export type ProviderName = string;

/** A directive an agent may give at the end of an iteration. */
export type AgentAction = "continue" | "repeat" | "finish" | "blocked";

/** The normalised `agent_control` block. */
export interface AgentControlConfig {
  readonly enabled: boolean;
  /** What an iteration without a directive does. */
  readonly default_action: "continue" | "repeat";
  /** Iterations per prompt per run before the prompt stops resumable (exit 1). */
  readonly max_iterations: number;
  /** The packet-level contract a `finish` must pass: clause → entries. */
  readonly completion_verify: Record<string, unknown[]>;
}

/** The normalised `execution` block: exactly one of the two valid pairs. */
export type ExecutionPolicy =
  | { readonly completion: "verifier_owned"; readonly incomplete: "fail" }
  | { readonly completion: "agent_owned"; readonly incomplete: "repeat" };

/** A target git repository of the packet. */
export interface Repo {
  name: string;
  /** Canonical absolute path (symlinks resolved when it exists). */
  path: string;
  /** The path as written in the manifest. */
  configuredPath: string;
  default: boolean;
}

/** Normalised recovery budgets (docs/reference/runner.md §7). */
export interface RecoveryOptions {
  resume_attempts: number;
  max_steers: number;
  interrupt_grace_ms: number;
  retry: {
    max_attempts: number;
    base_delay_ms: number;
    max_delay_ms: number;
    jitter: boolean;
    class_attempts: Record<string, number>;
  };
  repair: {
    enabled: boolean;
    max_attempts: number;
    trigger_on_nominal_success_with_failed_verifier: boolean;
    trigger_on_provider_failure_with_workspace_changes: boolean;
    trigger_on_retry_exhaustion_with_workspace_changes: boolean;
  };
}

/** Effective execution options of one prompt after layering (docs/reference/packet.md §9): what its sessions read, and more. */
export interface ExecutionOptions extends SessionOptions {
  view: View;
  diff_max_lines: number;
  tool_output_max_lines: number;
  log_meta: "none" | "full";
  events_mode: "compact" | "full" | "off";
  recovery: RecoveryOptions;
}

/** One prompt file. */
export interface Prompt {
  /** Normalised id (`"03"`). */
  id: string;
  /** Absolute path of the prompt file. */
  file: string;
  /** Path relative to the packet dir (`prompts/03_x.prompt.md`). */
  relFile: string;
  phase: number;
  sp: number;
  name: string;
  /** Target repo names; the first is the cwd. Empty → default repo. */
  targets: string[];
  commit: string;
  dependsOn: string[];
  /** The packet contract as written: clause → list of entries (single values wrapped). */
  verify: Record<string, unknown[]>;
  /** The raw `simulate:` map, if any. */
  simulate: Record<string, unknown> | null;
  /** The prompt body sent to the agent (everything after the front matter). */
  body: string;
  /** Raw front matter map. */
  frontMatter: Record<string, unknown>;
  /** Effective options for this prompt (flags > prompt > manifest > profile > env > defaults). */
  options: ExecutionOptions;
  /** Session working directory (docs/reference/packet.md §6). */
  cwd: string;
  /** Legacy validation commands used when `verify.commands` is absent. */
  legacyCommands: string[];
}

/** A lint/load finding (docs/reference/packet.md §11, docs/reference/contract.md §11). */
export interface Finding {
  kind: string;
  severity: "error" | "warning";
  prompt_id: string | null;
  file: string | null;
  key: string | null;
  message: string;
}

/** A loaded packet. */
export interface Packet {
  /** Canonical absolute packet dir. */
  dir: string;
  manifestPath: string;
  name: string;
  promptDir: string;
  profile: string | null;
  repos: Repo[];
  defaultRepo: Repo | null;
  phases: Record<string, string>;
  /** Prompts in execution order (numeric id order). */
  prompts: Prompt[];
  /** Manifest-level options (before prompt overrides), used for fingerprints and display. */
  options: ExecutionOptions;
  /** Raw manifest front matter. */
  manifest: Record<string, unknown>;
  /** Non-fatal findings made while loading (unknown keys, legacy sections…). */
  warnings: Finding[];
  /** The enabled `agent_control` block (docs/agent-control.md), or null when absent or disabled. */
  agentControl: AgentControlConfig | null;
  /** Who owns completion (`execution`, docs/agent-control.md §1). */
  execution: ExecutionPolicy;
  /** A workspace's installed contract artifacts, id → path (docs/reference/workspace.md §4.1); absent elsewhere. */
  artifacts?: Record<string, string>;
}

/** CLI-level overrides: the top option layer. */
export interface OptionOverrides {
  provider?: string;
  model?: string;
  reasoning_effort?: string;
  permission_mode?: string;
  timeout_ms?: number;
  log_mode?: string;
  tool_output?: string;
  thinking?: string;
  diff?: string;
  log_meta?: string;
  events_mode?: string;
  retry_attempts?: number;
  repair_attempts?: number;
  max_steers?: number;
}
