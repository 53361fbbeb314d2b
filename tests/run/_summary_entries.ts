/**
 * A 240-prompt run's state entries for the streamed run-summary tests (tests/run/summary_stream_test.ts,
 * tests/run/report_stream_test.ts): completed (some after a repair, some vacuous, some steered), failed, blocked and
 * not-run prompts, read one entry at a time with the reads counted.
 */
import type { PromptEntries, SummaryInput } from "../../src/run/summary.ts";
import type { AttemptRecord, PromptState } from "../../src/run/state.ts";

/** The run id of every attempt of the fixture. */
export const RUN = "20261201T100000Z-AAAAAA";
/** How many prompts the fixture's packet has. */
export const N = 240;

/** A prompt id of the fixture. */
export function id(i: number): string {
  return String(i).padStart(4, "0");
}

/** A prompt entry of one of four kinds: completed (some after a repair, some vacuous), failed, blocked, not run. */
export function entryOf(i: number): PromptState | undefined {
  if (i % 7 === 3) return undefined;
  const at = (s: number) =>
    `2026-12-01T10:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000Z`;
  const attempt = (n: number, mode: "run" | "repair", status: string): AttemptRecord => ({
    run_id: RUN,
    attempt: n,
    mode,
    status,
    started_at: at(i + n),
    completed_at: at(i + n + 1),
    provider: "simulated",
    model: null,
    session_id: null,
    streams: [],
    log_file: null,
    events_file: null,
    decision: "complete",
  } as AttemptRecord);
  const failed = i % 11 === 5;
  const attempts = i % 5 === 0 ? [attempt(1, "run", "verification_failed"), attempt(2, "repair", "completed")] : [
    attempt(1, "run", failed ? "verification_failed" : "completed"),
  ];
  const status = failed ? "verification_failed" : i % 13 === 6 ? "blocked_by_dependency" : "completed";
  return {
    status,
    updated_at: "",
    attempts: status === "blocked_by_dependency" ? [] : attempts,
    result: {
      status,
      run_id: RUN,
      finished_at: at(i + 4),
      source: "session",
      session_ran: true,
      attempts: attempts.length,
      commit: null,
      failure_class: failed ? "verification" : null,
      reason: null,
      last_verifier: null,
      steered: i % 17 === 1,
      steer_count: i % 17 === 1 ? 1 : 0,
      amended: false,
      ...(i % 19 === 2 ? { vacuous: true } : {}),
      ...(status === "blocked_by_dependency" ? { blocked_by: [id(i - 1)] } : {}),
    },
  } as PromptState;
}

/** Entries read one at a time, counting the reads (the store the runner passes is read the same way). */
export class CountingEntries implements PromptEntries {
  reads = 0;
  readonly #ids = Array.from({ length: N }, (_, i) => id(i + 1)).filter((x) => entryOf(Number(x)) !== undefined);
  ids(): Iterable<string> {
    return this.#ids;
  }
  entry(promptId: string): PromptState | undefined {
    this.reads++;
    return entryOf(Number(promptId));
  }
}

/** The summary input of the fixture's run over `state`. */
export function input(state: PromptEntries): SummaryInput {
  return {
    run: {
      runId: RUN,
      status: "failed",
      reason: "2 prompts failed",
      exitCode: 1,
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: "2026-12-01T10:09:00.000Z",
    },
    packet: { name: "big", prompts: Array.from({ length: N }, (_, i) => ({ id: id(i + 1), name: `Step ${i + 1}` })) },
    selected: Array.from({ length: N }, (_, i) => id(i + 1)),
    state,
    storeRoot: "/s",
  };
}
