/** The run-summary document from the records (docs/run-summary.md): pure builder rows for every kind of prompt. */
import assert from "node:assert/strict";
import { buildRunSummary, recordExitCode, summaryRunOf } from "../../src/run/summary.ts";
import {
  type AttemptRecord,
  type PromptResult,
  type PromptState,
  type StateDoc,
  StateStore,
} from "../../src/run/state.ts";
import type { RunRecord } from "../../src/store/mod.ts";
import { summaryTable } from "../../src/render/summary_table.ts";
import { stripAnsi } from "../../src/render/ansi.ts";

const RUN = "20261201T100000Z-AAAAAA";
const OLD = "20261130T100000Z-BBBBBB";

function attempt(
  n: number,
  mode: "run" | "retry" | "repair",
  runId = RUN,
  extra: Partial<AttemptRecord> & { open?: boolean } = {},
) {
  const { open, ...rest } = extra;
  const a = {
    run_id: runId,
    attempt: n,
    mode,
    status: "completed",
    started_at: `2026-12-01T10:00:0${n}.000Z`,
    completed_at: `2026-12-01T10:00:0${n}.500Z`,
    provider: "simulated",
    model: null,
    session_id: null,
    streams: [],
    log_file: null,
    events_file: null,
    decision: "complete",
    ...rest,
  } as AttemptRecord;
  if (open) delete a.completed_at;
  return a;
}

function result(status: PromptResult["status"], extra: Partial<PromptResult> = {}): PromptResult {
  return {
    status,
    run_id: RUN,
    finished_at: "2026-12-01T10:00:09.000Z",
    source: "session",
    session_ran: true,
    attempts: 1,
    commit: null,
    failure_class: null,
    reason: null,
    last_verifier: null,
    steered: false,
    amended: false,
    ...extra,
  };
}

function entry(status: PromptState["status"], attempts: AttemptRecord[], res?: PromptResult): PromptState {
  return { status, updated_at: "", attempts, ...(res ? { result: res } : {}) };
}

const SHA = "0123456789abcdef0123456789abcdef01234567";

function state(): StateDoc {
  return {
    schema: "prompt_runner.state/v1",
    updated_at: "",
    last_run_id: RUN,
    prompts: {
      "01": entry(
        "completed",
        [attempt(1, "run", OLD), attempt(1, "run", RUN, { decision: "retry" }), attempt(2, "retry")],
        result("completed", {
          attempts: 2,
          commit: {
            status: "ok",
            repos: [{ repo: "app", status: "ok", sha: SHA }, { repo: "lib", status: "ok", sha: "fedcba9876543210" }],
          },
          steered: true,
          steer_count: 2,
          amended: true,
          amendments: [{}, {}, {}],
        }),
      ),
      "02": entry(
        "completed",
        [],
        result("completed", { source: "preflight_verify", session_ran: false, attempts: 0, vacuous: true }),
      ),
      "03": entry(
        "blocked_by_dependency",
        [],
        result("blocked_by_dependency", { attempts: 0, blocked_by: ["01"], reason: "blocked by 01" }),
      ),
      "04": entry("repairing", [
        attempt(1, "run", RUN, { status: "verification_failed", decision: "repair", open: true }),
      ]),
      "05": entry("completed", [attempt(1, "run", OLD)], { ...result("completed"), run_id: OLD }),
    },
  };
}

const PACKET = {
  name: "demo",
  prompts: ["01", "02", "03", "04", "05", "06"].map((id) => ({ id, name: `Prompt ${id}` })),
};

function record(extra: Partial<RunRecord> = {}): RunRecord {
  return {
    schema: "prompt_runner.run/v1",
    run_id: RUN,
    state: "running",
    packet_fingerprint: "",
    selection: { ids: ["01", "02", "03", "04", "05"], selectors: {} },
    created_at: "2026-12-01T10:00:00.000Z",
    updated_at: "2026-12-01T10:00:10.000Z",
    resumed_at: [],
    reason: null,
    ...extra,
  };
}

