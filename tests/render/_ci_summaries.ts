/** Run-summary documents for the CI report tests (fixed times and ids, so their output is stable). */
import { RUN_SUMMARY_SCHEMA, type RunSummary, type SummaryAttempt, type SummaryPrompt } from "../../src/events/mod.ts";

function attempt(n: number, mode: string, status: string, extra: Partial<SummaryAttempt> = {}): SummaryAttempt {
  return {
    attempt: n,
    mode,
    status,
    decision: status === "completed" ? "complete" : null,
    started_at: "2026-12-01T10:00:00.000Z",
    completed_at: "2026-12-01T10:00:02.000Z",
    duration_ms: 2000,
    streams: 1,
    failure_class: null,
    failure_message: null,
    verification: status === "completed"
      ? { status: "pass", items: 1, passed: 1, failed: 0, faulted: 0 }
      : { status: "fail", items: 2, passed: 1, failed: 1, faulted: 0 },
    checks: [],
    retry_delay_ms: null,
    ...extra,
  };
}

/** A prompt of a summary, completed in one run attempt unless `extra` says otherwise. */
export function prompt(id: string, name: string, extra: Partial<SummaryPrompt> = {}): SummaryPrompt {
  return {
    id,
    name,
    status: "completed",
    attempts: 1,
    history: [attempt(1, "run", "completed")],
    path: "run",
    preflight: false,
    reason: null,
    failure_class: null,
    commit: null,
    commits: [{ repo: "app", sha: `${id}${"a".repeat(38)}`, short: `${id}${"a".repeat(6)}` }],
    started_at: "2026-12-01T10:00:00.000Z",
    finished_at: "2026-12-01T10:00:02.500Z",
    duration_ms: 2500,
    steered: false,
    steer_count: 0,
    amended: false,
    amendment_count: 0,
    ...extra,
  };
}

/** A summary over `prompts`, its counts left at zero except the prompt count (the renderers read them for words). */
export function summary(prompts: SummaryPrompt[], extra: Partial<RunSummary> = {}): RunSummary {
  const count = (s: string) => prompts.filter((p) => p.status === s).length;
  return {
    type: "run_summary",
    schema: RUN_SUMMARY_SCHEMA,
    run_id: "20261201T100000Z-ABCDEF",
    packet: "demo",
    status: "completed",
    reason: null,
    exit_code: 0,
    store_root: "/work/demo/.prompt_runner",
    started_at: "2026-12-01T10:00:00.000Z",
    finished_at: "2026-12-01T10:00:09.000Z",
    duration_ms: 9000,
    counts: {
      prompts: prompts.length,
      completed: count("completed"),
      failed: prompts.filter((p) => ["failed", "verification_failed", "verifier_fault"].includes(p.status)).length,
      blocked: count("blocked_by_dependency"),
      interrupted: count("interrupted"),
      not_run: count("not_run"),
      running: 0,
      attempts: prompts.reduce((n, p) => n + p.history.length, 0),
      run: 0,
      retry: 0,
      repair: 0,
      steered: prompts.filter((p) => p.steered).length,
      amended: prompts.filter((p) => p.amended).length,
      vacuous: 0,
    },
    vacuous: [],
    prompts,
    ...extra,
  };
}

/** Every outcome a JUnit report knows: passes (one by pre-flight), failures, errors and skips. */
export function mixedSummary(): RunSummary {
  const failedChecks = [
    {
      id: "files_exist#1",
      clause: "files_exist",
      subject: "docs/<guide>.md",
      status: "fail" as const,
      detail: "missing",
      tail: [],
      omitted: 0,
    },
    {
      id: "commands#1",
      clause: "commands",
      subject: "deno test",
      status: "fail" as const,
      detail: "exit 1 (expected 0)",
      tail: ["FAILED | 3 passed | 1 failed", "error: Test failed & stopped"],
      omitted: 12,
    },
  ];
  return summary([
    prompt("01", "Set up the project", { steered: true, steer_count: 2 }),
    prompt("02", "Already done", { preflight: true, history: [], attempts: 0, path: "preflight", commits: [] }),
    prompt("03", "Write the guide | docs", {
      status: "verification_failed",
      attempts: 2,
      path: "run → repair",
      reason: "verification failed: file_exists docs/<guide>.md: missing",
      history: [
        attempt(1, "run", "verification_failed"),
        attempt(2, "repair", "verification_failed", { checks: failedChecks }),
      ],
      commits: [],
      amended: true,
      amendment_count: 1,
    }),
    prompt("04", "Agent gives up", {
      status: "failed",
      failure_class: "agent_blocked",
      reason: "blocked: the API key is missing",
      commits: [],
    }),
    prompt("05", "Provider down", {
      status: "failed",
      failure_class: "provider_capacity",
      reason: "Selected model is at capacity.",
      commits: [],
      history: [attempt(1, "run", "failed", { verification: null, failure_class: "provider_capacity" })],
    }),
    prompt("06", "Checker broken", {
      status: "verifier_fault",
      reason: "the verifier could not run",
      commits: [],
      history: [attempt(1, "run", "verifier_fault", {
        checks: [{
          id: "commands#1",
          clause: "commands",
          subject: "nope",
          status: "fault",
          detail: "command not found",
          tail: [],
          omitted: 0,
        }],
      })],
    }),
    prompt("07", "Depends on 03", {
      status: "blocked_by_dependency",
      blocked_by: ["03"],
      history: [],
      attempts: 0,
      path: "",
      commits: [],
      duration_ms: null,
    }),
    prompt("08", "Never reached", {
      status: "not_run",
      history: [],
      attempts: 0,
      path: "",
      commits: [],
      duration_ms: null,
    }),
  ], { status: "failed", reason: "1 selected prompt(s) failed", exit_code: 1 });
}
