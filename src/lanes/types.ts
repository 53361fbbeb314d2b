/** The lane contract: how the runner starts, follows, interrupts and resumes a provider session (docs/reference/providers.md §1). */
import type { ProviderErrorInfo, ProviderEvent, StreamKind } from "../events/mod.ts";
import type { ProcessIdentity } from "../util/mod.ts";

/** `permission_mode` values (docs/reference/packet.md §9); each lane maps them onto its own CLI flags. */
export type PermissionMode = "default" | "auto" | "bypass" | "plan";

/**
 * The effective options a session reads (docs/reference/packet.md §9): the lane's share of a prompt's `ExecutionOptions`, which
 * src/packet/types.ts extends with what only the runner reads (view, budgets, limits).
 */
export interface SessionOptions {
  /** The lane's name ({@link LaneProfile.name}). */
  provider: string;
  model: string;
  reasoning_effort: string | null;
  permission_mode: PermissionMode | null;
  allowed_tools: string[] | null;
  /** Per-session bound in ms, clamped to 7 days (docs/reference/packet.md §10). */
  timeout_ms: number;
  system_prompt: string | null;
  append_system_prompt: string | null;
  max_turns: number | null;
  /** Provider option bags by key (`sdk_opts`, `adapter_opts`, `claude_opts`, …), merged across layers. */
  provider_opts: Record<string, Record<string, unknown>>;
}

/**
 * Static facts of a lane, declared by the lane itself. Everything a packet knows about lanes — the accepted
 * `provider:` names and aliases, the option bags, the provider a model name implies — is read from these profiles
 * through src/lanes/mod.ts, so adding a lane touches src/lanes/ only.
 */
export interface LaneProfile {
  /** The name packets use (`provider: claude`), lowercase; unique among lanes. */
  name: string;
  /** Other accepted spellings of `provider:` (lowercase; `claude_agent_sdk`), each unique among lanes. */
  aliases: readonly string[];
  /**
   * The packet option bags this lane reads (`claude_opts`), first the one holding `cli_path`; a bag key is a
   * manifest and prompt option and belongs to one lane.
   */
  optionKeys: readonly string[];
  /**
   * Keys of this lane's option bags whose relative paths resolve against the packet directory when the packet
   * loads (`codex_thread_opts.additional_directories`).
   */
  packetRelativePaths?: Readonly<Record<string, readonly string[]>>;
  /**
   * Model names that imply this lane when a packet sets a model but no provider (docs/reference/packet.md §3), case-insensitive;
   * lanes are tried in the order of src/lanes/mod.ts.
   */
  modelPatterns: readonly RegExp[];
  /** The lane a model matching no lane's patterns implies (exactly one lane sets it). */
  defaultForModels?: boolean;
  /** Binary name; overridable by `<lane>_opts.cli_path` or `PROMPT_RUNNER_<LANE>_CLI`. */
  executable: string | null;
  /** Environment variable naming the executable path. */
  executableEnv: string | null;
  /**
   * The transports this lane can run a session over, the default first (docs/lanes.md). Which one a
   * prompt uses is the lane's {@link Lane.transportFor}; what a steer can do follows from its
   * {@link TRANSPORT_CAPABILITIES}, never from the lane's name.
   */
  transports: readonly LaneTransport[];
  /** npm package or install hint for preflight messages. */
  installHint: string;
}

/**
 * How a session talks to its CLI (docs/lanes.md): `exec` — one process per turn, stdin closed at start (a
 * steer interrupts it and resumes the session in a new process); `stream_json` — claude's stream-json input with stdin
 * kept open; `app_server` — codex's JSON-RPC `app-server` over stdio.
 */
export type LaneTransport = "exec" | "stream_json" | "app_server";

/** What a transport allows a steer to do. Pure data: the runner's delivery choice reads only this. */
export interface TransportCapabilities {
  readonly name: LaneTransport;
  /** A live session takes input after it started: the default steer is delivered in-turn ({@link LaneSession.sendInTurn}). */
  readonly acceptsInputAfterStart: boolean;
  /**
   * The turn can be stopped while the process (and the session) stays alive: `--interrupt` steers use
   * {@link LaneSession.interruptInProcess}; otherwise they interrupt the process and resume the session.
   */
  readonly interruptsInProcess: boolean;
}

