/** `ControlError`: every error of the Control API, with a machine `code` and its exit from the one table in src/errors.ts. */
import { exitOf, PromptRunnerError, type SingleExitCode } from "../errors.ts";

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
    code: SingleExitCode,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, exitOf(code), opts);
  }
}
