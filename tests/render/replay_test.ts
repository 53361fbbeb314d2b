import assert from "node:assert/strict";
import type { Envelope } from "../../src/events/types.ts";
import { Replayer, replayEvents, type ReplayOptions } from "../../src/render/replay.ts";
import { loadFullWidth } from "../../src/render/text_width.ts";
import { storePaths } from "../../src/store/paths.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { envelope, loadFixture } from "./_fixtures.ts";

const RUN = "20261130T120501Z-7QK2MD";
const OLD_RUN = "20261129T080000Z-ABCDEF";

function runner(type: string, data: Record<string, unknown>, promptId: string | null = "01"): Envelope {
  return envelope(type, data, { origin: "runner", prompt_id: promptId, attempt: promptId ? 1 : null, stream: null });
}

/** A recorded run: launch view studio, a switch to compact mid-stream, a steer, a second stream, outcomes. */
function recordedRun(cwd: string, runId = RUN): Envelope[] {
  // The session cwd of run_started wins over the prompt's cwd for path diffs.
  const claude = loadFixture("claude").map((e) =>
    e.type === "run_started" ? ({ ...e, data: { ...e.data, cwd } } as Envelope) : e
  );
  const cut = claude.findIndex((e) => e.type === "tool_call_started" && e.data.tool_name === "Write");
  const events = [
    runner("run_opened", {
      packet: "demo",
      selection: ["01"],
      resumed: false,
      view: { log_mode: "studio", tool_output: "summary", thinking: "show", diff: "stat" },
    }, null),
    runner("prompt_started", {
      prompt_name: "Add the report",
      mode: "run",
      attempt: 1,
      provider: "claude",
      model: "claude-sonnet-4-5",
      cwd,
    }),
    ...claude.slice(0, cut),
    runner("view_changed", {
      view: { log_mode: "compact", tool_output: "summary", thinking: "show", diff: "full" },
      author: "ada",
      request: "r1.json",
    }),
    ...claude.slice(cut, cut + 2),
    runner("steer_accepted", { request: "r2.json", author: "ada", text_chars: 21, pending: 1 }),
    envelope("run_cancelled", { reason: "interrupted_for_steer" }),
    runner("steer_delivered", { request: "r2.json", author: "ada", delivery: "interrupt_and_resume", count: 1 }),
    ...toolEvents(),
    runner("verification_finished", {
      source: "attempt",
      status: "pass",
      counts: { items: 2, passed: 2, failed: 0, faulted: 0 },
      failures: [],
      faults: [],
    }),
    runner("prompt_finished", {
      status: "completed",
      decision: "complete",
      attempts: 1,
      steered: true,
      amended: false,
      commit: null,
    }),
    runner("run_finished", { status: "completed" }, null),
  ];
  return events.map((e, i) => ({ ...e, seq: i + 1, run_id: runId }) as Envelope);
}

function toolEvents(): Envelope[] {
  return [
    envelope("run_started", { provider_session_id: "s1", model: "claude-sonnet-4-5" }, { stream: "steer" }),
    envelope("tool_call_started", {
      tool_call_id: "c1",
      tool_name: "file_change",
      tool_input: { changes: [{ path: "notes.txt", kind: "update" }] },
    }),
    envelope("tool_call_completed", { tool_call_id: "c1", tool_name: "file_change", tool_output: "", is_error: false }),
    envelope("run_completed", { stop_reason: "end_turn" }),
  ];
}

const OPTS: ReplayOptions = {
  view: null,
  color: false,
  tty: false,
  diff_max_lines: 60,
  tool_output_max_lines: 200,
  pathDiffFor: null,
};

Deno.test("replayEvents() follows the recorded launch view and view changes, with headers and notices", () => {
  const r = replayEvents(recordedRun("/w"), {
    ...OPTS,
    steerText: (req) => (req === "r2.json" ? "check the tests first" : null),
  });
  const [before, after] = r.output.split("✓ Read lib/app.ex");
  assert.ok(before!.startsWith("━".repeat(60) + "\n  Prompt 01: Add the report  · attempt 1 (run)\n"));
  assert.ok(before!.includes("  ● claude-sonnet-4-5-20250929 (high) session started"));
  assert.ok(after!.includes("  ✓ Edited lib/app.ex  +3 −1\n"), "studio until the view change");
  assert.ok(after!.includes("t+Write t-Write +3 −0"), "compact after the view change");
  assert.ok(after!.includes("    + defmodule Demo.Report do\n"), "diff: full from the view change");
  assert.ok(r.output.includes("↳ steer accepted: check the tests first\n"));
  assert.ok(r.output.includes("↳ resuming the session with the steer\n"));
  assert.ok(r.output.includes("Verification passed (2/2)\n✓ Prompt 01 completed\n"));
  assert.ok(r.output.endsWith(`\nRun ${RUN} completed\n`));
  assert.equal(r.view.log_mode, "compact");
  assert.deepEqual(r.prompts, ["01"]);
});

