/**
 * The run-summary document (docs/run-summary.md): what a finished (or stopped) run did, prompt by prompt and attempt by
 * attempt — the last line of `run --json`, the table at the end of a human `run`, and `status --summary`. Types only;
 * the builder is src/run/summary.ts (from state.json and the run record), the table src/render/summary_table.ts.
 */
import type { CheckNote } from "./check_lines.ts";

/** Schema tag of the document; a new tag only for a change that breaks a reader. */
export const RUN_SUMMARY_SCHEMA = "prompt_runner.run_summary/1";

/** One attempt of a prompt in the run. */
export interface SummaryAttempt {
  /** The attempt number (1-based, per prompt). */
  attempt: number;
  /** `run`, `retry` or `repair`. */
  mode: string;
  /** The attempt's status (`completed`, `failed`, `verification_failed`, `verifier_fault`, `interrupted`, `running`). */
  status: string;
  /** What the runner decided after it (`complete`, `retry`, `repair`, `fail_provider`, …), null while running. */
  decision: string | null;
  started_at: string;
  completed_at: string | null;
  /** Wall time of the attempt (session and verification), null while it runs. */
  duration_ms: number | null;
  /** Provider streams of the attempt (a resume or a steer adds one). */
  streams: number;
  /** The provider failure's class and message, null when the provider did not fail. */
  failure_class: string | null;
  failure_message: string | null;
  /** The attempt's verification: status and counts, null when none ran. */
  verification: { status: string; items: number; passed: number; failed: number; faulted: number } | null;
  /** The checks of that verification that did not pass, named. */
  checks: CheckNote[];
  /** The delay before the retry that followed, when one did. */
  retry_delay_ms: number | null;
}

/** A commit made for a prompt in one repo. */
export interface SummaryCommit {
  repo: string;
  sha: string;
  /** The first 8 characters of the sha. */
  short: string;
}

/** One selected prompt of the run. */
export interface SummaryPrompt {
  id: string;
  name: string;
  /**
   * The prompt's final status in this run: `completed`, `failed`, `verification_failed`, `verifier_fault`,
   * `commit_failed`, `blocked_by_dependency`, `interrupted`; `not_run` when the run ended before it started; while it
   * runs, its live status (`running`, `retry_scheduled`, `repairing`).
   */
  status: string;
  /** Attempts run (0 for a prompt completed by pre-flight verification, blocked or not run). */
  attempts: number;
  /** Every attempt, in order. */
  history: SummaryAttempt[];
  /** The attempt modes joined: `run → retry → repair`; `preflight` when verification completed it without a session. */
  path: string;
  /** Verification completed the prompt before any session (verify-first). */
  preflight: boolean;
  reason: string | null;
  failure_class: string | null;
  /** The commit record as state.json keeps it (per-repo status, sha), null when nothing was committed. */
  commit: unknown;
  /** The commits made, one per repo. */
  commits: SummaryCommit[];
  started_at: string | null;
  finished_at: string | null;
  /** From the first attempt's start to the prompt's end (retry delays included); null when unknown. */
  duration_ms: number | null;
  steered: boolean;
  steer_count: number;
  amended: boolean;
  amendment_count: number;
  /** The contract passed before any session ran (docs/lint.md); present only then. */
  vacuous?: true;
  /** The prompts this one waited for, when it was blocked. */
  blocked_by?: string[];
  /** Where the failed prompt's work was preserved (docs/keep_going.md). */
  preserved?: unknown;
  /** Its commit failed and its verified work is kept for its next run to commit (docs/crash_recovery.md). */
  needs_commit?: true;
}

/** Counts over the prompts and attempts of the run. */
export interface SummaryCounts {
  prompts: number;
  completed: number;
  failed: number;
  blocked: number;
  interrupted: number;
  not_run: number;
  running: number;
  attempts: number;
  run: number;
  retry: number;
  repair: number;
  steered: number;
  amended: number;
  vacuous: number;
}

/** The document. */
export interface RunSummary {
  /** Kept for readers of the `run --json` stream, which tell its lines apart by `type`. */
  type: "run_summary";
  schema: typeof RUN_SUMMARY_SCHEMA;
  /** Null only when nothing was left to run (`--remaining` with every prompt completed). */
  run_id: string | null;
  packet: string;
  /** `completed`, `failed`, or (read while it runs or after a crash) the run record's state. */
  status: string;
  reason: string | null;
  /** The exit code of `run` (docs/exit_codes.md), null while the run is not closed. */
  exit_code: number | null;
  store_root: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  counts: SummaryCounts;
  /** Prompts whose verdict was vacuous. */
  vacuous: string[];
  prompts: SummaryPrompt[];
}

/**
 * The document read entry by entry (a 10,000-prompt run's summary is never held whole): its head — every field but
 * `prompts`, in the document's key order, counts and vacuous ids already taken over every prompt — and its prompts,
 * built afresh one at a time on each call of `prompts()` (packet order). Writers of the human table, the `--json`
 * document and report formats read it in as many passes as they need.
 */
export interface RunSummaryStream {
  head: Omit<RunSummary, "prompts">;
  prompts(): Iterable<SummaryPrompt>;
}
