/**
 * The attempt timeline of `status` (docs/status.md): each selected prompt's attempts in the current run, read from
 * its `state.json` record (docs/reference/runner.md §10.2) — the same records the run summary is built from.
 */
import { isRecord } from "../util/common.ts";

/** One attempt of a prompt's timeline (from its `state.json` record, docs/reference/runner.md §10.2). */
export interface TimelineAttempt {
  attempt: number;
  /** `run`, `retry`, `repair` or `resume`. */
  mode: string;
  /** The attempt status (`running`, `completed`, `failed`, `verification_failed`, …). */
  status: string;
  /** The failure class when it failed (e.g. `provider_capacity`, `verification_failed`), else null. */
  failure_class: string | null;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
}

/** A prompt's attempts in this run. */
export interface TimelinePrompt {
  prompt_id: string;
  attempts: TimelineAttempt[];
}

/** The attempts of this run per selected prompt, from state.json (malformed attempts are skipped). */
export function timelineOf(ids: string[], prompts: Record<string, unknown>, runId: string | null): TimelinePrompt[] {
  const out: TimelinePrompt[] = [];
  if (runId === null) return out;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  for (const id of ids) {
    const entry = prompts[id];
    const list = isRecord(entry) && Array.isArray(entry.attempts) ? entry.attempts : [];
    const attempts: TimelineAttempt[] = [];
    for (const a of list) {
      if (!isRecord(a) || a.run_id !== runId || typeof a.attempt !== "number") continue;
      const started = text(a.started_at);
      const ended = text(a.completed_at);
      const ms = started && ended ? Date.parse(ended) - Date.parse(started) : NaN;
      const failure = isRecord(a.failure) ? text(a.failure.class) : null;
      attempts.push({
        attempt: a.attempt,
        mode: text(a.mode) ?? "run",
        status: text(a.status) ?? "unknown",
        failure_class: failure ?? (a.status === "verification_failed" ? "verification_failed" : null),
        started_at: started,
        completed_at: ended,
        duration_ms: Number.isFinite(ms) ? Math.max(0, ms) : null,
      });
    }
    if (attempts.length > 0) out.push({ prompt_id: id, attempts });
  }
  return out;
}
