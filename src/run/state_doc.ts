/**
 * The shape of `state.json` (docs/reference/runner.md §10.2): prompt and attempt statuses, the records of attempts,
 * results, commits and preserved work, and the whole document. The store that keeps it is state.ts.
 */
import type { HidingState, VerifyReport } from "../contract/mod.ts";
import type { AttemptMode, StreamKind } from "../events/mod.ts";
import { nowIso } from "../util/time.ts";
import type { FailureEnvelope } from "./classify.ts";

/** Schema tag of `state.json`. */
export const STATE_SCHEMA = "prompt_runner.state/v1";

/** Prompt statuses (docs/reference/runner.md §10.2). */
export type PromptStatus =
  | "running"
  | "retry_scheduled"
  | "repairing"
  | "completed"
  | "failed"
  | "verification_failed"
  | "verifier_fault"
  | "commit_failed"
  | "blocked_by_dependency"
  | "interrupted";

/** Attempt statuses (docs/reference/runner.md §10.2). */
export type AttemptStatus =
  | "running"
  | "completed"
  | "failed"
  | "verification_failed"
  | "verifier_fault"
  | "interrupted";

/** One stream of an attempt. */
export interface StreamRecord {
  kind: StreamKind;
  started_at: string;
  ended_at: string | null;
  result: "ok" | "error" | "cancelled" | null;
}

/** The recorded failure (the envelope without `raw` and `stderr_tail`). */
export type FailureRecord = Omit<FailureEnvelope, "raw" | "stderr_tail">;

/** One attempt record. */
export interface AttemptRecord {
  run_id: string;
  attempt: number;
  mode: AttemptMode;
  status: AttemptStatus;
  started_at: string;
  completed_at?: string;
  provider: string;
  model: string | null;
  session_id: string | null;
  streams: StreamRecord[];
  log_file: string | null;
  events_file: string | null;
  failure?: FailureRecord | null;
  verification?: VerifyReport | null;
  decision?: string;
  retry_delay_ms?: number;
  stage?: "preflight" | "post_session";
  /** Agent control: the prompt iteration this attempt belongs to (docs/agent-control.md §3). */
  iteration?: number;
  /** Agent control: the directive applied after this attempt, with its reason. */
  directive?: { action: string; reason: string | null; default?: boolean };
}

/** Per-repo commit results. */
export interface CommitRecord {
  status: "ok" | "skip" | "failed" | "no_commit" | "noop";
  reason?: string;
  repos?: { repo: string; status: "ok" | "skip" | "failed"; sha?: string; error?: string }[];
}

/** The final result of a prompt in a run; replaced, never merged. */
export interface PromptResult {
  status: PromptStatus;
  run_id: string;
  finished_at: string;
  source: "session" | "preflight_verify";
  session_ran: boolean;
  attempts: number;
  commit: CommitRecord | null;
  failure_class: string | null;
  reason: string | null;
  last_verifier: VerifyReport | null;
  steered: boolean;
  steer_count?: number;
  /** Delivered steers by how they reached the agent (`{in_turn: 1}`, docs/reference/control-plane.md §8.2). */
  steer_deliveries?: Record<string, number>;
  interventions_file?: string;
  amended: boolean;
  amendments?: unknown[];
  amendments_file?: string;
  blocked_by?: string[];
  stage?: "preflight" | "post_session";
  /** The contract already passed before the prompt's first session ran (docs/lint.md); absent otherwise. */
  vacuous?: boolean;
  /** The work of an earlier run whose commit failed, claimed (verified again) and committed by this result. */
  claimed?: CommitClaim;
}

