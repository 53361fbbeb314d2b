/** Recovery budget normalisation (docs/reference/runner.md §7): defaults, deep merge, integer and boolean rules. */
import type { RecoveryOptions } from "./types.ts";
import { closest } from "../util/edit_distance.ts";

/** Default retries per failure class; always filled in after normalisation. */
const DEFAULT_CLASS_ATTEMPTS: Readonly<Record<string, number>> = Object.freeze({
  provider_capacity: 5,
  provider_rate_limit: 5,
  provider_auth_claim: 3,
  provider_config_claim: 3,
  provider_runtime_claim: 3,
  transport_disconnect: 4,
  transport_timeout: 4,
  protocol_error: 4,
  unknown: 3,
});

/**
 * Every failure class the classifier gives (docs/classification.md; `CLASS_TABLE` in src/run/classify.ts, which a
 * test holds to this list): the keys `recovery.retry.class_attempts` may have. Any other key would never apply.
 */
export const FAILURE_CLASS_NAMES: readonly string[] = [
  "provider_capacity",
  "provider_rate_limit",
  "provider_auth_claim",
  "provider_config_claim",
  "provider_runtime_claim",
  "transport_disconnect",
  "transport_timeout",
  "protocol_error",
  "launch_failed",
  "user_cancelled",
  "approval_denied",
  "guardrail_blocked",
  "unknown",
];

/** The built-in recovery budgets. Returns a fresh object each call. */
export function defaultRecovery(): RecoveryOptions {
  return {
    resume_attempts: 2,
    max_steers: 3,
    interrupt_grace_ms: 5000,
    retry: {
      max_attempts: 3,
      base_delay_ms: 1000,
      max_delay_ms: 30000,
      jitter: true,
      class_attempts: { ...DEFAULT_CLASS_ATTEMPTS },
    },
    repair: {
      enabled: true,
      max_attempts: 2,
      trigger_on_nominal_success_with_failed_verifier: true,
      trigger_on_provider_failure_with_workspace_changes: true,
      trigger_on_retry_exhaustion_with_workspace_changes: true,
    },
  };
}

/** The boolean rule of docs/reference/runner.md §7: true only for `true`, `"true"`, `"TRUE"`, `"1"`, `1`. */
export function truthy(value: unknown): boolean {
  return value === true || value === "true" || value === "TRUE" || value === "1" || value === 1;
}

/** An integer ≥ 0 (digit strings accepted), or null when the value does not qualify. */
function nonNegativeInt(value: unknown): number | null {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value.trim());
  return null;
}

/**
 * A problem found while normalising a recovery map: the dotted key and the rejected value. `kind`: `integer` (not an
 * integer ≥ 0), `map` (a section that is not a map), `boolean` (not true/false), `unknown` (a key the budgets do not
 * have; `hint` is the closest known key).
 */
export interface RecoveryProblem {
  key: string;
  value: unknown;
  kind?: "integer" | "map" | "boolean" | "unknown";
  hint?: string | null;
  /** What an `unknown` key is not (default "a recovery key"). */
  not?: string;
}

/** The values a recovery boolean may take: {@link truthy}'s true values and their false counterparts. */
const BOOLEAN_VALUES: readonly unknown[] = [true, false, 1, 0, "true", "false", "TRUE", "FALSE", "1", "0"];

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const INT_KEYS = ["resume_attempts", "max_steers", "interrupt_grace_ms"] as const;
const RETRY_INT_KEYS = ["max_attempts", "base_delay_ms", "max_delay_ms"] as const;
/** The keys each level of a recovery map may have (docs/packets.md "`recovery:`"); others are reported. */
const TOP_KEYS = [...INT_KEYS, "retry", "repair"];
const RETRY_KEYS = [...RETRY_INT_KEYS, "jitter", "class_attempts"];
const REPAIR_BOOL_KEYS = [
  "enabled",
  "trigger_on_nominal_success_with_failed_verifier",
  "trigger_on_provider_failure_with_workspace_changes",
  "trigger_on_retry_exhaustion_with_workspace_changes",
] as const;

/** Report the keys of `map` that `known` does not list (`prefix` dotted before each). */
function unknownKeys(
  map: Record<string, unknown>,
  known: readonly string[],
  prefix: string,
  problems: RecoveryProblem[],
) {
  for (const [k, value] of Object.entries(map)) {
    if (!known.includes(k)) problems.push({ key: `${prefix}.${k}`, value, kind: "unknown", hint: closest(k, known) });
  }
}