/** The facts of every transport. */
export const TRANSPORT_CAPABILITIES: Readonly<Record<LaneTransport, TransportCapabilities>> = {
  exec: { name: "exec", acceptsInputAfterStart: false, interruptsInProcess: false },
  stream_json: { name: "stream_json", acceptsInputAfterStart: true, interruptsInProcess: true },
  app_server: { name: "app_server", acceptsInputAfterStart: true, interruptsInProcess: true },
};

/** Every transport name, in the order of {@link TRANSPORT_CAPABILITIES}. */
export const LANE_TRANSPORTS: readonly LaneTransport[] = ["exec", "stream_json", "app_server"];

/** Whether a profile's lane can take input after start on some transport (catalog listings). */
export function acceptsInputAfterStart(profile: Pick<LaneProfile, "transports">): boolean {
  return profile.transports.some((t) => TRANSPORT_CAPABILITIES[t].acceptsInputAfterStart);
}

/**
 * The CLI acknowledged input written into a live session (claude's replayed user message, the app-server's
 * `turn/steer` response). `at` is when the acknowledgement was read.
 */
export interface InputAck {
  readonly at: string;
}

/**
 * Input could not be delivered into the live session (the turn or the process ended first, the CLI refused it). The
 * steer is not lost: the runner delivers it by interrupting and resuming as on the `exec` transport.
 */
export class InputRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputRefused";
  }
}

/** Which scripted step the simulated lane plays (ignored by real lanes). */
export type SimulatedStep = "attempt" | "resume" | "steer";

/** Everything needed to start one stream. */
export interface SessionSpec {
  runId: string;
  promptId: string;
  attempt: number;
  streamKind: StreamKind;
  /** Exact text sent to the agent. */
  prompt: string;
  /** Working directory (the same for every stream of an attempt). */
  cwd: string;
  options: SessionOptions;
  /** Continue this provider session instead of starting fresh. */
  resumeSessionId: string | null;
  /** Other target repos (codex `--add-dir`). */
  extraDirs: string[];
  /** Repo index name → root (simulated writes with `repo:`). */
  repos: Record<string, string>;
  /** Variables added to the provider environment (PROMPT_RUNNER_* and adapter_opts.env). */
  env: Record<string, string>;
  /** The prompt's raw `simulate:` script (simulated lane only). */
  simulate: Record<string, unknown> | null;
  simulatedStep: SimulatedStep;
  /**
   * Crash-safe script cursor of the simulated lane (docs/crash_recovery.md): where this session records the writes
   * it applied, and the cursor of an interrupted attempt whose script it continues (crash recovery only).
   */
  simulatedCursor?: SimulatedCursor | null;
}

/** Where the simulated lane records applied writes, and which interrupted attempt's script it continues. */
export interface SimulatedCursor {
  path: string;
  /**
   * The cursor of the attempt this one continues after a crash; `origins`, nearest first, are the cursors of the
   * attempts that one continued in turn, read when it died before writing its own.
   */
  continueFrom: { path: string; attempt: number; origins?: { path: string; attempt: number }[] } | null;
  /** The previous attempt's cursor: this attempt plays the script entry after the one that attempt played. */
  previous: string | null;
  /**
   * The store root the cursor lives under: its directory is created from there one level at a time, never through a
   * link (src/util/safe_fs.ts), when the cursor is first written. Unset: created as a plain directory (tests).
   */
  storeRoot?: string;
}

/** How a stream ended; available once iteration has finished. */
export type StreamEnd =
  | { kind: "ok" }
  | {
    kind: "error";
    /** Canonical error code (`transport_exit`, `http_429`, a simulated kind…). */
    code: string;
    message: string;
    providerError: ProviderErrorInfo;
    /** Failure class from the lane's structured hints (docs/reference/runner.md §5 step 3), when it knows one. */
    hintClass: string | null;
    /** Explicit recovery map (simulated `error.recovery`, docs/reference/runner.md §5 step 2). */
    recovery: Record<string, unknown> | null;
    exitCode: number | null;
    stderrTail: string;
    /** The resume target did not exist (→ restart_with_steer). */
    sessionNotFound: boolean;
  }
  | { kind: "cancelled"; reason: "interrupted_for_steer" | "operator_stop"; interrupted: boolean };

