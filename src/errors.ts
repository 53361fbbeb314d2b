/** Domain errors shared by every command; the top-level handler in main.ts maps them to exit codes (docs/reference/cli.md §4). */

/** Exit codes of docs/reference/cli.md §4. */
export const Exit = {
  ok: 0,
  failed: 1,
  usage: 2,
  packet: 3,
  notFound: 4,
  lease: 5,
} as const;

/** An exit code from docs/reference/cli.md §4. */
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** Base of every error the CLI reports with a machine code, a human message and optional hint lines. */
export class PromptRunnerError extends Error {
  /** Machine-readable code such as `no_run` or `invalid_prompt_id`. */
  readonly code: string;
  /** Process exit code. */
  readonly exit: ExitCode;
  /** Indented hint lines printed under the error. */
  readonly hints: string[];
  /** Structured extra fields (e.g. `current` for `stale_run`). */
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    exit: ExitCode,
    opts: { hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.exit = exit;
    this.hints = opts.hints ?? [];
    this.details = opts.details ?? {};
  }
}

/** Bad command line (exit 2); the CLI prints the subcommand's help after it. */
export class UsageError extends PromptRunnerError {
  constructor(code: string, message: string, opts: { hints?: string[]; details?: Record<string, unknown> } = {}) {
    super(code, message, Exit.usage, opts);
  }
}

/** A packet that cannot be loaded or is invalid (exit 3). Names the file and, where known, line and column. */
export class PacketError extends PromptRunnerError {
  readonly file: string | null;
  readonly key: string | null;
  constructor(
    code: string,
    message: string,
    opts: { file?: string; key?: string; hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, Exit.packet, opts);
    this.file = opts.file ?? null;
    this.key = opts.key ?? null;
  }
}

/** Something addressed does not exist: run, prompt, target, workspace (exit 4). */
export class NotFoundError extends PromptRunnerError {
  constructor(code: string, message: string, opts: { hints?: string[]; details?: Record<string, unknown> } = {}) {
    super(code, message, Exit.notFound, opts);
  }
}

/** Another live runner holds the store root's lease (exit 5). */
export class LeaseHeldError extends PromptRunnerError {
  constructor(code: string, message: string, opts: { hints?: string[]; details?: Record<string, unknown> } = {}) {
    super(code, message, Exit.lease, opts);
  }
}

/** The command ran and failed (exit 1): corrupt state files, preflight failures, failed runs. */
export class RunFailedError extends PromptRunnerError {
  constructor(
    code: string,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, Exit.failed, opts);
  }
}