Deno.test("buildRunSummary: attempts under the run id only, preflight, blocked, live and not-run prompts, markers, counts", () => {
  const s = buildRunSummary({
    run: summaryRunOf(record()),
    packet: PACKET,
    selected: ["01", "02", "03", "04", "05"],
    state: state(),
    storeRoot: "/s",
  });
  assert.equal(s.exit_code, null, "an open run has no exit code");
  assert.equal(s.finished_at, null);
  const [p1, p2, p3, p4, p5] = s.prompts;
  assert.deepEqual(s.prompts.map((p) => [p.id, p.status, p.path]), [
    ["01", "completed", "run → retry"],
    ["02", "completed", "preflight"],
    ["03", "blocked_by_dependency", ""],
    ["04", "repairing", "run"],
    ["05", "not_run", ""],
  ]);
  assert.equal(p1!.attempts, 2);
  assert.deepEqual(p1!.history.map((a) => [a.attempt, a.mode, a.duration_ms]), [[1, "run", 500], [2, "retry", 500]]);
  assert.deepEqual(p1!.commits.map((c) => c.short), ["01234567", "fedcba98"]);
  assert.equal(p1!.duration_ms, 8000, "from the first attempt's start to the result");
  assert.deepEqual([p1!.steered, p1!.steer_count, p1!.amended, p1!.amendment_count], [true, 2, true, 3]);
  assert.deepEqual([p2!.preflight, p2!.vacuous, p2!.attempts], [true, true, 0]);
  assert.deepEqual(p3!.blocked_by, ["01"]);
  assert.equal(p4!.history[0]!.completed_at, null);
  assert.equal(p4!.history[0]!.duration_ms, null);
  assert.equal(p5!.attempts, 0, "an earlier run's attempts and result are not this run's");
  assert.deepEqual(s.vacuous, ["02"]);
  assert.deepEqual(s.counts, {
    prompts: 5,
    completed: 2,
    failed: 0,
    blocked: 1,
    interrupted: 0,
    not_run: 1,
    running: 1,
    attempts: 3,
    run: 2,
    retry: 1,
    repair: 0,
    steered: 1,
    amended: 1,
    vacuous: 1,
  });
});

Deno.test("summaryTable: headline, aligned rows, markers; colour only on request", () => {
  const run = summaryRunOf(record({ state: "failed", reason: "prompt 03 blocked by 01", exit_code: 1 }));
  const s = buildRunSummary({
    run,
    packet: PACKET,
    selected: ["01", "02", "03", "05"],
    state: state(),
    storeRoot: null,
  });
  assert.equal(
    summaryTable(s, false),
    [
      "Run 20261201T100000Z-AAAAAA failed in 10.0s · 5 prompts: 2 completed, 1 blocked, 1 running, 1 not run · 3 attempts (2 run, 1 retry) · exit 1",
      "  prompt        attempts     result                 commit       time  notes",
      "  01 Prompt 01  run → retry  completed              01234567 +1  8.0s  steered ×2, amended ×3",
      "  02 Prompt 02  preflight    completed              —            —     vacuous contract",
      "  03 Prompt 03  —            blocked by dependency  —            —     blocked by 01",
      "  04 Prompt 04  run          repairing              —            —",
      "  05 Prompt 05  —            not run                —            —",
      "",
    ].join("\n"),
  );
  const coloured = summaryTable(s, true);
  assert.ok(coloured.includes("\x1b["), "coloured");
  assert.equal(stripAnsi(coloured), summaryTable(s, false));
});

Deno.test("recordExitCode: the recorded code, else derived from the closed state; none while running", () => {
  assert.equal(recordExitCode(record({ state: "failed", reason: "x", exit_code: 130 })), 130);
  assert.equal(recordExitCode(record({ state: "completed" })), 0);
  assert.equal(recordExitCode(record({ state: "failed", reason: "interrupted" })), 130);
  assert.equal(recordExitCode(record({ state: "failed", reason: "prompt 01: failed" })), 1);
  assert.equal(recordExitCode(record({ state: "running", exit_code: 1 })), null);
  assert.equal(recordExitCode(record({ state: "abandoned" })), null);
});

Deno.test("summaryTable: a long run of one mode is counted (`run ×5`), the document keeps every attempt", () => {
  const doc = state();
  doc.prompts["01"]!.attempts = [1, 2, 3, 4, 5].map((n) => attempt(n, "run")).concat([attempt(6, "repair")]);
  const s = buildRunSummary({
    run: summaryRunOf(record()),
    packet: PACKET,
    selected: ["01"],
    state: doc,
    storeRoot: null,
  });
  assert.equal(s.prompts[0]!.path, "run → run → run → run → run → repair");
  assert.match(summaryTable(s, false), /\n {2}01 Prompt 01 {2}run ×5 → repair {2}/);
});

Deno.test("buildRunSummary from the runner's state store: the same document, entries read one at a time", async () => {
  const store = StateStore.memory();
  await store.update((d) => {
    d.prompts = state().prompts;
  });
  const doc = store.current;
  const fromDoc = (selected: string[]) =>
    buildRunSummary({ run: summaryRunOf(record()), packet: PACKET, selected, state: doc, storeRoot: null });
  // The end of a 10,000-prompt run must not decode the whole document at once: `current` is never asked for.
  Object.defineProperty(store, "current", {
    get() {
      throw new Error("the whole state document was built");
    },
  });
  const fromStore = (selected: string[]) =>
    buildRunSummary({ run: summaryRunOf(record()), packet: PACKET, selected, state: store, storeRoot: null });
  assert.throws(() => store.current, /whole state document/);
  for (const selected of [["01", "02", "03", "04", "05"], ["02"], []]) {
    assert.deepEqual(fromStore(selected), fromDoc(selected));
  }
  // Prompts with records under the run id are added to a narrower selection; 05 (an older run's) is not.
  assert.deepEqual(fromStore(["02"]).prompts.map((p) => p.id), ["01", "02", "03", "04"]);
});
