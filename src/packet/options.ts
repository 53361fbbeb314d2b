/**
 * Option keys, enum validation, provider aliases and the layering of docs/reference/packet.md §9: flags > prompt > manifest >
 * profile > env > defaults. Maps merge recursively; scalars and lists replace.
 */
import { DEFAULT_VIEW } from "../events/types.ts";
import type { ExecutionOptions, PermissionMode, ProviderName } from "./types.ts";
import { lanes } from "../lanes/catalog.ts";
import type { FindingSink } from "./findings.ts";
import { normalizeAgentControl, normalizeExecution } from "./agent_control.ts";
import { applyBudgetOverrides, normalizeRecovery, type RecoveryProblem } from "./recovery.ts";
import { parseDuration } from "../util/time.ts";

/** Provider names (docs/reference/packet.md §3), as the lane profiles declare them. */
export const PROVIDERS: readonly ProviderName[] = lanes().names;

/** Accepted provider aliases → lane, as the lane profiles declare them. */
export const PROVIDER_ALIASES: Readonly<Record<string, ProviderName>> = lanes().aliases;

/** Enum-valued option keys with their allowed values. */
export const ENUM_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  permission_mode: ["default", "auto", "bypass", "plan"],
  cli_confirmation: ["off", "warn", "require"],
  log_mode: ["compact", "verbose", "studio"],
  tool_output: ["none", "summary", "preview", "full"],
  thinking: ["show", "hide"],
  diff: ["none", "stat", "full"],
  log_meta: ["none", "full"],
  events_mode: ["compact", "full", "off"],
};

/** prompt_runner_sdk spellings of permission modes. */
const PERMISSION_ALIASES: Readonly<Record<string, PermissionMode>> = {
  full_auto: "auto",
  accept_edits: "auto",
  delegate: "auto",
  dont_ask: "auto",
  auto_edit: "auto",
  dangerously_skip_permissions: "bypass",
  bypass_permissions: "bypass",
  yolo: "bypass",
  dangerously_allow_all: "bypass",
};

/** Provider option bags: the two every lane reads, then each lane's own (declared by its profile). */
export const PROVIDER_BAGS: readonly string[] = ["sdk_opts", "adapter_opts", ...lanes().optionKeys];

/** Keys recognised inside provider option bags; others get the lint warning `unknown_provider_option`. */
export const PROVIDER_BAG_KEYS: ReadonlySet<string> = new Set([
  "cli_path",
  "env",
  "args",
  "extra_args",
  "model",
  "reasoning_effort",
  "permission_mode",
  "allowed_tools",
  "disallowed_tools",
  "max_turns",
  "system_prompt",
  "append_system_prompt",
  "timeout",
  "cwd",
  "additional_directories",
  "sandbox",
  "sandbox_mode",
  "mode",
  "approval_policy",
  "skip_git_repo_check",
  "web_search",
  "network_access",
  "config",
  "profile",
  "settings",
  "mcp_config",
  "output_format",
  "verbose",
  "include_partial_messages",
  "transport",
  "app_server",
]);

/** Execution keys a prompt may override (docs/reference/packet.md §4), besides the provider bags and `recovery`. */
export const PROMPT_EXECUTION_KEYS = [
  "provider",
  "model",
  "reasoning_effort",
  "permission_mode",
  "allowed_tools",
  "timeout",
  "system_prompt",
  "append_system_prompt",
  "max_turns",
  "cli_confirmation",
] as const;

/** Option keys a manifest or profile may set. */
export const MANIFEST_OPTION_KEYS: readonly string[] = [
  ...PROMPT_EXECUTION_KEYS,
  "log_mode",
  "tool_output",
  "thinking",
  "diff",
  "diff_max_lines",
  "tool_output_max_lines",
  "log_meta",
  "events_mode",
  "recovery",
  "execution",
  "agent_control",
  ...PROVIDER_BAGS,
];

const STRING_KEYS = new Set(["model", "reasoning_effort", "system_prompt", "append_system_prompt"]);
const POSITIVE_INT_KEYS = new Set(["max_turns", "diff_max_lines", "tool_output_max_lines"]);

/** The per-session bound when nothing valid is set: 7 days (docs/reference/packet.md §10). */
export const MAX_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;

/** A normalised option layer: validated values only, keys as strings. */
export type OptionLayer = Record<string, unknown>;