/** Identity of a live process (defined with the process-tree helpers in util/). */
export type { ProcessIdentity };

/** A live stream. Iterate {@link events} to the end, then read {@link end}. */
export interface LaneSession {
  /** Canonical events, ending with exactly one terminal event (run_completed, run_failed or run_cancelled). */
  events: AsyncIterable<ProviderEvent>;
  /** Provider session id once known. */
  readonly sessionId: string | null;
  /** Whether an interrupt is safe now (readiness rule, docs/reference/control-plane.md §8.5). */
  isReady(): boolean;
  /** Resolves when ready, or when the stream ends first (then `isReady()` stays false). */
  whenReady(): Promise<void>;
  /**
   * Interrupt the turn (SIGINT → SIGTERM after graceMs → SIGKILL, then descendants). The event stream then ends
   * with `run_cancelled {reason}`. Resolves when the process is gone.
   */
  interrupt(reason: "interrupted_for_steer" | "operator_stop", graceMs: number): Promise<void>;
  /** Kill the process group immediately (second signal). */
  kill(): void;
  /** Result; valid after `events` is exhausted. */
  end(): StreamEnd;
  /** The provider process, or null for in-process lanes. */
  readonly process: ProcessIdentity | null;
  /** The transport this session runs over; the runner reads its facts to choose how a steer is delivered. */
  readonly transport: TransportCapabilities;
  /**
   * Write `text` into the running session as a user message (present when `transport.acceptsInputAfterStart`). A
   * running tool is not cancelled: the model sees the text at its next request (or, when the turn already ended, in
   * a turn of its own before the stream ends). Resolves on the CLI's acknowledgement; rejects with
   * {@link InputRefused} when the text did not reach the CLI. The stream stays open until every acknowledged input
   * has been answered.
   */
  sendInTurn?(text: string): Promise<InputAck>;
  /**
   * Stop the running turn inside the process — its tool calls stopped and no process of them left — and continue
   * the same session with `text` as the next user message (present when `transport.interruptsInProcess`). Resolves
   * on the acknowledgement of `text`; rejects with {@link InputRefused} as {@link sendInTurn} does. The event stream
   * does not end for this turn's end.
   */
  interruptInProcess?(text: string): Promise<InputAck>;
}

/** Result of `probe` (preflight). */
export interface ProbeResult {
  name: string;
  executable: string | null;
  path: string | null;
  version: string | null;
  available: boolean;
  error: string | null;
}

/** Thrown by `Lane.start` when the executable cannot be launched (class `launch_failed`). */
export class LaunchError extends Error {
  constructor(message: string, readonly hint: string | null = null) {
    super(message);
    this.name = "LaunchError";
  }
}

/** A provider integration. */
export interface Lane {
  profile: LaneProfile;
  /**
   * The transport a prompt's session runs over (one of `profile.transports`): the lane's option (`claude_opts.transport`,
   * `codex_opts.app_server`, the simulated script's `transport:`), else the profile's default.
   */
  transportFor(options: SessionOptions, simulate?: Record<string, unknown> | null): LaneTransport;
  start(spec: SessionSpec): LaneSession;
  probe(options: SessionOptions): Promise<ProbeResult>;
  /** What a session spawns (for `--allow-run`); absent for in-process lanes, which spawn nothing. */
  executables?(options: SessionOptions): LaneExecutables;
}

/** The executables a lane's session spawns, each exactly as it is spawned. */
export interface LaneExecutables {
  /** The provider CLI: `<lane>_opts.cli_path`, `PROMPT_RUNNER_<LANE>_CLI` or the bare binary name. */
  executable: string;
  /** Executables the shared process driver spawns by itself (`/proc` readers, the signal sender). */
  helpers: readonly string[];
}
