/**
 * Domain errors shared by every command, and the one exit-code table (docs/exit_codes.md): every machine code the CLI
 * reports is a {@link Code}, and {@link EXIT} names its exit. The top-level handler in main.ts prints the code and
 * exits with the error's exit.
 */

/** Exit codes (docs/exit_codes.md). */
export const Exit = {
  ok: 0,
  failed: 1,
  usage: 2,
  packet: 3,
  notFound: 4,
  lease: 5,
  interrupted: 130,
  killed: 137,
} as const;

/** An exit code of docs/exit_codes.md. */
export type ExitCode = (typeof Exit)[keyof typeof Exit];

/** Every machine error code; a code missing here fails `deno check` wherever it is thrown. */
export type Code =
  // exit 1: the command ran and failed
  | "amendments_store_invalid"
  | "control_dir_failed"
  | "detach_timeout"
  | "import_digest_mismatch"
  | "import_nothing_completed"
  | "import_progress_exists"
  | "import_source_invalid"
  | "internal_error"
  | "invalid_snapshot"
  | "listen_failed"
  | "rate_limited"
  | "not_built"
  | "preflight_failed"
  | "progress_store_invalid"
  | "state_store_invalid"
  | "stop_timeout"
  | "store_integrity"
  | "unit_stop_failed"
  | "workspace_artifact_build_failed"
  | "workspace_artifact_invalid"
  | "workspace_artifact_no_toolchain"
  | "workspace_clone_dirty"
  | "workspace_containment_unavailable"
  | "workspace_clone_failed"
  | "workspace_clone_invalid"
  | "workspace_diverged"
  | "workspace_packet_escapes"
  | "workspace_packet_missing"
  // exit 2: usage
  | "agent_control_unavailable"
  | "body_too_large"
  | "confirmation_required"
  | "conflicting_flags"
  | "empty_steer"
  | "empty_view"
  | "entry_already_required"
  | "entry_not_required"
  | "forbidden"
  | "idempotency_key_reused"
  | "insecure_listen"
  | "invalid_entry"
  | "invalid_json"
  | "invalid_value"
  | "invalid_view_value"
  | "missing_argument"
  | "no_entries"
  | "not_a_workspace"
  | "packet_outside_workspace"
  | "path_escapes_repo"
  | "reason_required"
  | "request_timeout"
  | "steer_too_long"
  | "tokens_file_invalid"
  | "unexpected_argument"
  | "unknown_clause"
  | "unknown_command"
  | "unknown_flag"
  | "unknown_repo"
  | "unknown_view_key"
  | "unsatisfiable_contract"
  | "unsupported_media_type"
  | "workspace_discovery_ambiguous"
  | "workspace_packet_binding_required"
  // exit 3: packet invalid (and every lint/load finding kind, see {@link findingCode})
  | "contract_edited_in_session"
  | "workspace_manifest_invalid"
  | "workspace_repo_unmapped"
  | "workspace_write_into_source"
  // exit 4: not found
  | "no_run"
  | "prompt_not_found"
  | "run_not_running"
  | "stale_run"
  | "target_not_found"
  | "unknown_prompt"
  | "unknown_workspace"
  | "workspace_not_prepared"
  // exit 5: lease held
  | "lease_held"
  | "lease_remote"
  // the exit of the detached runner (1–4)
  | "detached_run_failed";

/**
 * The exit of every {@link Code}. A list means the thrower picks one of its exits (`detached_run_failed` passes on
 * the exit of the runner that `start` spawned). docs/exit_codes.md lists this table; a test compares the two.
 */
