/** The pure recovery planner (docs/crash_recovery.md): progress.log + state.json + git facts → corrections. */
import assert from "node:assert/strict";
import { planRecovery, type RecoveryInput, resumedTarget, suffixShas } from "../../src/run/crash_recovery.ts";
import type { ProgressMap } from "../../src/store/progress.ts";
import { type AttemptRecord, emptyState, type PromptState, type StateDoc } from "../../src/run/state.ts";

const RUN = "20261201T070000Z-AAAAAA";
const SHA = "a".repeat(40);

function attempt(status: AttemptRecord["status"], over: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    run_id: RUN,
    attempt: 1,
    mode: "run",
    status,
    started_at: "2026-12-01T07:00:10.000Z",
    provider: "simulated",
    model: null,
    session_id: "simulated-02-1",
    streams: [],
    log_file: null,
    events_file: null,
    ...over,
  };
}

function prompt(
  status: PromptState["status"],
  attempts: AttemptRecord[],
  at = "2026-12-01T07:00:11.000Z",
): PromptState {
  return { status, updated_at: at, attempts };
}

function state(prompts: Record<string, PromptState>): StateDoc {
  return { ...emptyState(), prompts };
}

function progress(lines: [string, "completed" | "failed", string | null, string?][]): ProgressMap {
  return new Map(
    lines.map(([id, status, suffix, at]) => [id, { status, suffix, at: at ?? "2026-12-01T07:00:09.000Z" }]),
  );
}

function input(over: Partial<RecoveryInput>): RecoveryInput {
  return {
    order: ["01", "02", "03"],
    progress: new Map(),
    state: emptyState(),
    repos: [],
    shaValid: new Map(),
    ...over,
  };
}

Deno.test("leftovers of a dead runner belong to the prompt it was running, never to the next one", () => {
  const plan = planRecovery(input({
    progress: progress([["01", "completed", SHA]]),
    state: state({
      "01": prompt("completed", [attempt("completed", { session_id: "s1" })], "2026-12-01T07:00:05.000Z"),
      "02": prompt("running", [attempt("running")]),
    }),
    repos: [{ name: "app", head: { sha: SHA, prompt: "01", run: RUN }, dirty: true }],
  }));
  assert.equal(plan.leftovers?.promptId, "02");
  assert.equal(plan.leftovers?.attempt, 1);
  assert.equal(plan.leftovers?.sessionId, "simulated-02-1");
  assert.deepEqual(plan.appends, [], "nothing is marked completed");
  assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}`), ["02:interrupted"]);
});

Deno.test("a commit naming the running prompt and its run, made before the runner died, is adopted", () => {
  const plan = planRecovery(input({
    state: state({ "02": prompt("running", [attempt("running")]) }),
    repos: [{ name: "app", head: { sha: SHA, prompt: "02", run: RUN }, dirty: false }],
  }));
  assert.deepEqual(plan.appends.map((a) => `${a.id}:${a.status}:${a.suffix}`), [`02:completed:${SHA}`]);
  assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}:${f.suffix}`), [`02:completed:${SHA}`]);
  assert.equal(plan.leftovers, null);
});

Deno.test("a HEAD commit of another prompt or another run is never adopted", () => {
  for (
    const head of [{ sha: SHA, prompt: "01", run: RUN }, { sha: SHA, prompt: "02", run: "20261130T000000Z-BBBBBB" }]
  ) {
    const plan = planRecovery(input({
      state: state({ "02": prompt("running", [attempt("running")]) }),
      repos: [{ name: "app", head, dirty: false }],
    }));
    assert.deepEqual(plan.appends, []);
    assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}`), ["02:interrupted"]);
  }
});

Deno.test("progress.log wins over state.json: completed there, running here → completed", () => {
  const plan = planRecovery(input({
    progress: progress([["02", "completed", SHA, "2026-12-01T07:00:20.000Z"]]),
    state: state({ "02": prompt("running", [attempt("running")]) }),
    shaValid: new Map([["02", true]]),
  }));
  assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}:${f.suffix}`), [`02:completed:${SHA}`]);
  assert.equal(plan.leftovers, null);
});

Deno.test("a completion older than the in-flight attempt does not hide that attempt's leftovers", () => {
  const plan = planRecovery(input({
    progress: progress([["02", "completed", "no_changes", "2026-12-01T06:00:00.000Z"]]),
    state: state({ "02": prompt("running", [attempt("running")]) }),
    repos: [{ name: "app", head: null, dirty: true }],
  }));
  assert.equal(plan.leftovers?.promptId, "02");
});

Deno.test("a completion whose commit is unreachable or names another prompt is refused with a failed line", () => {
  const plan = planRecovery(input({
    progress: progress([["01", "completed", SHA]]),
    state: state({ "01": prompt("completed", [attempt("completed")]) }),
    shaValid: new Map([["01", false]]),
  }));
  assert.deepEqual(plan.appends.map((a) => `${a.id}:${a.status}`), ["01:failed"]);
  assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}`), ["01:failed"]);
});

Deno.test("named suffixes keep their meaning: no_commit, no_session, noop and no_changes complete", () => {
  for (const suffix of ["no_commit", "no_session", "noop", "no_changes"]) {
    const plan = planRecovery(input({
      progress: progress([["01", "completed", suffix, "2026-12-01T07:00:20.000Z"]]),
      state: state({ "01": prompt("running", [attempt("running")]) }),
    }));
    assert.deepEqual(plan.appends, [], suffix);
    assert.deepEqual(plan.fixes.map((f) => `${f.id}:${f.status}:${f.suffix}`), [`01:completed:${suffix}`]);
  }
});

Deno.test("a consistent store needs no recovery", () => {
  const plan = planRecovery(input({
    progress: progress([["01", "completed", SHA], ["02", "failed", null]]),
    state: state({
      "01": prompt("completed", [attempt("completed")]),
      "02": prompt("verification_failed", [attempt("verification_failed")]),
    }),
    shaValid: new Map([["01", true]]),
  }));
  assert.deepEqual(plan, { appends: [], fixes: [], leftovers: null, inFlight: null });
});

Deno.test("resumedTarget: the last attempt of the run when interrupted or running, with or without a session", () => {
  assert.equal(resumedTarget("02", [attempt("running", { session_id: null })], RUN)?.attempt, 1);
  assert.equal(resumedTarget("02", [attempt("interrupted")], RUN)?.sessionId, "simulated-02-1");
  assert.equal(resumedTarget("02", [attempt("failed")], RUN), null);
  assert.equal(resumedTarget("02", [attempt("running")], "20261130T000000Z-BBBBBB"), null);
});

Deno.test("suffixShas reads single and multi-repo suffixes", () => {
  assert.deepEqual(suffixShas("abc1234"), [{ repo: null, sha: "abc1234" }]);
  assert.deepEqual(suffixShas("a=abc1234,b=def5678"), [{ repo: "a", sha: "abc1234" }, { repo: "b", sha: "def5678" }]);
  assert.deepEqual(suffixShas("no_changes"), []);
  assert.deepEqual(suffixShas(null), []);
});
