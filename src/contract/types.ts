/** Contract, verifier report and amendment types (docs/reference/contract.md, docs/reference/control-plane.md §5.4 and §9). */
import type { GitCache } from "./git.ts";
import type { HidingState } from "./hiding.ts";

/** The twelve clauses in evaluation order (docs/reference/contract.md §1). */
export const CLAUSES = [
  "files_exist",
  "files_absent",
  "contains",
  "matches",
  "doc",
  "yaml",
  "json",
  "glob",
  "source_absent",
  "commands",
  "changed_paths_only",
  "repos_clean",
] as const;

/** A clause name. */
export type Clause = (typeof CLAUSES)[number];

/** A contract: clause → list of entries. */
export type Contract = Record<string, unknown[]>;

/** Item status. */
export type ItemStatus = "pass" | "fail" | "fault";

/** One report item (docs/reference/contract.md §7). Extra clause-specific fields are allowed. */
export interface ReportItem {
  id: string;
  clause: Clause;
  kind: string;
  repo: string | null;
  path?: string;
  resolved_path?: string;
  command?: string;
  cwd?: string;
  status: ItemStatus;
  pass: boolean;
  fault: null | "verifier_fault" | "verifier_timeout";
  details: string;
  [extra: string]: unknown;
}

/** Where a verification came from. */
export type VerifySource = "attempt" | "preflight" | "manual";

/** The verifier report (docs/reference/contract.md §7). */
export interface VerifyReport {
  schema: "prompt_runner.verify_report/v1";
  prompt_id: string;
  run_id: string | null;
  source: VerifySource;
  attempt: number | null;
  verified_at: string;
  status: ItemStatus;
  pass: boolean;
  counts: { items: number; passed: number; failed: number; faulted: number };
  items: ReportItem[];
  failures: string[];
  faults: string[];
  amendments: AmendmentRecord[];
  contract_digest: string;
}

/** Amendment timing class (docs/reference/control-plane.md §9.3). */
export type TimingClass = "pre_verify" | "post_failure" | "post_success";

/** One line of `amendments/<prompt>.jsonl` (docs/reference/control-plane.md §5.4). */
export interface AmendmentRecord {
  id: string;
  at: string;
  prompt: string;
  author: string;
  reason: string;
  phase: TimingClass;
  direction: "add" | "relax";
  clause: string;
  operation: "add" | "drop" | "replace" | "remove";
  entries: unknown[];
  run_id: string | null;
  persisted: boolean;
  prompt_file: string;
  /** Persisted records: digest of the prompt's `verify:` map before and after the write-back (docs/amendments.md). */
  verify_digest_before?: string;
  verify_digest_after?: string;
  /** Persisted records: the packet fingerprint before and after the write-back, so the same run still resumes. */
  packet_fingerprint_before?: string;
  packet_fingerprint_after?: string;
}

/** Everything the verifier needs to resolve paths and run commands for one prompt. */
export interface VerifyContext {
  promptId: string;
  runId: string | null;
  packetDir: string;
  /** Canonical store root (its paths are excluded from changed_paths_only). */
  storeRoot: string;
  /** Repo index: name → canonical root; includes `packet` → packet dir. */
  repos: Record<string, string>;
  /** Default scope: the prompt's cwd. */
  defaultScope: string;
  source: VerifySource;
  attempt: number | null;
  /** Extra environment for commands (runner env is inherited). */
  env?: Record<string, string>;
  /**
   * Paths already uncommitted when the prompt started (`run --allow-dirty`), by canonical repo root: the user's,
   * left out of `changed_paths_only` and `repos_clean` (and so of every repair prompt).
   */
  preexisting?: Record<string, string[]>;
  /**
   * The git state that decides what `git status` shows, by canonical repo root, as the prompt's baseline recorded it
   * (src/contract/hiding.ts): `changed_paths_only` and `repos_clean` fail on a repo whose state changed since. Absent
   * (`verify`, or a repo the prompt's start did not judge) → not compared.
   */
  hiding?: Record<string, HidingState>;
  /**
   * A run's verification, whose prompt took its hiding baselines at its start: a repo a git clause judges without one
   * (brought under the clause by an amendment made during the prompt, or unreadable by git then) is said to be not
   * compared (`hiding_compared: false`) instead of passing silently. Absent (`verify`) → nothing is said.
   */
  hidingBaselined?: boolean;
  /**
   * Optional memo of read-only git queries shared across several verifications that run back to back with nothing
   * changing the work trees in between (`prompt_runner verify`). Command items clear it. Absent → one per call.
   */
  gitCache?: GitCache;
  /**
   * Aborted when the run is interrupted: a running command's group gets SIGTERM (SIGKILL after the grace) and later
   * commands are not started; each such item is a fault, never a verdict on the work.
   */
  signal?: AbortSignal;
}
