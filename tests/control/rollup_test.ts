import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { readRollupInputs, type RollupInputs, statusRollup, summarizeRollup } from "../../src/control/rollup.ts";
import { storePaths } from "../../src/store/paths.ts";
import { formatProgressLine } from "../../src/store/progress.ts";
import { steerCountsForRun } from "../../src/control/interventions.ts";

const OPTS = { target: "demo", packetDir: "/p" };

function inputs(over: Partial<RollupInputs> = {}): RollupInputs {
  return {
    storeRoot: "/s",
    record: null,
    snap: null,
    lease: { state: "down", pid: null, hostname: null, info: null },
    progressText: null,
    stateDoc: null,
    verification: null,
    delivered: new Map(),
    amendmentTexts: new Map(),
    leftovers: null,
    readErrors: [],
    ...over,
  };
}

const record = (state: "running" | "completed" | "failed", reason: string | null = null) => ({
  schema: "prompt_runner.run/v1" as const,
  run_id: "r1",
  state,
  packet_fingerprint: "",
  selection: { ids: ["01", "02", "03", "04"], selectors: {} },
  created_at: "2026-11-30T12:00:00.000Z",
  updated_at: "2026-11-30T12:00:05.000Z",
  resumed_at: [],
  reason,
});

Deno.test("summarizeRollup(): counts each selected prompt once from progress.log and state.json", () => {
  const progressText = [
    formatProgressLine("01", "completed", "2026-11-30T12:00:01.000Z", null),
    formatProgressLine("02", "failed", "2026-11-30T12:00:02.000Z", null),
  ].join("\n") + "\n";
  const stateDoc = { prompts: { "03": { result: { status: "blocked_by_dependency" } } } };
  const r = summarizeRollup(OPTS, inputs({ record: record("failed"), progressText, stateDoc }), "T");
  assert.equal(r.state, "failed");
  assert.equal(r.checked_at, "T");
  assert.deepEqual(
    [r.progress.selected, r.progress.completed, r.progress.failed, r.progress.blocked, r.progress.pending],
    [4, 1, 1, 1, 1],
  );
  assert.equal(r.last_progress_at, "2026-11-30T12:00:05.000Z");
  assert.deepEqual([r.health, r.healthy], ["needs attention", false]);
  assert.equal(r.progress.error, null);
});

Deno.test("summarizeRollup(): health by state, lease and stop reason", () => {
  const up = { state: "up" as const, pid: 1, hostname: "h", info: null };
  const h = (i: RollupInputs) => {
    const r = summarizeRollup(OPTS, i, "T");
    return [r.state, r.health, r.healthy];
  };
  assert.deepEqual(h(inputs()), ["not_started", "not started", null]);
  assert.deepEqual(h(inputs({ record: record("completed") })), ["completed", "healthy", true]);
  assert.deepEqual(h(inputs({ record: record("completed"), lease: up })), ["completed", "needs attention", false]);
  // The lease of the next run starting is not this run lingering.
  const next = { ...up, info: { run_id: "r2" } };
  assert.deepEqual(h(inputs({ record: record("completed"), lease: next })), ["completed", "healthy", true]);
  assert.deepEqual(h(inputs({ record: record("failed", "interrupted") })), ["failed", "stopped", true]);
  // a running record without a snapshot of its run: the lease is down, so it was abandoned
  assert.deepEqual(h(inputs({ record: record("running") })), ["abandoned", "needs attention", false]);
});

Deno.test("summarizeRollup(): read errors are reported in progress.error next to a damaged progress.log", () => {
  const r = summarizeRollup(OPTS, inputs({ readErrors: ["x not read: boom", "y not read: bang"] }), "T");
  assert.equal(r.progress.error, "x not read: boom; y not read: bang");
});

