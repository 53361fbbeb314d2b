/** `ControlError`: every error of the Control API, with a machine `code` and the docs/reference/cli.md §4 exit code. */
import { Exit, type ExitCode, PromptRunnerError } from "../errors.ts";

/** Codes that are the caller's mistake (exit 2). */
const USAGE_CODES = new Set([
  "unknown_view_key",
  "invalid_view_value",
  "empty_view",
  "empty_steer",
  "steer_too_long",
  "reason_required",
  "confirmation_required",
  "unknown_clause",
  "no_entries",
  "invalid_entry",
  "unknown_repo",
  "path_escapes_repo",
  "entry_already_required",
  "unsatisfiable_contract",
  "workspace_packet_binding_required",
]);

/** Codes for something addressed that does not exist (exit 4). */
const NOT_FOUND_CODES = new Set(["no_run", "stale_run", "run_not_running", "prompt_not_found", "target_not_found"]);

/** The exit code of a Control API error code. */
export function exitForCode(code: string): ExitCode {
  if (USAGE_CODES.has(code)) return Exit.usage;
  if (NOT_FOUND_CODES.has(code)) return Exit.notFound;
  return Exit.failed;
}

/**
 * An error of the Control API (docs/reference/control-plane.md §12). `code` names it (`no_run`, `stale_run`, `empty_steer`, …);
 * `details` carries structured fields such as `current` for `stale_run` or `index` for `invalid_entry`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ControlError } from "./errors.ts";
 * const e = new ControlError("no_run", "no run has started in this store root");
 * assert.ok(e.code === "no_run" && e.exit === 4);
 * ```
 */
export class ControlError extends PromptRunnerError {
  constructor(
    code: string,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, exitForCode(code), opts);
  }
}
