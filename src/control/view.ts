/**
 * View validation (docs/reference/control-plane.md §7), identical in the API and the runner: values must be strings from the
 * allowed sets, the first error wins, and the refusal reasons are exact.
 */
import { DEFAULT_VIEW, type View, VIEW_VALUES } from "../events/types.ts";
import { isRecord } from "../util/common.ts";

/** The four view keys, sorted. */
const VIEW_KEYS: readonly (keyof View)[] = ["diff", "log_mode", "thinking", "tool_output"];

/** Result of {@link validateView}. */
export type ViewValidation =
  | { ok: true; changed: Partial<View> }
  | { ok: false; code: "unknown_view_key"; key: string; reason: string }
  | { ok: false; code: "invalid_view_value"; key: string; value: unknown; reason: string }
  | { ok: false; code: "empty_view"; reason: string };

function isViewKey(key: string): key is keyof View {
  return (VIEW_KEYS as readonly string[]).includes(key);
}

/** Validate `set_view` params; on success `changed` holds exactly the named settings. */
export function validateView(params: Record<string, unknown>): ViewValidation {
  const changed: Record<string, string> = {};
  let any = false;
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    any = true;
    if (!isViewKey(key)) {
      return {
        ok: false,
        code: "unknown_view_key",
        key,
        reason: `unknown view setting "${key}"; known: ${VIEW_KEYS.join(", ")}`,
      };
    }
    const allowed = VIEW_VALUES[key] as readonly string[];
    if (typeof value !== "string" || !allowed.includes(value)) {
      const shown = typeof value === "string" ? value : JSON.stringify(value);
      return {
        ok: false,
        code: "invalid_view_value",
        key,
        value,
        reason: `${key} does not take "${shown}"; allowed: ${[...allowed].sort().join(", ")}`,
      };
    }
    changed[key] = value;
  }
  if (!any) return { ok: false, code: "empty_view", reason: "no view settings given" };
  return { ok: true, changed: changed as Partial<View> };
}

/** Read a view total: each key falls back to its default when missing or invalid. */
export function readViewTotal(value: unknown): View {
  const out: View = { ...DEFAULT_VIEW };
  if (!isRecord(value)) return out;
  for (const key of VIEW_KEYS) {
    const v = value[key];
    if (typeof v === "string" && (VIEW_VALUES[key] as readonly string[]).includes(v)) {
      (out as unknown as Record<string, string>)[key] = v;
    }
  }
  return out;
}
