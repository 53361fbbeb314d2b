/**
 * The live status line (src/render/status_line.ts) is never interleaved with the stream: on a simulated terminal
 * (tests/support/vt.ts), at every step the screen is exactly the stream's own screen plus, at most, the status line
 * on one row of its own; once stopped, exactly the stream's screen.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { cursorAfter, StatusLine } from "../../src/render/status_line.ts";
import { progressLine } from "../../src/render/status_words.ts";
import type { TextOut } from "../../src/util/text_out.ts";
import { Vt } from "../support/vt.ts";

type Op = { to: "out" | "err"; text: string } | { to: "draw" };

/** A terminal, the stream's own screen beside it, and a status line writing into the terminal. */
function rig(columns: number) {
  const screen = new Vt(columns);
  const plain = new Vt(columns);
  let n = 0;
  const tty = (): TextOut => ({ isTerminal: true, write: (t) => screen.write(t) });
  const line = new StatusLine({
    out: tty(),
    err: tty(),
    text: () => `STATUS ${++n} · prompt 1/3`,
    columns: () => columns,
  });
  return { screen, plain, line };
}

/** The screen without its status row; fails when the status line shows on more than one row. */
function withoutStatus(lines: string[]): { rest: string[]; shown: boolean } {
  const at = lines.map((l, i) => (l.includes("STATUS") ? i : -1)).filter((i) => i >= 0);
  assert.ok(at.length <= 1, `status on ${at.length} rows:\n${lines.join("\n")}`);
  const rest = lines.filter((_, i) => i !== at[0]);
  while (rest.length > 0 && rest.at(-1) === "") rest.pop();
  return { rest, shown: at.length === 1 };
}

function play(columns: number, ops: Op[]): void {
  const { screen, plain, line } = rig(columns);
  for (const op of ops) {
    if (op.to === "draw") line.draw();
    else {
      (op.to === "out" ? line.stdout : line.stderr).write(op.text);
      plain.write(op.text);
    }
    const { rest } = withoutStatus(screen.lines());
    assert.deepEqual(rest, plain.lines(), JSON.stringify(ops));
  }
  line.stop();
  assert.deepEqual(screen.lines(), plain.lines(), JSON.stringify(ops));
}

Deno.test("status line: a stream of whole lines, open lines, stderr and redraws leaves exactly the stream", () => {
  const { screen, plain, line } = rig(40);
  const feed = (to: "out" | "err", text: string) => {
    (to === "out" ? line.stdout : line.stderr).write(text);
    plain.write(text);
  };
  feed("out", "==== Prompt 01 ====\n");
  assert.equal(withoutStatus(screen.lines()).shown, true, "drawn at a line start");
  feed("out", "r+ model");
  line.draw();
  // Drawn below the open line, the cursor back at its end: the stream continues the same line.
  assert.deepEqual(screen.lines(), ["==== Prompt 01 ====", "r+ model", screen.lines()[2]!]);
  assert.match(screen.lines()[2]!, /^STATUS \d+ · prompt 1\/3$/);
  feed("out", " >> hello");
  feed("err", "\nwarning: slow\n");
  feed("out", "\x1b[2mdim 日本 text\x1b[0m\tend\n");
  line.draw();
  line.stop();
  assert.deepEqual(screen.lines(), plain.lines());
  assert.deepEqual(plain.lines(), ["==== Prompt 01 ====", "r+ model >> hello", "warning: slow", "dim 日本 text   end"]);
  line.draw();
  line.stdout.write("after\n");
  assert.ok(!screen.lines().some((l) => l.includes("STATUS")), "nothing drawn once stopped");
});

Deno.test("status line: any mix of writes, wrapped lines and redraws (property)", () => {
  const piece = fc.oneof(
    fc.constantFrom("\n", " ", "\t", "\x1b[2m", "\x1b[0m", "日本", "✓", "\r\x1b[2K", "r+ model"),
    // deno-lint-ignore no-control-regex
    fc.string({ minLength: 1, maxLength: 12 }).map((s) => s.replace(/[\x00-\x1f\x7f]/g, "x")),
    fc.integer({ min: 20, max: 70 }).map((n) => "w".repeat(n)),
  );
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      to: fc.constantFrom("out" as const, "err" as const),
      text: fc.array(piece, { minLength: 1, maxLength: 6 }).map((a) => a.join("")),
    }),
    fc.constant({ to: "draw" as const }),
  );
  fc.assert(fc.property(fc.integer({ min: 20, max: 50 }), fc.array(op, { maxLength: 25 }), play), { numRuns: 300 });
});

Deno.test("cursorAfter() tracks the column: escapes skipped, wide characters twice, tabs; unknown at the margin", () => {
  const at = (col: number, fresh = false) => ({ col, fresh });
  assert.deepEqual(cursorAfter(at(0, true), "abc", 80), at(3));
  assert.deepEqual(cursorAfter(at(5), "x\nab", 80), at(2));
  assert.deepEqual(cursorAfter(at(5), "x\n", 80), at(0, true));
  assert.deepEqual(cursorAfter(at(5), "x\r", 80), at(0, false));
  assert.deepEqual(cursorAfter(at(3), "\x1b[2mab\x1b[0m", 80), at(5));
  assert.deepEqual(cursorAfter(at(0, true), "日本", 80), at(4));
  assert.deepEqual(cursorAfter(at(2), "\tx", 80), at(9));
  assert.deepEqual(cursorAfter(at(7), "\r\x1b[2K  ✓ done", 80), at(8));
  assert.equal(cursorAfter(at(0, true), "w".repeat(20), 20), null);
  assert.equal(cursorAfter(at(18), "日", 20), null);
  assert.deepEqual(cursorAfter(null, "more\nnext", 20), at(4));
});

Deno.test("progressLine() writes prompt i/N, attempt, stage, elapsed, last activity, run tokens and tools", () => {
  const facts = {
    promptId: "02",
    position: 2,
    selected: 3,
    attempt: 2,
    mode: "retry",
    stage: "session",
    promptStartedMs: 1_000,
    lastEventMs: 10_000,
    lastEvent: "message_streamed",
    tools: 1,
    runningTool: null,
    tokens: { attempt: { input: 10, output: 2 }, run: { input: 3600, output: 225 } },
  };
  assert.equal(
    progressLine(facts, 13_000),
    "prompt 2/3 02 · attempt 2 (retry) · session · 12.0s · last event 3s ago · run tokens 3600 in / 225 out · 1 tool",
  );
  const start = { ...facts, promptId: null, position: 0, attempt: null, stage: "starting", promptStartedMs: null };
  assert.equal(
    progressLine({
      ...start,
      lastEventMs: null,
      tools: 0,
      tokens: { attempt: facts.tokens.attempt, run: { input: 0, output: 0 } },
    }, 0),
    "prompt -/3 · starting · no events yet",
  );
  assert.match(progressLine({ ...facts, stage: "waiting_retry" }, 13_000), / · waiting to retry · /);
  assert.match(
    progressLine({ ...facts, runningTool: { name: "Bash", sinceMs: 5_000 } }, 13_000),
    / · session · 12\.0s · Bash running 8s · last event 3s ago · /,
  );
});