/** One prompt's entry. */
export interface PromptState {
  status: PromptStatus;
  updated_at: string;
  attempts: AttemptRecord[];
  result?: PromptResult;
  retry_delay_ms?: number;
  blocked_by?: string[];
  /** Agent control: the prompt's current iteration in run `run_id` and the iterations verified so far. */
  agent_control?: { run_id: string; iteration: number; verified: number };
  /** Uncommitted paths per repo when the prompt started in run `run_id` (the user's; docs/keep_going.md). */
  preexisting?: { run_id: string; repos: Record<string, string[]> };
  /**
   * What `git status` hid in each repo its git clauses judge, when the prompt started in run `run_id`, by canonical root
   * (docs/reference/contract.md §5.1). A prompt that resumes after an interrupt compares with this, not with the state
   * its interrupted session left.
   */
  hiding_baseline?: { run_id: string; roots: Record<string, HidingState> };
  /**
   * The prompt failed in run `run_id` having changed what `git status` hides in these repos (by canonical root), and
   * the change was left in place (docs/reference/contract.md §5.1, "Left by a failed prompt"): `before` is the repo's
   * state at that prompt's start, which every later prompt's baseline of the repo takes until the change is undone.
   */
  hiding_left?: Record<string, { run_id: string; at: string; before: HidingState }>;
  /**
   * The `verify:` the run `run_id` loaded when it started the prompt's attempt (docs/amendments.md, "Edited during its
   * session"): a later run that continues the interrupted prompt compares the file's `verify:` with it.
   */
  loaded_contract?: { run_id: string; verify_digest: string; verify: Record<string, unknown[]> };
  /** The failed work of the prompt's latest failure, kept under `ref` until a later run restores it. */
  preserved?: { ref: string; run_id: string; prompt_id: string; at: string; repos: PreservedRepoRecord[] };
  /** The preserved work a run applied again before the prompt's first attempt. */
  restored?: { ref: string; run_id: string; at: string; repos: PreservedRepoRecord[] };
  /**
   * A `commit_failed` prompt's verified, uncommitted work (docs/crash_recovery.md, "A commit that failed"): its
   * paths are this prompt's, claimed and committed by its next run.
   */
  commit_pending?: CommitPending;
  /**
   * A prompt interrupted while its runner was alive (Ctrl-C, `stop`): its uncommitted paths then, per repo name, with
   * their digests (src/run/interrupted_work.ts). Its next run claims these as its leftovers; other dirt is not its.
   * Removed when the prompt's next attempt starts or a later result replaces `interrupted`.
   */
  interrupted_work?: { run_id: string; at: string; repos: Record<string, Record<string, string>> };
}

/** The work a prompt verified but could not commit: per repo name, each path with its content digest then. */
export interface CommitPending {
  run_id: string;
  at: string;
  /** Repo name → repo-relative path → digest (`sha256:…`, `link:<target>`, `absent`, `other`). */
  repos: Record<string, Record<string, string>>;
  /** The run that verified the work again and was committing it (a crash then leaves a commit to adopt). */
  claimed_by?: string;
}

/** The pending commit of a prompt entry: only while the prompt's latest result is `commit_failed`. */
export function pendingOf(entry: PromptState | undefined): CommitPending | null {
  return entry?.status === "commit_failed" && entry.commit_pending ? entry.commit_pending : null;
}

/** What a prompt's run claimed of its earlier run's failed commit (recorded on the result that committed it). */
export interface CommitClaim {
  /** The run whose commit failed. */
  run_id: string;
  /** Repo name → the claimed paths still uncommitted. */
  repos: Record<string, string[]>;
  /** Claimed paths whose content changed since that verification (`repo:path`). */
  changed: string[];
}

/** One repo's share of preserved work: the preserved commit and the paths the failed prompt changed. */
export interface PreservedRepoRecord {
  repo: string;
  sha: string;
  paths: string[];
}

/** The whole document. */
export interface StateDoc {
  schema: typeof STATE_SCHEMA;
  updated_at: string;
  last_run_id: string | null;
  prompts: Record<string, PromptState>;
}

/** An empty state document. */
export function emptyState(): StateDoc {
  return { schema: STATE_SCHEMA, updated_at: nowIso(), last_run_id: null, prompts: {} };
}