/**
 * Normalise a user recovery map over the defaults. Invalid integers keep the default and are reported through
 * `problems` (lint warns); booleans follow {@link truthy}, and a value that is not a boolean at all is reported
 * (`kind: "boolean"`, an error for the loader). Unknown keys are ignored and reported (`kind: "unknown"`).
 */
export function normalizeRecovery(raw: unknown, problems: RecoveryProblem[] = []): RecoveryOptions {
  const out = defaultRecovery();
  if (!isMap(raw)) {
    if (raw !== undefined && raw !== null) problems.push({ key: "recovery", value: raw, kind: "map" });
    return out;
  }
  const int = (key: string, value: unknown, fallback: number): number => {
    if (value === undefined) return fallback;
    const n = nonNegativeInt(value);
    if (n === null) {
      problems.push({ key, value, kind: "integer" });
      return fallback;
    }
    return n;
  };
  const bool = (key: string, value: unknown): boolean => {
    if (!BOOLEAN_VALUES.includes(value)) problems.push({ key, value, kind: "boolean" });
    return truthy(value);
  };
  unknownKeys(raw, TOP_KEYS, "recovery", problems);
  for (const k of INT_KEYS) out[k] = int(`recovery.${k}`, raw[k], out[k]);
  const retry = raw.retry;
  if (isMap(retry)) {
    unknownKeys(retry, RETRY_KEYS, "recovery.retry", problems);
    for (const k of RETRY_INT_KEYS) out.retry[k] = int(`recovery.retry.${k}`, retry[k], out.retry[k]);
    if (retry.jitter !== undefined) out.retry.jitter = bool("recovery.retry.jitter", retry.jitter);
    const ca = retry.class_attempts;
    if (isMap(ca)) {
      for (const [cls, v] of Object.entries(ca)) {
        if (!FAILURE_CLASS_NAMES.includes(cls)) {
          // A misspelt class would leave the real one at its default without a word.
          const hint = closest(cls, FAILURE_CLASS_NAMES);
          problems.push({
            key: `recovery.retry.class_attempts.${cls}`,
            value: v,
            kind: "unknown",
            hint,
            not: "a failure class",
          });
          continue;
        }
        const fallback = out.retry.class_attempts[cls];
        const n = nonNegativeInt(v);
        if (n === null) {
          problems.push({ key: `recovery.retry.class_attempts.${cls}`, value: v, kind: "integer" });
          if (fallback === undefined) continue;
        } else out.retry.class_attempts[cls] = n;
      }
    } else if (ca !== undefined && ca !== null) {
      problems.push({ key: "recovery.retry.class_attempts", value: ca, kind: "map" });
    }
  } else if (retry !== undefined && retry !== null) problems.push({ key: "recovery.retry", value: retry, kind: "map" });
  const repair = raw.repair;
  if (isMap(repair)) {
    unknownKeys(repair, [...REPAIR_BOOL_KEYS, "max_attempts"], "recovery.repair", problems);
    for (const k of REPAIR_BOOL_KEYS) {
      if (repair[k] !== undefined) out.repair[k] = bool(`recovery.repair.${k}`, repair[k]);
    }
    out.repair.max_attempts = int("recovery.repair.max_attempts", repair.max_attempts, out.repair.max_attempts);
  } else if (repair !== undefined && repair !== null) {
    problems.push({ key: "recovery.repair", value: repair, kind: "map" });
  }
  return out;
}

/** Apply the CLI budget overrides (`--retry-attempts`, `--repair-attempts`, `--max-steers`) to normalised budgets. */
export function applyBudgetOverrides(
  r: RecoveryOptions,
  o: { retry_attempts?: number; repair_attempts?: number; max_steers?: number },
): RecoveryOptions {
  const out: RecoveryOptions = structuredClone(r);
  if (o.retry_attempts !== undefined) {
    out.retry.max_attempts = o.retry_attempts;
    for (const k of Object.keys(out.retry.class_attempts)) out.retry.class_attempts[k] = o.retry_attempts;
  }
  if (o.repair_attempts !== undefined) out.repair.max_attempts = o.repair_attempts;
  if (o.max_steers !== undefined) out.max_steers = o.max_steers;
  return out;
}