export const EXIT = {
  amendments_store_invalid: Exit.failed,
  control_dir_failed: Exit.failed,
  detach_timeout: Exit.failed,
  import_digest_mismatch: Exit.failed,
  import_nothing_completed: Exit.failed,
  import_progress_exists: Exit.failed,
  import_source_invalid: Exit.failed,
  internal_error: Exit.failed,
  invalid_snapshot: Exit.failed,
  listen_failed: Exit.failed,
  rate_limited: Exit.failed,
  not_built: Exit.failed,
  preflight_failed: Exit.failed,
  progress_store_invalid: Exit.failed,
  state_store_invalid: Exit.failed,
  stop_timeout: Exit.failed,
  store_integrity: Exit.failed,
  unit_stop_failed: Exit.failed,
  workspace_artifact_build_failed: Exit.failed,
  workspace_artifact_invalid: Exit.failed,
  workspace_artifact_no_toolchain: Exit.failed,
  workspace_clone_dirty: Exit.failed,
  workspace_containment_unavailable: Exit.failed,
  workspace_clone_failed: Exit.failed,
  workspace_clone_invalid: Exit.failed,
  workspace_diverged: Exit.failed,
  workspace_packet_escapes: Exit.failed,
  workspace_packet_missing: Exit.failed,
  agent_control_unavailable: Exit.usage,
  body_too_large: Exit.usage,
  confirmation_required: Exit.usage,
  conflicting_flags: Exit.usage,
  empty_steer: Exit.usage,
  empty_view: Exit.usage,
  entry_already_required: Exit.usage,
  entry_not_required: Exit.usage,
  forbidden: Exit.usage,
  idempotency_key_reused: Exit.usage,
  insecure_listen: Exit.usage,
  invalid_entry: Exit.usage,
  invalid_json: Exit.usage,
  invalid_value: Exit.usage,
  invalid_view_value: Exit.usage,
  missing_argument: Exit.usage,
  no_entries: Exit.usage,
  not_a_workspace: Exit.usage,
  packet_outside_workspace: Exit.usage,
  path_escapes_repo: Exit.usage,
  reason_required: Exit.usage,
  request_timeout: Exit.usage,
  steer_too_long: Exit.usage,
  tokens_file_invalid: Exit.usage,
  unexpected_argument: Exit.usage,
  unknown_clause: Exit.usage,
  unknown_command: Exit.usage,
  unknown_flag: Exit.usage,
  unknown_repo: Exit.usage,
  unknown_view_key: Exit.usage,
  unsatisfiable_contract: Exit.usage,
  unsupported_media_type: Exit.usage,
  workspace_discovery_ambiguous: Exit.usage,
  workspace_packet_binding_required: Exit.usage,
  contract_edited_in_session: Exit.packet,
  workspace_manifest_invalid: Exit.packet,
  workspace_repo_unmapped: Exit.packet,
  workspace_write_into_source: Exit.packet,
  no_run: Exit.notFound,
  prompt_not_found: Exit.notFound,
  run_not_running: Exit.notFound,
  stale_run: Exit.notFound,
  target_not_found: Exit.notFound,
  unknown_prompt: Exit.notFound,
  unknown_workspace: Exit.notFound,
  workspace_not_prepared: Exit.notFound,
  lease_held: Exit.lease,
  lease_remote: Exit.lease,
  detached_run_failed: [Exit.failed, Exit.usage, Exit.packet, Exit.notFound],
} as const satisfies Record<Code, ExitCode | readonly ExitCode[]>;

type ExitsOf<C extends Code> = (typeof EXIT)[C] extends readonly (infer E)[] ? E : (typeof EXIT)[C];

/** The codes that may exit with `E`. */
export type CodeFor<E extends ExitCode> = { [C in Code]: E extends ExitsOf<C> ? C : never }[Code];

/** The codes with exactly one exit (what the Control API throws). */
export type SingleExitCode = { [C in Code]: (typeof EXIT)[C] extends number ? C : never }[Code];

/** The exit of a code with one exit. */
export function exitOf(code: SingleExitCode): ExitCode {
  return EXIT[code];
}

declare const FINDING: unique symbol;
/** The kind of a lint or load finding (docs/lint.md) used as the code of an exit-3 packet error. */
export type FindingCode = string & { readonly [FINDING]: true };

/** A finding's kind as the code of a {@link PacketError}: the one door for codes that are not in {@link EXIT}. */
export function findingCode(kind: string): FindingCode {
  return kind as FindingCode;
}

/** Base of every error the CLI reports with a machine code, a human message and optional hint lines. */
export class PromptRunnerError extends Error {
  /** Machine-readable code such as `no_run` or `invalid_prompt_id`. */
  readonly code: Code | FindingCode;
  /** Process exit code. */
  readonly exit: ExitCode;
  /** Indented hint lines printed under the error. */
  readonly hints: string[];
  /** Structured extra fields (e.g. `current` for `stale_run`). */
  readonly details: Record<string, unknown>;

  constructor(
    code: Code | FindingCode,
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
  constructor(
    code: CodeFor<typeof Exit.usage>,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, Exit.usage, opts);
  }
}

/**
 * A packet that cannot be loaded or is invalid (exit 3). Names the file and, where known, line and column. Its code
 * is a packet code of {@link EXIT} or the kind of the finding behind it ({@link findingCode}).
 */
export class PacketError extends PromptRunnerError {
  readonly file: string | null;
  readonly key: string | null;
  constructor(
    code: CodeFor<typeof Exit.packet> | FindingCode,
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
  constructor(
    code: CodeFor<typeof Exit.notFound>,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, Exit.notFound, opts);
  }
}

/** Another live runner holds the store root's lease (exit 5). */
export class LeaseHeldError extends PromptRunnerError {
  constructor(
    code: CodeFor<typeof Exit.lease>,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, Exit.lease, opts);
  }
}

/** The command ran and failed (exit 1): corrupt state files, preflight failures, failed runs. */
export class RunFailedError extends PromptRunnerError {
  constructor(
    code: CodeFor<typeof Exit.failed>,
    message: string,
    opts: { hints?: string[]; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, Exit.failed, opts);
  }
}
