import assert from "node:assert/strict";
import { formatControlStatus } from "../../src/cli/control/status.ts";
import { eventLine, parseCursor } from "../../src/cli/control/events.ts";
import { logLine } from "../../src/cli/control/log.ts";
import { shellWords } from "../../src/cli/control/_common.ts";
import { readSnapshotTotal } from "../../src/control/snapshot.ts";
import type { Snapshot } from "../../src/control/mod.ts";
import { painter } from "../../src/render/ansi.ts";
import { missingFileCheck } from "../support/check_fixtures.ts";

const SPEC_SNAPSHOT = {
  schema: "prompt_runner.snapshot/v1",
  run_id: "20261130T120501Z-7QK2MD",
  packet: "demo",
  packet_dir: "/home/ada/packets/demo",
  store_root: "/home/ada/packets/demo/.prompt_runner",
  workspace: null,
  status: "running",
  stage: "session",
  reason: null,
  prompt_id: "03",
  prompt_name: "Write the guide",
  prompt_position: 3,
  selected_count: 9,
  completed_count: 2,
  attempt: 2,
  mode: "repair",
  stream: "initial",
  provider: "codex",
  model: "gpt-5.5",
  session_id: "01a22aaa-f7cf-7d41-b470-a639674de506",
  session_live: true,
  run_started_at: "2026-11-30T12:05:01.004Z",
  prompt_started_at: "2026-11-30T12:09:10.220Z",
  attempt_started_at: "2026-11-30T12:10:40.871Z",
  updated_at: "2026-11-30T12:12:13.334Z",
  elapsed_ms: 432330,
  prompt_elapsed_ms: 183114,
  attempt_elapsed_ms: 92463,
  tool_count: 78,
  input_tokens: 24931,
  output_tokens: 812,
  run_input_tokens: 61280,
  run_output_tokens: 2406,
  event_count: 719,
  last_seq: 719,
  steer_count: 1,
  steers_pending: 0,
  max_steers: 3,
  last_verification: { status: "fail", failures: ["doc#1"], at: "2026-11-30T12:10:39.990Z" },
  view: { log_mode: "studio", tool_output: "summary", thinking: "show", diff: "stat" },
  writer: { pid: 4242, hostname: "build-01" },
};

Deno.test("formatControlStatus() reproduces the docs/reference/control-plane.md §13 example", () => {
  const snap: Snapshot = {
    ...readSnapshotTotal(SPEC_SNAPSHOT)!,
    lease: { state: "up", pid: 4242, hostname: "build-01" },
  };
  const text = formatControlStatus(snap, painter(false), Date.parse("2026-11-30T12:12:13.334Z"), "demo");
  assert.equal(
    text,
    `
  demo  20261130T120501Z-7QK2MD

  status    running · lease up (pid 4242 on build-01)
  stage     session
  prompt    03 — Write the guide (3 of 9)
  attempt   2 (repair), stream initial
  provider  codex / gpt-5.5
  elapsed   7m12s run, 3m03s this prompt
  tools     78 this attempt
  tokens    24931 in / 812 out this attempt · 61280 in / 2406 out this run
  steers    1 of 3 used, 0 pending
  events    719 this run
  view      log_mode=studio tool_output=summary thinking=show diff=stat
  updated   2026-11-30T12:12:13.334Z

`,
  );
  const coloured = formatControlStatus(snap, painter(true), Date.parse("2026-11-30T12:12:13.334Z"));
  assert.ok(coloured.includes("\x1b[2mstatus    \x1b[0m"), "labels are dim");
});

Deno.test("logLine() formats entries as in docs/reference/control-plane.md §13", () => {
  const base = {
    at: "2026-11-30T12:07:01.204Z",
    key: "k",
    request: "r.json",
    run_id: "x",
    author: "ada",
    prompt_id: "01",
    attempt: 1,
  };
  const p = painter(false);
  assert.equal(
    logLine({ ...base, command: "set_view", params: { tool_output: "full" }, outcome: "applied", reason: null }, p),
    '2026-11-30T12:07:01.204Z  applied   set_view {"tool_output":"full"}  by ada on 01/1',
  );
  assert.equal(
    logLine({
      ...base,
      at: "2026-11-30T12:10:03.201Z",
      request: null,
      command: "amend",
      params: {
        clause: "files_exist",
        operation: "add",
        entries: ["lib/demo/report.ex"],
        phase: "pre_verify",
        persisted: false,
        amendment_id: "am-1",
      },
      outcome: "applied",
      reason: "the guide links to this module",
      prompt_id: "03",
      attempt: null,
    }, p),
    '2026-11-30T12:10:03.201Z  applied   amend {"clause":"files_exist","operation":"add","entries":["lib/demo/report.ex"],"phase":"pre_verify"}  by ada on 03 — the guide links to this module',
  );
  assert.ok(
    logLine({ ...base, command: "steer", params: {}, outcome: "rejected", reason: "x" }, painter(true))
      .includes("\x1b[0;31mrejected\x1b[0m"),
  );
});

Deno.test("eventLine() right-aligns seq, pads the type to 22 and summarises in ≤ 120 chars", () => {
  const line = eventLine({
    seq: 731,
    at: "2026-11-30T12:12:14.002Z",
    type: "tool_call_started",
    data: { tool_call_id: "1", tool_name: "shell", tool_input: { command: "mix test" } },
  });
  assert.match(line, /^ {2}731 {2}\d\d:\d\d:14\.002 {2}tool_call_started {6}shell: mix test$/);
  const long = eventLine({ seq: 1, at: "x", type: "message_received", data: { content: "y".repeat(500) } });
  assert.ok(long.endsWith("…"));
  assert.equal(long.split("message_received")[1]!.trim().length, 120);
  // A run's opening line counts its prompts in the singular for one.
  const opened = (selection: string[], resumed = false) =>
    eventLine({ seq: 1, at: "x", type: "run_opened", data: { packet: "demo", selection, resumed } });
  assert.match(opened(["01"]), /run_opened +demo · 1 prompt$/);
  assert.match(opened(["01", "02"], true), /run_opened +demo · 2 prompts \(resumed\)$/);
});

Deno.test("eventLine() names the failing checks of a verification; an earlier stream's ids stay as they were", () => {
  const base = { status: "fail", counts: { items: 2, passed: 1 }, failures: ["files_exist#2"], faults: [] };
  const check = missingFileCheck("b.txt");
  const named = eventLine({ seq: 1, at: "x", type: "verification_finished", data: { ...base, checks: [check] } });
  assert.match(named, /verification_finished +fail 1\/2 passed · files_exist b\.txt: missing$/);
  const old = eventLine({ seq: 1, at: "x", type: "verification_finished", data: base });
  assert.match(old, /verification_finished +fail 1\/2 passed · files_exist#2$/);
});

Deno.test("parseCursor() accepts start, current, a seq and run:seq", () => {
  assert.equal(parseCursor(undefined), "start");
  assert.equal(parseCursor("current"), "current");
  assert.equal(parseCursor("42"), 42);
  assert.deepEqual(parseCursor("20261130T120501Z-7QK2MD:7"), { runId: "20261130T120501Z-7QK2MD", seq: 7 });
  assert.throws(() => parseCursor("soon"));
});

Deno.test("shellWords() splits with quoting and no expansion", () => {
  assert.deepEqual(shellWords(`mix test "a b" 'c $HOME' d\\ e`), ["mix", "test", "a b", "c $HOME", "d e"]);
  assert.deepEqual(shellWords(`""`), [""]);
  assert.throws(() => shellWords(`"open`), SyntaxError);
});
