/**
 * Selection, execution-override and budget flags shared by `run` and `plan` (docs/reference/cli.md §3.1), with their parsing
 * into a {@link Selection} and {@link OptionOverrides}. Invalid values are usage errors (exit 2).
 */
import { UsageError } from "../errors.ts";
import type { OptionOverrides, Selection } from "../packet/mod.ts";
import { ENUM_OPTIONS, normalizeEnum, normalizeProvider, PROVIDERS } from "../packet/options.ts";
import { parseDuration } from "../util/time.ts";
import type { FlagSpec, FlagValues } from "./frame.ts";

/** Selector flags. */
export const SELECTION_FLAGS: Record<string, FlagSpec> = {
  all: { type: "boolean", description: "select every prompt (the default)" },
  remaining: { type: "boolean", description: "prompts not completed in progress.log" },
  phase: { type: "string", value: "N", description: "prompts of phase N" },
  from: { type: "string", value: "ID", description: "start at this prompt (packet order, inclusive)" },
  through: { type: "string", value: "ID", description: "stop after this prompt (packet order, inclusive)" },
  "new-run": { type: "boolean", description: "always mint a new run id" },
};

/** Execution override, budget and launch-view flags (the top option layer). */
export const OVERRIDE_FLAGS: Record<string, FlagSpec> = {
  provider: { type: "string", value: "P", values: PROVIDERS, description: `lane: ${PROVIDERS.join("|")}` },
  model: { type: "string", value: "M", description: "model passed to the lane" },
  "reasoning-effort": { type: "string", value: "E", description: "lane-specific reasoning effort" },
  "permission-mode": {
    type: "string",
    value: "X",
    values: ENUM_OPTIONS.permission_mode!,
    description: "default|auto|bypass|plan",
  },
  timeout: { type: "string", value: "DUR", description: "per-session bound (250ms, 30s, 10m, 4h)" },
  "retry-attempts": { type: "string", value: "N", description: "retries for every failure class" },
  "repair-attempts": { type: "string", value: "N", description: "repair attempts per prompt" },
  "max-steers": { type: "string", value: "N", description: "steers per prompt per run" },
  "log-mode": { type: "string", value: "MODE", values: ENUM_OPTIONS.log_mode!, description: "compact|verbose|studio" },
  "tool-output": {
    type: "string",
    value: "MODE",
    values: ENUM_OPTIONS.tool_output!,
    description: "none|summary|preview|full",
  },
  thinking: { type: "string", value: "show|hide", description: "show or hide thinking" },
  diff: { type: "string", value: "MODE", values: ENUM_OPTIONS.diff!, description: "none|stat|full" },
  "log-meta": { type: "string", value: "MODE", values: ENUM_OPTIONS.log_meta!, description: "none|full" },
  "events-mode": { type: "string", value: "MODE", values: ENUM_OPTIONS.events_mode!, description: "compact|full|off" },
};

/** Target flags (defined with target resolution, so a command taking only them does not load the option code). */
export { TARGET_FLAGS } from "./target.ts";

function str(flags: FlagValues, name: string): string | null {
  const v = flags[name];
  return typeof v === "string" ? v : null;
}

function count(flags: FlagValues, name: string): number | undefined {
  const v = str(flags, name);
  if (v === null) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError("invalid_value", `--${name} takes an integer ≥ 0, got "${v}"`);
  return Number(v.trim());
}

/** Build the selection from flags and the id positionals. */
export function parseSelection(flags: FlagValues, ids: string[]): Selection {
  let phase: number | null = null;
  const ph = str(flags, "phase");
  if (ph !== null) {
    if (!/^\d+$/.test(ph.trim())) throw new UsageError("invalid_value", `--phase takes an integer, got "${ph}"`);
    phase = Number(ph.trim());
  }
  return {
    ids,
    phase,
    remaining: flags.remaining === true,
    from: str(flags, "from"),
    through: str(flags, "through"),
  };
}

/** Build the override layer from flags; invalid enum values, durations and counts are usage errors. */
export function parseOverrides(flags: FlagValues): OptionOverrides {
  const o: OptionOverrides = {};
  const provider = str(flags, "provider");
  if (provider !== null) {
    const p = normalizeProvider(provider);
    if (!p) {
      throw new UsageError("invalid_value", `--provider does not take "${provider}"; allowed: ${PROVIDERS.join(", ")}`);
    }
    o.provider = p;
  }
  const model = str(flags, "model");
  if (model !== null) o.model = model;
  const effort = str(flags, "reasoning-effort");
  if (effort !== null) o.reasoning_effort = effort;
  const enums: [string, keyof OptionOverrides & string][] = [
    ["permission-mode", "permission_mode"],
    ["log-mode", "log_mode"],
    ["tool-output", "tool_output"],
    ["thinking", "thinking"],
    ["diff", "diff"],
    ["log-meta", "log_meta"],
    ["events-mode", "events_mode"],
  ];
  for (const [flag, key] of enums) {
    const v = str(flags, flag);
    if (v === null) continue;
    const n = normalizeEnum(key, v);
    if (!n) {
      throw new UsageError(
        "invalid_value",
        `--${flag} does not take "${v}"; allowed: ${ENUM_OPTIONS[key]!.join(", ")}`,
      );
    }
    (o as Record<string, unknown>)[key] = n;
  }
  const timeout = str(flags, "timeout");
  if (timeout !== null) {
    const ms = parseDuration(timeout);
    if (ms === null || ms <= 0) {
      throw new UsageError("invalid_value", `--timeout takes a duration like 250ms, 30s, 10m, 4h; got "${timeout}"`);
    }
    o.timeout_ms = ms;
  }
  const retry = count(flags, "retry-attempts");
  if (retry !== undefined) o.retry_attempts = retry;
  const repair = count(flags, "repair-attempts");
  if (repair !== undefined) o.repair_attempts = repair;
  const steers = count(flags, "max-steers");
  if (steers !== undefined) o.max_steers = steers;
  return o;
}