Deno.test("Replayer renders as events arrive: each push returns its own text, holding no event", () => {
  const events = recordedRun("/w");
  const r = new Replayer({ ...OPTS, view: null });
  const pieces: string[] = [];
  let headerAt = -1;
  for (const [i, ev] of events.entries()) {
    const text = r.push(ev);
    if (headerAt < 0 && /Add the report/.test(text)) headerAt = i;
    pieces.push(text);
  }
  pieces.push(r.finish());
  // The header is out when prompt_started is pushed, long before the run ends: output is never held back.
  assert.equal(events[headerAt]?.type, "prompt_started");
  assert.ok(headerAt < events.length - 5);
  // Streaming changes nothing: the pieces are exactly what rendering the whole run at once gives.
  const whole = replayEvents(events, { ...OPTS, view: null });
  assert.equal(pieces.join(""), whole.output);
  assert.equal(r.events, whole.events);
  assert.deepEqual(r.prompts, whole.prompts);
});

Deno.test("replayEvents() with a fixed view ignores recorded view changes", () => {
  const r = replayEvents(recordedRun("/w"), { ...OPTS, view: { log_mode: "verbose", tool_output: "none" } });
  assert.ok(r.output.startsWith("=".repeat(60) + "\n"));
  assert.ok(r.output.includes("[tool_call_completed] name=Write  +3 −0\n"));
  assert.ok(!r.output.includes("✓ Edited") && !r.output.includes("t+Write"));
  assert.ok(r.output.includes("↳ steer accepted: 21 chars from ada\n"), "without the text, the size and author");
});

async function store(dir: string): Promise<{ packet: string; repo: string }> {
  const packet = `${dir}/demo`;
  const repo = `${dir}/app`;
  await initRepo(repo, { "notes.txt": "old\n" });
  await writeFiles(repo, { "notes.txt": "new\n" });
  await writeFiles(packet, { "prompt_runner_packet.md": "---\nname: demo\n---\n" });
  const paths = storePaths(`${packet}/.prompt_runner`);
  await Deno.mkdir(paths.eventsArchive, { recursive: true });
  const line = (e: Envelope) => JSON.stringify(e) + "\n";
  await Deno.writeTextFile(paths.events, recordedRun(repo).map(line).join(""));
  await Deno.writeTextFile(paths.archivedEvents(OLD_RUN), recordedRun(repo, OLD_RUN).slice(0, 4).map(line).join(""));
  return { packet, repo };
}

