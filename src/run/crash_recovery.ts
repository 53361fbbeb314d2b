/**
 * Crash recovery (docs/crash_recovery.md): progress.log (with the run journal) is the source of truth; state.json is
 * derived from it. Once at run start, under the lease and before anything runs, {@link planRecovery} reconciles
 * progress.log, state.json and git: completions are taken only from progress lines whose commit is reachable and
 * names the prompt, a commit made just before the runner died is adopted for the prompt it names, stale `running`
 * records end, and leftover changes of an interrupted prompt are assigned to that prompt — never to another.
 */
import type { ProgressMap } from "../store/mod.ts";
import type { AttemptRecord, PromptState, StateDoc } from "./state.ts";

/** What git says about one commit: its full sha and the prompt/run trailers it carries (null when absent). */
export interface CommitFacts {
  sha: string;
  prompt: string | null;
  run: string | null;
}

/** A prompt's repos as recovery sees them: HEAD facts and whether the work tree is dirty. */
export interface RepoFacts {
  name: string;
  head: CommitFacts | null;
  dirty: boolean;
}

/** The attempt whose work a recovery continues (crash resume, docs/crash_recovery.md). */
export interface RecoveryTarget {
  promptId: string;
  runId: string;
  attempt: number;
  sessionId: string | null;
  /** When that attempt started (compared with progress lines). */
  startedAt: string;
}

/** Inputs of {@link planRecovery}; every fact is gathered before, so the function is pure. */
export interface RecoveryInput {
  /** Packet prompt ids, in packet order. */
  order: readonly string[];
  progress: ProgressMap;
  state: StateDoc;
  /** Repos of the in-flight prompt (empty when there is none). */
  repos: readonly RepoFacts[];
  /** Per progress-completed prompt id, whether each sha of its suffix is reachable and names that prompt. */
  shaValid: ReadonlyMap<string, boolean>;
}

/** One correction to state.json. */
export interface StateFix {
  id: string;
  /** `completed` (from progress or an adopted commit) or `interrupted` (a dead runner's prompt). */
  status: "completed" | "interrupted" | "failed";
  /** The progress suffix a completion came from (sha, `name=sha,…`, or a named suffix). */
  suffix: string | null;
  why: string;
}

/** What recovery does before the run starts. */
export interface RecoveryPlan {
  /** Progress lines to append first (adopted commits, refused completions). */
  appends: { id: string; status: "completed" | "failed"; suffix: string | null; why: string }[];
  /** Corrections to state.json, applied after the appends. */
  fixes: StateFix[];
  /** Leftover changes that belong to this prompt's interrupted attempt (verified and committed under its id). */
  leftovers: RecoveryTarget | null;
  /** The in-flight prompt: the one a dead runner was working on (null when none). */
  inFlight: RecoveryTarget | null;
}

const LIVE_STATUSES = new Set(["running", "retry_scheduled", "repairing"]);

function lastAttempt(p: PromptState): AttemptRecord | null {
  return p.attempts.at(-1) ?? null;
}

/**
 * The prompt a runner was working on when it died or was interrupted: a live status, an `interrupted` one, or a
 * `running` last attempt; the latest wins (pure).
 */
export function inFlightPrompt(state: StateDoc): RecoveryTarget | null {
  let best: { id: string; p: PromptState } | null = null;
  for (const [id, p] of Object.entries(state.prompts)) {
    const last = lastAttempt(p);
    if (!LIVE_STATUSES.has(p.status) && p.status !== "interrupted" && last?.status !== "running") continue;
    if (!last) continue;
    if (!best || p.updated_at > best.p.updated_at) best = { id, p };
  }
  if (!best) return null;
  const a = lastAttempt(best.p)!;
  return { promptId: best.id, runId: a.run_id, attempt: a.attempt, sessionId: a.session_id, startedAt: a.started_at };
}