Deno.test("status rollup: store files that exist but cannot be read are named in progress.error, not skipped", async () => {
  await using t = await tempDir();
  const p = storePaths(`${t.path}/store`);
  await Deno.mkdir(p.progress, { recursive: true }); // a directory where progress.log is expected (EISDIR-like)
  await Deno.mkdir(p.state, { recursive: true });
  const inp = await readRollupInputs(p.root);
  assert.equal(inp.readErrors.length, 2, JSON.stringify(inp.readErrors));
  assert.ok(inp.readErrors.some((e) => e.startsWith(`${p.progress} not read: `)), JSON.stringify(inp.readErrors));
  assert.ok(inp.readErrors.some((e) => e.startsWith(`${p.state} not read: `)), JSON.stringify(inp.readErrors));
  const r = await statusRollup({ ...OPTS, storeRoot: p.root });
  assert.equal(r.state, "not_started");
  assert.match(r.progress.error ?? "", new RegExp(`${p.progress.replaceAll(".", "\\.")} not read`));
  // absent files stay quiet
  await Deno.remove(p.progress);
  await Deno.remove(p.state);
  assert.deepEqual((await readRollupInputs(p.root)).readErrors, []);
});

Deno.test("steerCountsForRun(): absent is no steers; an interventions path that cannot be listed is an error", async () => {
  await using t = await tempDir();
  const p = storePaths(`${t.path}/store`);
  assert.equal(steerCountsForRun(p.root, "r1").size, 0);
  await Deno.mkdir(p.root, { recursive: true });
  await Deno.writeTextFile(p.interventions, "not a directory");
  assert.throws(() => steerCountsForRun(p.root, "r1"), (e: Error) => e.message.includes(p.interventions));
});

Deno.test("summarizeRollup(): a prompt's result in this run wins over an earlier run's completion; attention says why", () => {
  // 01 and 02 completed in an earlier run; this run (r1) reran 01 and it failed, so it stopped at 01.
  const progressText = [
    formatProgressLine("01", "completed", "2026-11-30T11:00:01.000Z", "9f3c2a17"),
    formatProgressLine("02", "completed", "2026-11-30T11:00:02.000Z", "4e1d00a1"),
  ].join("\n") + "\n";
  const stateDoc = {
    prompts: {
      "01": {
        result: { status: "verification_failed", run_id: "r1" },
        attempts: [
          { run_id: "r0", attempt: 1, mode: "run", status: "completed" },
          {
            run_id: "r1",
            attempt: 1,
            mode: "run",
            status: "verification_failed",
            started_at: "2026-11-30T12:00:00.000Z",
            completed_at: "2026-11-30T12:00:02.500Z",
            failure: { class: "verification_failed" },
          },
          {
            run_id: "r1",
            attempt: 2,
            mode: "repair",
            status: "verification_failed",
            started_at: "2026-11-30T12:00:03.000Z",
            completed_at: "2026-11-30T12:00:04.000Z",
          },
        ],
      },
      "02": { result: { status: "completed", run_id: "r0" } },
    },
  };
  const r = summarizeRollup(
    OPTS,
    inputs({ record: record("failed", "verification failed: 01"), progressText, stateDoc }),
    "T",
  );
  assert.deepEqual(
    [r.progress.completed, r.progress.failed, r.progress.pending, r.progress.selected],
    [1, 1, 2, 4],
  );
  assert.deepEqual([r.health, r.attention], ["needs attention", null]);
  assert.deepEqual(r.timeline, [{
    prompt_id: "01",
    attempts: [
      {
        attempt: 1,
        mode: "run",
        status: "verification_failed",
        failure_class: "verification_failed",
        started_at: "2026-11-30T12:00:00.000Z",
        completed_at: "2026-11-30T12:00:02.500Z",
        duration_ms: 2500,
      },
      {
        attempt: 2,
        mode: "repair",
        status: "verification_failed",
        failure_class: "verification_failed",
        started_at: "2026-11-30T12:00:03.000Z",
        completed_at: "2026-11-30T12:00:04.000Z",
        duration_ms: 1000,
      },
    ],
  }]);
  const lingering = summarizeRollup(
    OPTS,
    inputs({
      record: record("completed"),
      lease: { state: "up", pid: 77, hostname: "h", info: { run_id: "r1" } },
    }),
    "T",
  );
  assert.match(lingering.attention ?? "", /runner \(pid 77\) still holds the lease/);
  const gone = summarizeRollup(OPTS, inputs({ record: record("running") }), "T");
  assert.match(gone.attention ?? "", /run --remaining/);
});