/** Where a layer came from, for error messages. */
export interface LayerSource {
  /** File name shown in findings (relative to the packet when inside it), or a label like `environment`. */
  file: string;
  promptId?: string | null;
  /** The packet dir: relative paths a lane declares (`codex_thread_opts.additional_directories`) resolve against it. */
  packetDir?: string;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Lane for a provider value (case-insensitive, aliases accepted), or null when unknown. */
export function normalizeProvider(value: unknown): ProviderName | null {
  if (typeof value !== "string") return null;
  const v = value.trim().toLowerCase();
  return lanes().normalize(v);
}

/**
 * Provider inference from a model name (docs/reference/packet.md §3): the first lane whose model patterns match (`gpt` → codex,
 * `amp` → amp), else the default lane (claude).
 */
export function inferProvider(model: string): ProviderName {
  return lanes().inferFromModel(model);
}

function snake(s: string): string {
  return s.trim().replace(/([a-z0-9])([A-Z])/g, "$1_$2").replaceAll("-", "_").toLowerCase();
}

/** Normalise an enum option value (case-insensitive; permission aliases), or null when not allowed. */
export function normalizeEnum(key: string, value: unknown): string | null {
  const allowed = ENUM_OPTIONS[key];
  if (!allowed || typeof value !== "string") return null;
  const v = snake(value);
  if (allowed.includes(v)) return v;
  if (key === "permission_mode") return PERMISSION_ALIASES[v] ?? null;
  return null;
}

/** Deep merge: maps merge recursively, everything else in `top` replaces `base`. Inputs are not mutated. */
export function deepMerge(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const b = out[k];
    out[k] = isMap(b) && isMap(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function show(v: unknown): string {
  return typeof v === "string" ? `"${v}"` : JSON.stringify(v) ?? String(v);
}

/**
 * Validate and normalise one layer of options. Invalid values are reported to the sink (`invalid_option_value`,
 * `invalid_provider`, `unknown_provider_option`) and left out of the layer.
 */
export function normalizeLayer(
  raw: Record<string, unknown>,
  keys: readonly string[],
  src: LayerSource,
  sink: FindingSink,
): OptionLayer {
  const out: OptionLayer = {};
  const at = (key: string) => ({ file: src.file, key, prompt_id: src.promptId ?? null });
  const bad = (key: string, value: unknown, expected: string) =>
    sink.error("invalid_option_value", `${src.file}: ${key} is ${show(value)}; expected ${expected}`, at(key));
  for (const key of keys) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    if (key === "provider") {
      const p = normalizeProvider(value);
      if (p) out.provider = p;
      else {
        sink.error(
          "invalid_provider",
          `${src.file}: provider is ${show(value)}; expected one of ${PROVIDERS.join(", ")} (or an alias: ${
            Object.keys(PROVIDER_ALIASES).join(", ")
          })`,
          at(key),
        );
      }
    } else if (ENUM_OPTIONS[key]) {
      const v = normalizeEnum(key, value);
      if (v) out[key] = v;
      else bad(key, value, `one of ${ENUM_OPTIONS[key]!.join(", ")}`);
    } else if (STRING_KEYS.has(key)) {
      if (typeof value === "string" || typeof value === "number") out[key] = String(value);
      else bad(key, value, "a string");
    } else if (POSITIVE_INT_KEYS.has(key)) {
      const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
      if (typeof n === "number" && Number.isInteger(n) && n > 0) out[key] = n;
      else bad(key, value, "a positive integer");
    } else if (key === "allowed_tools") {
      if (typeof value === "string") out[key] = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
      else if (Array.isArray(value) && value.every((t) => typeof t === "string")) out[key] = [...value];
      else bad(key, value, "a list of strings");
    } else if (key === "timeout") {
      const ms = timeoutValue(value);
      if (ms === null) bad(key, value, `${TIMEOUT_FORM}, or unbounded`);
      else out.timeout = ms;
    } else if (key === "recovery") {
      const problems: RecoveryProblem[] = [];
      normalizeRecovery(value, problems);
      for (const p of problems) {
        if (p.kind === "boolean") bad(p.key, p.value, "true or false");
        else if (p.kind === "unknown") {
          sink.warn(
            "unknown_recovery_key",
            `${src.file}: ${p.key} is not ${p.not ?? "a recovery key"}; it is ignored${
              p.hint ? `; did you mean "${p.hint}"?` : ""
            }`,
            at(p.key),
          );
        } else {
          sink.warn(
            "invalid_recovery_value",
            `${src.file}: ${p.key} is ${show(p.value)}; expected ${
              p.kind === "map" ? "a map" : "an integer ≥ 0"
            } (the default applies)`,
            at(p.key),
          );
        }
      }
      if (isMap(value)) out.recovery = value;
    } else if (key === "execution") {
      const policy = normalizeExecution(value, src.file, sink, src.promptId ?? null);
      if (policy) out.execution = { ...policy };
    } else if (key === "agent_control") {
      const config = normalizeAgentControl(value, src.file, sink, src.promptId ?? null);
      if (config) out.agent_control = { ...config };
    } else if ((PROVIDER_BAGS as readonly string[]).includes(key)) {
      if (!isMap(value)) {
        bad(key, value, "a map");
        continue;
      }
      for (const k of Object.keys(value)) {
        if (!PROVIDER_BAG_KEYS.has(k)) {
          sink.warn(
            "unknown_provider_option",
            `${src.file}: ${key}.${k} is not a recognised provider option; it is ignored`,
            at(`${key}.${k}`),
          );
        }
      }
      let bag = value;
      for (const pathKey of lanes().packetRelativePaths[key] ?? []) {
        const paths = bag[pathKey];
        if (!Array.isArray(paths) || !src.packetDir) continue;
        const base = src.packetDir;
        bag = {
          ...bag,
          [pathKey]: paths.map((d) => typeof d === "string" && !d.startsWith("/") ? joinPath(base, d) : d),
        };
      }
      out[key] = bag;
    }
  }
  return out;
}

/** Join and normalise a POSIX path (`.` and `..` folded). */
export function joinPath(base: string, rel: string): string {
  const parts = (rel.startsWith("/") ? rel : `${base}/${rel}`).split("/");
  const out: string[] = [];
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") out.pop();
    else out.push(p);
  }
  return "/" + out.join("/");
}

/** The duration form the `--timeout` flag and the `timeout` option share (src/util/time.ts `parseDuration`). */
export const TIMEOUT_FORM = "milliseconds or a duration like 250ms, 30s, 10m, 4h";

/**
 * A `timeout` option value as the layer keeps it: a positive number of milliseconds (a number, or a string in the
 * `--timeout` flag's duration syntax: `90000`, `30s`, `10m`, `1.5h`), or `"unbounded"` (also `infinity`, `infinite`).
 * Null for anything else (`soon`, `10 s`, `0`, `-5`): an invalid value is an error, never a silent 7-day bound.
 */
export function timeoutValue(value: unknown): number | "unbounded" | null {
  if (typeof value === "number") return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== "string") return null;
  if (/^\s*(unbounded|infinity|infinite)\s*$/i.test(value)) return "unbounded";
  const ms = parseDuration(value);
  return ms !== null && ms > 0 ? ms : null;
}

