/**
 * `state.json` (docs/reference/runner.md §10.2): per-prompt attempts and results. Every change is a read-modify-write of the whole
 * document, written atomically. An unreadable or invalid file refuses the run (`state_store_invalid`, exit 1).
 */
import type { VerifyReport } from "../contract/mod.ts";
import type { AttemptMode, StreamKind } from "../events/mod.ts";
import { RunFailedError } from "../errors.ts";
import { storePaths } from "../store/paths.ts";
import { atomicWriteStoreJson, readStoreTextOrNull } from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";
import type { FailureEnvelope } from "./classify.ts";

/** Schema tag of `state.json`. */
const STATE_SCHEMA = "prompt_runner.state/v1";

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
  interventions_file?: string;
  amended: boolean;
  amendments?: unknown[];
  amendments_file?: string;
  blocked_by?: string[];
  stage?: "preflight" | "post_session";
  /** The contract already passed before the prompt's first session ran (docs/lint.md); absent otherwise. */
  vacuous?: boolean;
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
  /** The failed work of the prompt's latest failure, kept under `ref` until a later run restores it. */
  preserved?: { ref: string; run_id: string; prompt_id: string; at: string; repos: PreservedRepoRecord[] };
  /** The preserved work a run applied again before the prompt's first attempt. */
  restored?: { ref: string; run_id: string; at: string; repos: PreservedRepoRecord[] };
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

function invalid(path: string, what: string, cause?: unknown): RunFailedError {
  return new RunFailedError("state_store_invalid", `${path} is not a valid state file: ${what}`, {
    hints: [`move it aside (mv ${path} ${path}.bad) and run again`],
    ...(cause === undefined ? {} : { cause }),
  });
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Validate a decoded document; throws `state_store_invalid` naming the field. */
function validateState(value: unknown, path: string): StateDoc {
  if (!isObj(value)) throw invalid(path, "expected a JSON object");
  if (value.schema !== undefined && value.schema !== STATE_SCHEMA) {
    throw invalid(path, `field "schema" is ${JSON.stringify(value.schema)}; expected "${STATE_SCHEMA}"`);
  }
  const prompts = value.prompts ?? {};
  if (!isObj(prompts)) throw invalid(path, `field "prompts" must be an object`);
  for (const [id, entry] of Object.entries(prompts)) {
    if (!isObj(entry)) throw invalid(path, `field "prompts.${id}" must be an object`);
    if (entry.attempts !== undefined && !Array.isArray(entry.attempts)) {
      throw invalid(path, `field "prompts.${id}.attempts" must be a list`);
    }
    if (entry.attempts === undefined) entry.attempts = [];
    if (typeof entry.status !== "string") entry.status = "failed";
  }
  return {
    ...(value as Record<string, unknown>),
    schema: STATE_SCHEMA,
    updated_at: typeof value.updated_at === "string" ? value.updated_at : nowIso(),
    last_run_id: typeof value.last_run_id === "string" ? value.last_run_id : null,
    prompts: prompts as Record<string, PromptState>,
  };
}

/** Read `state.json`; missing → empty; unreadable or invalid → `state_store_invalid`. */
export async function readState(storeRoot: string): Promise<StateDoc> {
  const path = storePaths(storeRoot).state;
  let text: string | null;
  try {
    text = await readStoreTextOrNull(path);
  } catch (e) {
    throw invalid(path, e instanceof Error ? e.message : String(e), e);
  }
  if (text === null) return emptyState();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw invalid(path, `invalid JSON (${e instanceof Error ? e.message : String(e)})`, e);
  }
  return validateState(value, path);
}

/**
 * The runner's handle on `state.json`. Each {@link StateStore.update} re-reads the file, applies the change and
 * writes the whole document atomically; writes are serialised so concurrent updates never lose each other.
 */
export class StateStore {
  #chain: Promise<unknown> = Promise.resolve();
  readonly #memory: boolean;
  private constructor(readonly storeRoot: string, private doc: StateDoc, memory = false) {
    this.#memory = memory;
  }

  /** Open (and validate) the store's state file. */
  static async open(storeRoot: string): Promise<StateStore> {
    return new StateStore(storeRoot, await readState(storeRoot));
  }

  /**
   * A state store kept in memory only (`--runtime-store memory|noop`, docs/reference/runner.md §1): starts empty and never
   * touches a file, so attempt numbering and budgets still work within the run.
   */
  static memory(): StateStore {
    return new StateStore("", emptyState(), true);
  }

  /** Whether this store writes `state.json` (false for {@link StateStore.memory}). */
  get persistent(): boolean {
    return !this.#memory;
  }

  /** The latest document as last written or read. */
  get current(): StateDoc {
    return this.doc;
  }

  /** The attempts of one prompt (all runs). */
  attempts(promptId: string): AttemptRecord[] {
    return this.doc.prompts[promptId]?.attempts ?? [];
  }

  /** Read-modify-write of the whole document. */
  update(fn: (doc: StateDoc) => void): Promise<void> {
    const next = this.#chain.then(async () => {
      if (this.#memory) {
        const doc = structuredClone(this.doc);
        fn(doc);
        doc.updated_at = nowIso();
        this.doc = doc;
        return;
      }
      const doc = await readState(this.storeRoot);
      fn(doc);
      doc.updated_at = nowIso();
      await atomicWriteStoreJson(storePaths(this.storeRoot).state, doc, { failpoint: "state.before_rename" });
      this.doc = doc;
    });
    this.#chain = next.catch(() => {});
    return next;
  }

  /** Update one prompt entry (created when absent). */
  updatePrompt(promptId: string, fn: (p: PromptState) => void): Promise<void> {
    return this.update((doc) => {
      const p = doc.prompts[promptId] ??= { status: "running", updated_at: nowIso(), attempts: [] };
      fn(p);
      p.updated_at = nowIso();
    });
  }

  /** Update the latest attempt with the given run id and number. */
  updateAttempt(promptId: string, runId: string, attempt: number, fn: (a: AttemptRecord) => void): Promise<void> {
    return this.updatePrompt(promptId, (p) => {
      for (let i = p.attempts.length - 1; i >= 0; i--) {
        const a = p.attempts[i]!;
        if (a.run_id === runId && a.attempt === attempt) {
          fn(a);
          return;
        }
      }
    });
  }
}
