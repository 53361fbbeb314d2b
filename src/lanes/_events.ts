/** Canonical events that every stream parser emits in the same shape (private to src/lanes/). */
import type { ProviderErrorInfo, ProviderEvent } from "../events/mod.ts";
import type { ParsedLine } from "./profile.ts";

/** The `error_occurred` + `run_failed` pair of a failure the provider reported in its stream. */
export function failureEvents(code: string, message: string, pe: ProviderErrorInfo): ProviderEvent[] {
  return [
    {
      type: "error_occurred",
      data: { error_code: code, error_message: message, severity: "error", provider_error: pe },
    },
    { type: "run_failed", data: { error_code: code, error_message: message, provider_error: pe } },
  ];
}

/** The hidden notice for a line whose type the parser does not know. */
export function unknownLine(message: string): ParsedLine {
  return {
    events: [{
      type: "notice",
      hidden: true,
      data: { level: "info", code: "unknown_line", message },
    }],
  };
}