Deno.test("replay re-renders the latest run with view flags, and --diff full labels git state", async () => {
  await using dir = await tempDir();
  const { packet } = await store(dir.path);
  const r = await runCli(["replay", packet, "--log-mode", "studio", "--diff", "full"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.ok(!r.stdout.includes("\x1b"));
  assert.ok(
    r.stdout.includes(
      "  ✓ Edited notes.txt\n      (current state of notes.txt, not this call's change)\n      - old\n      + new\n",
    ),
  );
  assert.ok(r.stdout.includes("  ✓ Wrote lib/demo/report.ex (3 lines)  +3 −0\n      + defmodule Demo.Report do\n"));
});

Deno.test("replay --json prints one document with the rendered output", async () => {
  await using dir = await tempDir();
  const { packet } = await store(dir.path);
  const r = await runCli(["replay", packet, "--json", "--log-mode", "compact", "--thinking", "hide"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.equal(doc.schema, "prompt_runner.replay/v1");
  assert.equal(doc.run_id, RUN);
  assert.deepEqual(doc.view, { log_mode: "compact", tool_output: "summary", thinking: "hide", diff: "stat" });
  assert.deepEqual(doc.prompts, ["01"]);
  const output = doc.output as string;
  assert.ok(output.includes("r+ sonnet-4-5 >> I'll add the module"));
  assert.ok(!output.includes("The supervisor needs"), "thinking hidden");
});

Deno.test("replay --color always colours the output; --json never does", async () => {
  await using dir = await tempDir();
  const { packet } = await store(dir.path);
  const colored = await runCli(["replay", packet, "--color", "always"]);
  assert.equal(colored.code, 0, colored.stderr);
  assert.ok(colored.stdout.includes("\x1b[0;32m✓\x1b[0m Read lib/app.ex (48 lines)"));
  const json = await runCli(["replay", packet, "--color", "always", "--json"]);
  assert.ok(!json.stdout.includes("\\u001b"));
});

Deno.test("replay --run reads an archived run and --prompt/--attempt filter events", async () => {
  await using dir = await tempDir();
  const { packet } = await store(dir.path);
  const old = parseJsonOut(await runCli(["replay", packet, "--run", OLD_RUN, "--json"]));
  assert.equal(old.run_id, OLD_RUN);
  assert.ok(String(old.events_file).endsWith(`/control/events/${OLD_RUN}.jsonl`));
  const one = await runCli(["replay", packet, "--prompt", "1", "--attempt", "1"]);
  assert.equal(one.code, 0, one.stderr);
  assert.ok(one.stdout.includes("Prompt 01: Add the report"));
  assert.ok(!one.stdout.includes(`Run ${RUN} completed`), "run-level events are left out when filtering");
});

Deno.test("replay reports unknown runs and prompts (exit 4) and bad flag values (exit 2)", async () => {
  await using dir = await tempDir();
  const { packet } = await store(dir.path);
  const missingRun = await runCli(["replay", packet, "--run", "20200101T000000Z-AAAAAA", "--json"]);
  assert.equal(missingRun.code, 4);
  assert.equal((parseJsonOut(missingRun).error as Record<string, unknown>).code, "no_run");
  const missingPrompt = await runCli(["replay", packet, "--prompt", "7"]);
  assert.equal(missingPrompt.code, 4);
  assert.match(missingPrompt.stderr, /^error: no recorded events for prompt 07 in run /);
  const badMode = await runCli(["replay", packet, "--log-mode", "fancy"]);
  assert.equal(badMode.code, 2);
  assert.match(badMode.stderr, /^error: --log-mode does not take "fancy"; allowed: compact, studio, verbose/);
  const badRun = await runCli(["replay", packet, "--run", "latest"]);
  assert.equal(badRun.code, 2);
  await Deno.remove(storePaths(`${packet}/.prompt_runner`).events);
  const none = await runCli(["replay", packet]);
  assert.equal(none.code, 4);
  assert.match(none.stderr, /^error: no recorded run in /);
});

Deno.test("replay measures emoji and combining text exactly: string-width loads when an event needs it", async () => {
  await using dir = await tempDir();
  const { packet, repo } = await store(dir.path);
  const wide = "👍🏽 re\u0301sume\u0301 ".repeat(20);
  const recorded = recordedRun(repo);
  const at = recorded.findLastIndex((e) => e.type === "run_completed");
  const events = [
    ...recorded.slice(0, at),
    envelope("tool_call_started", { tool_call_id: "w1", tool_name: "Bash", tool_input: { command: `echo ${wide}` } }),
    envelope("tool_call_completed", { tool_call_id: "w1", tool_name: "Bash", tool_output: wide, is_error: false }),
    ...recorded.slice(at),
  ].map((e, i) => ({ ...e, seq: i + 1, run_id: RUN }) as Envelope);
  const line = (e: Envelope) => JSON.stringify(e) + "\n";
  await Deno.writeTextFile(storePaths(`${packet}/.prompt_runner`).events, events.map(line).join(""));
  // The expected text: rendered in this process with string-width loaded.
  await loadFullWidth();
  for (const mode of ["studio", "verbose"] as const) {
    const r = await runCli(["replay", packet, "--log-mode", mode]);
    assert.equal(r.code, 0, r.stderr);
    const want = replayEvents(events, { ...OPTS, view: { log_mode: mode } }).output;
    assert.ok(want.includes("👍🏽") && want.includes("…"), `${mode}: the emoji text is shown, truncated`);
    assert.equal(r.stdout, want, mode);
  }
});

Deno.test("replayEvents() shows nothing for a line with no event shape (no data, no type) instead of failing", () => {
  const events = recordedRun("/w");
  const whole = replayEvents(events, OPTS).output;
  const foreign = [
    { type: "message_streamed" },
    { type: "prompt_started", data: null },
    { data: {} },
    { type: "run_finished", data: "x" },
  ] as unknown as Envelope[];
  const mixed = [...events.slice(0, 3), ...foreign, ...events.slice(3)];
  assert.equal(replayEvents(mixed, OPTS).output, whole);
});
