/** The stage trace reader (scripts/bench/_stage_report.ts): one request's stages from lines of several processes. */
import assert from "node:assert/strict";
import { requestStages, sealSpans, stageReport } from "../../scripts/bench/_stage_report.ts";

const R = "20261202T000000.000001Z-7-000001-abcd.json";
// The bench (pid 7) and the runner (pid 9) on one clock; the runner's loop is busy from 1004 to 1030.
const TRACE = [
  `1000.000 bench_case_real_run ${R} 7`,
  `1000.000 bench_call_start ${R} 7`,
  `1002.000 bench_call_end ${R} 7`,
  "1003.000 yield - 9",
  "1004.000 turn - 9",
  "1030.000 yield - 9",
  "1030.500 turn - 9",
  `1030.600 watch_rename ${R} 9`,
  "1030.700 scan - 9",
  `1030.800 listed ${R} 9`,
  `1030.900 listed ${R} 9`,
  `1031.000 claimed ${R} 9`,
  `1031.500 appended ${R} 9`,
  `1032.000 watch_remove ${R} 9`,
  `1031.700 bench_woken_watch ${R} 7`,
  `1032.000 bench_seen ${R} 7`,
  "not a line",
].join("\n");

Deno.test("requestStages: each stage from the call's start, the first sight of each, the loop's longest stretch", () => {
  const [r, ...rest] = requestStages(TRACE);
  assert.equal(rest.length, 0);
  assert.equal(r!.request, R);
  assert.equal(r!.label, "real_run");
  assert.equal(r!.total, 32);
  const s = r!.stages;
  assert.equal(s.bench_call_end, 2);
  assert.ok(Math.abs(s.watch! - 30.6) < 1e-9, "the first watch event, not the removal's");
  assert.ok(Math.abs(s.listed! - 30.8) < 1e-9);
  assert.equal(s.claimed, 31);
  assert.ok(Math.abs(s.scan_after_watch! - 30.7) < 1e-9);
  assert.ok(Number.isNaN(s.read!), "a stage the trace lacks");
  assert.equal(s.loop_longest_busy, 26, "turn at 1004 → yield at 1030");
  assert.ok(Math.abs(s.loop_longest_turn_wait! - 1) < 1e-9, "the wait from 1003 counted from the call's end (1002)");
  const text = stageReport([r!], 1);
  assert.match(text, /^1 requests/);
  assert.match(text, /loop_longest_busy\s+26\.00/);
});

Deno.test("sealSpans: each seal's fsync and whole duration, per process, in order", () => {
  const trace = [
    "10.000 seal - 9",
    "10.500 seal - 8",
    "20.000 sealed_fsync - 9",
    "21.000 sealed - 9",
    "30.500 sealed_fsync - 8",
    "40.500 sealed - 8",
    "50.000 seal - 9", // never finished: not reported
  ].join("\n");
  assert.deepEqual(sealSpans(trace), [{ fsync: 10, total: 11 }, { fsync: 20, total: 30 }]);
});