/** Reconcile progress.log, state.json and git into a recovery plan (pure; see the module comment). */
export function planRecovery(input: RecoveryInput): RecoveryPlan {
  const plan: RecoveryPlan = { appends: [], fixes: [], leftovers: null, inFlight: null };
  const completed = new Map<string, string | null>();
  const refused = new Set<string>();
  for (const [id, rec] of input.progress) {
    if (rec.status !== "completed") continue;
    if (input.shaValid.get(id) === false) {
      refused.add(id);
      plan.appends.push({
        id,
        status: "failed",
        suffix: null,
        why: `progress.log says ${id} completed with ${rec.suffix}, but that commit is not reachable or names ` +
          `another prompt`,
      });
      continue;
    }
    completed.set(id, rec.suffix);
  }
  const flight = inFlightPrompt(input.state);
  // A completion older than the in-flight attempt is an earlier run's: the dead runner was redoing the prompt.
  const doneAt = flight ? input.progress.get(flight.promptId) : undefined;
  const flightDone = flight !== null && completed.has(flight.promptId) && doneAt !== undefined &&
    doneAt.at >= flight.startedAt;
  if (flight && !flightDone) {
    plan.inFlight = flight;
    const heads = input.repos.map((r) => r.head).filter((h): h is CommitFacts => h !== null);
    const own = heads.filter((h) => h.prompt === flight.promptId && h.run === flight.runId);
    const alreadyRecorded = [...input.progress.values()].some((r) => own.some((h) => r.suffix === h.sha));
    // Under agent control a commit of this prompt and run may be a verified iteration the agent asked to repeat
    // (docs/agent-control.md §3): it is never adopted as the prompt's completion; the iteration runs again instead.
    const controlled = input.state.prompts[flight.promptId]?.agent_control?.run_id === flight.runId;
    if (own.length > 0 && !alreadyRecorded && !controlled && !input.repos.some((r) => r.dirty)) {
      // Committed, then the runner died before progress.log said so: the commit names this prompt and run.
      const suffix = input.repos.length === 1
        ? own[0]!.sha
        : input.repos.filter((r) => r.head && own.includes(r.head)).map((r) => `${r.name}=${r.head!.sha}`).join(",");
      plan.appends.push({
        id: flight.promptId,
        status: "completed",
        suffix,
        why: `commit ${own[0]!.sha.slice(0, 8)} names prompt ${flight.promptId} of run ${flight.runId}`,
      });
      completed.set(flight.promptId, suffix);
    } else if (input.repos.some((r) => r.dirty)) {
      plan.leftovers = flight;
    }
  }
  for (const id of Object.keys(input.state.prompts)) {
    const p = input.state.prompts[id]!;
    const last = lastAttempt(p);
    if (plan.leftovers?.promptId === id) {
      plan.fixes.push({ id, status: "interrupted", suffix: null, why: "its runner died; its leftovers are kept" });
      continue;
    }
    if (completed.has(id)) {
      if (p.status !== "completed" || last?.status === "running") {
        plan.fixes.push({ id, status: "completed", suffix: completed.get(id) ?? null, why: "progress.log" });
      }
      continue;
    }
    if (p.status === "completed") {
      const failedLine = refused.has(id) || input.progress.get(id)?.status === "failed";
      plan.fixes.push({
        id,
        status: failedLine ? "failed" : "interrupted",
        suffix: null,
        why: "state.json said completed but progress.log does not",
      });
    } else if (LIVE_STATUSES.has(p.status) || last?.status === "running") {
      plan.fixes.push({ id, status: "interrupted", suffix: null, why: "its runner died" });
    }
  }
  // An adopted completion for a prompt with no state entry still needs one.
  for (const a of plan.appends) {
    if (a.status === "completed" && !plan.fixes.some((f) => f.id === a.id)) {
      plan.fixes.push({ id: a.id, status: "completed", suffix: a.suffix, why: "adopted commit" });
    }
  }
  return plan;
}

/**
 * The crash-recovery target of a resumed run (`run --remaining`): the prompt's last attempt under that run id when
 * it was interrupted or left `running` by a dead runner — with or without a known session id (pure).
 */
export function resumedTarget(
  promptId: string,
  attempts: readonly AttemptRecord[],
  runId: string,
): RecoveryTarget | null {
  let last: AttemptRecord | null = null;
  for (const a of attempts) if (a.run_id === runId) last = a;
  if (!last || (last.status !== "interrupted" && last.status !== "running")) return null;
  return { promptId, runId, attempt: last.attempt, sessionId: last.session_id, startedAt: last.started_at };
}

/** Every sha of a progress suffix with its repo name (null for a single-repo sha); named suffixes give none. */
export function suffixShas(suffix: string | null): { repo: string | null; sha: string }[] {
  if (!suffix) return [];
  if (/^[0-9a-f]{7,40}$/i.test(suffix)) return [{ repo: null, sha: suffix }];
  if (!suffix.includes("=")) return [];
  return suffix.split(",").map((kv) => {
    const [repo, sha] = kv.split("=");
    return { repo: repo ?? null, sha: sha ?? "" };
  });
}