/** The per-session bound in ms: unset, `unbounded`/`infinity`/`infinite` or invalid → 7 days; clamped to 7 days. */
export function timeoutMs(value: unknown): number {
  let n: number | null = null;
  if (typeof value === "number" && Number.isFinite(value) && value > 0) n = Math.floor(value);
  else if (typeof value === "string" && /^\s*\d+\s*$/.test(value) && Number(value) > 0) n = Number(value);
  return n === null ? MAX_TIMEOUT_MS : Math.min(n, MAX_TIMEOUT_MS);
}

/** Merge layers given lowest first (defaults … flags). */
export function mergeLayers(layers: readonly OptionLayer[]): OptionLayer {
  let out: OptionLayer = {};
  for (const l of layers) out = deepMerge(out, l);
  return out;
}

/** Budget overrides of the CLI layer. */
export interface BudgetOverrides {
  retry_attempts?: number;
  repair_attempts?: number;
  max_steers?: number;
}

/** Build {@link ExecutionOptions} from a merged layer (docs/reference/packet.md §9; provider inferred from the model). */
export function resolveExecutionOptions(merged: OptionLayer, budgets: BudgetOverrides = {}): ExecutionOptions {
  const str = (k: string): string | null => (typeof merged[k] === "string" ? merged[k] as string : null);
  const int = (k: string, d: number): number => (typeof merged[k] === "number" ? merged[k] as number : d);
  const model = str("model") ?? "haiku";
  const provider = (merged.provider as ProviderName | undefined) ?? inferProvider(model);
  const provider_opts: Record<string, Record<string, unknown>> = {};
  for (const bag of PROVIDER_BAGS) if (isMap(merged[bag])) provider_opts[bag] = merged[bag] as Record<string, unknown>;
  return {
    provider,
    model,
    reasoning_effort: str("reasoning_effort"),
    permission_mode: str("permission_mode") as PermissionMode | null,
    allowed_tools: Array.isArray(merged.allowed_tools) ? [...merged.allowed_tools as string[]] : null,
    timeout_ms: timeoutMs(merged.timeout),
    system_prompt: str("system_prompt"),
    append_system_prompt: str("append_system_prompt"),
    max_turns: typeof merged.max_turns === "number" ? merged.max_turns : null,
    view: {
      log_mode: (str("log_mode") ?? DEFAULT_VIEW.log_mode) as ExecutionOptions["view"]["log_mode"],
      tool_output: (str("tool_output") ?? DEFAULT_VIEW.tool_output) as ExecutionOptions["view"]["tool_output"],
      thinking: (str("thinking") ?? DEFAULT_VIEW.thinking) as ExecutionOptions["view"]["thinking"],
      diff: (str("diff") ?? DEFAULT_VIEW.diff) as ExecutionOptions["view"]["diff"],
    },
    diff_max_lines: int("diff_max_lines", 60),
    tool_output_max_lines: int("tool_output_max_lines", 200),
    log_meta: (str("log_meta") ?? "none") as ExecutionOptions["log_meta"],
    events_mode: (str("events_mode") ?? "compact") as ExecutionOptions["events_mode"],
    recovery: applyBudgetOverrides(normalizeRecovery(merged.recovery), budgets),
    provider_opts,
  };
}
