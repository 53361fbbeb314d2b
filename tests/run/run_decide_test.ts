import assert from "node:assert/strict";
import {
  afterPrompt,
  blockersOf,
  type LoopOutcome,
  promptEntry,
  runExitCode,
  runOrder,
  runVerdict,
} from "../../src/run/run_decide.ts";
import { INTERRUPTED_EXIT } from "../../src/run/interrupts.ts";

const P = (id: string) => ({ id });

Deno.test("runOrder(): the recovered prompt goes first, once; without one the order is kept (a copy)", () => {
  const [a, b, c] = [P("01"), P("02"), P("03")];
  assert.deepEqual(runOrder([a, b, c], b).map((p) => p.id), ["02", "01", "03"]);
  assert.deepEqual(runOrder([a, c], b).map((p) => p.id), ["02", "01", "03"], "a recovered prompt not selected");
  const input = [a, b, c];
  const same = runOrder(input, undefined);
  assert.deepEqual(same, input);
  assert.notEqual(same, input);
});

Deno.test("runOrder(): prompts whose commit failed go next (after the recovered one), each once, in their order", () => {
  const [a, b, c, d] = [P("01"), P("02"), P("03"), P("04")];
  assert.deepEqual(runOrder([a, b, c, d], undefined, [d, b]).map((p) => p.id), ["04", "02", "01", "03"]);
  assert.deepEqual(runOrder([a, b, c, d], c, [c, d]).map((p) => p.id), ["03", "04", "01", "02"]);
  assert.deepEqual(runOrder([a, b], undefined, []).map((p) => p.id), ["01", "02"]);
});

Deno.test("blockersOf(): a dependency blocks unless completed in this run or in progress.log, in declared order", () => {
  const progress = new Map([["01", "completed"], ["02", "failed"]]);
  const status = (id: string) => progress.get(id);
  const table: [string[], string[], string[]][] = [
    [[], [], []],
    [["01"], [], []],
    [["02"], [], ["02"]],
    [["02"], ["02"], []],
    [["03", "02", "01"], [], ["03", "02"]],
    [["03", "02"], ["03"], ["02"]],
  ];
  for (const [deps, done, want] of table) {
    assert.deepEqual(blockersOf(deps, new Set(done), status), want, `deps ${deps} done ${done}`);
  }
});

Deno.test("promptEntry(): verify-first skips repair and recovery; the vacuous probe skips recovery and restored work", () => {
  const rows: [boolean, boolean, boolean, boolean, boolean, boolean][] = [
    // preflightOn, repairFirst, recovering, restored → preflight, probeVacuous
    [false, false, false, false, false, true],
    [true, false, false, false, true, true],
    [true, true, false, false, false, true],
    [true, false, true, false, false, false],
    [true, false, false, true, true, false],
    [false, false, false, true, false, false],
    [false, true, true, true, false, false],
  ];
  for (const [preflightOn, repairFirst, recovering, restored, preflight, probeVacuous] of rows) {
    assert.deepEqual(
      promptEntry({ preflightOn, repairFirst, recovering, restored }),
      { preflight, probeVacuous },
      JSON.stringify({ preflightOn, repairFirst, recovering, restored }),
    );
  }
});

function out(over: Partial<LoopOutcome>): LoopOutcome {
  return { id: "02", status: "failed", reason: "boom", halt: false, ...over };
}

Deno.test("afterPrompt(): completed goes on; a failure is noted and halts without --keep-going", () => {
  assert.deepEqual(afterPrompt(out({ status: "completed", reason: null }), false), { failed: null, halt: null });
  assert.deepEqual(afterPrompt(out({}), true), { failed: { id: "02", reason: "boom" }, halt: null });
  assert.deepEqual(afterPrompt(out({}), false), { failed: { id: "02", reason: "boom" }, halt: "prompt 02: boom" });
  // Without a reason: the status names the failure, with spaces in the halt reason.
  assert.deepEqual(afterPrompt(out({ status: "verification_failed", reason: null }), false), {
    failed: { id: "02", reason: "verification_failed" },
    halt: "prompt 02: verification failed",
  });
});

Deno.test("afterPrompt(): a halting outcome stops even with --keep-going; an interrupt halts as `interrupted`", () => {
  for (const keepGoing of [false, true]) {
    assert.deepEqual(afterPrompt(out({ status: "interrupted", reason: "interrupted", halt: true }), keepGoing), {
      failed: { id: "02", reason: "interrupted" },
      halt: "interrupted",
    });
    assert.deepEqual(afterPrompt(out({ status: "verifier_fault", reason: "fault x", halt: true }), keepGoing), {
      failed: { id: "02", reason: "fault x" },
      halt: "fault x",
    });
    assert.deepEqual(
      afterPrompt(out({ status: "verifier_fault", reason: null, halt: true }), keepGoing).halt,
      "verifier_fault",
    );
  }
});

Deno.test("afterPrompt(): a blocked prompt halts as `prompt <id> blocked by …` (no colon) unless --keep-going", () => {
  const blocked = out({ status: "blocked_by_dependency", reason: "blocked by 01" });
  assert.deepEqual(afterPrompt(blocked, false), {
    failed: { id: "02", reason: "blocked by 01" },
    halt: "prompt 02 blocked by 01",
  });
  assert.deepEqual(afterPrompt(blocked, true), { failed: { id: "02", reason: "blocked by 01" }, halt: null });
});

Deno.test("runVerdict(): ok, keep-going summary, or the halt reason", () => {
  assert.deepEqual(runVerdict(0, null, false), { ok: true, reason: null, keepGoingSummary: false });
  assert.deepEqual(runVerdict(0, null, true), { ok: true, reason: null, keepGoingSummary: false });
  assert.deepEqual(runVerdict(2, null, true), {
    ok: false,
    reason: "2 selected prompt(s) failed",
    keepGoingSummary: true,
  });
  assert.deepEqual(runVerdict(1, "prompt 02: boom", false), {
    ok: false,
    reason: "prompt 02: boom",
    keepGoingSummary: false,
  });
  assert.deepEqual(runVerdict(1, "interrupted", true), { ok: false, reason: "interrupted", keepGoingSummary: false });
  // Interrupted before any prompt ran: no failure, still not ok.
  assert.deepEqual(runVerdict(0, "interrupted", false), { ok: false, reason: "interrupted", keepGoingSummary: false });
  assert.deepEqual(runVerdict(1, null, false), {
    ok: false,
    reason: "1 selected prompt(s) failed",
    keepGoingSummary: false,
  });
});

Deno.test("runExitCode(): 0 when ok, 130 after an interrupt (flag or halt reason), else 1", () => {
  assert.equal(INTERRUPTED_EXIT, 130);
  const rows: [boolean, boolean, string | null, number][] = [
    [true, false, null, 0],
    [true, true, null, 0],
    [false, false, null, 1],
    [false, false, "prompt 02: boom", 1],
    [false, true, "prompt 02: boom", 130],
    [false, false, "interrupted", 130],
  ];
  for (const [ok, interrupted, halt, code] of rows) assert.equal(runExitCode(ok, interrupted, halt), code);
});
