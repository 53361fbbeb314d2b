/**
 * Rendering fixes of a live run (golden files under tests/golden/render/fixes/): a view change while a tool runs,
 * chrome lines after an open stream line, errors shown once, pluralised counts.
 */
import assert from "node:assert/strict";
import type { Envelope, View } from "../../src/events/types.ts";
import { createRenderer, type Renderer, replayEvents, switchRenderer } from "../../src/render/mod.ts";
import { simulatedLane } from "../../src/lanes/simulated.ts";
import type { SessionSpec } from "../../src/lanes/types.ts";
import { defaultRecovery } from "../../src/packet/recovery.ts";
import { testOptions, testSpec } from "../lanes/_support.ts";
import { tempDir } from "../support/fs.ts";
import { assertGolden } from "../support/golden.ts";
import { envelope, settings } from "./_fixtures.ts";

function simSpec(cwd: string, simulate: Record<string, unknown>): SessionSpec {
  const options = testOptions({
    provider: "simulated",
    model: "simulated-demo",
    permission_mode: "bypass",
    timeout_ms: 1000,
    recovery: defaultRecovery(),
  });
  return testSpec({ runId: "20261130T120501Z-AAAAAA", prompt: "do it", cwd, options, simulate });
}

const T0 = "2026-11-30T12:05:01.000Z";
const T5 = "2026-11-30T12:05:06.000Z";

/** A session whose shell call takes 5 s; the switch happens between its start and its completion. */
function bashSession(): { before: Envelope[]; after: Envelope[] } {
  const before = [
    envelope("run_started", { provider_session_id: "s1", model: "claude-sonnet-4-5" }),
    envelope("message_streamed", { delta: "Running the tests.", message_id: "m1" }),
    envelope("tool_call_started", { tool_call_id: "b1", tool_name: "Bash", tool_input: { command: "deno test -A" } }, {
      at: T0,
    }),
  ];
  const after = [
    envelope("tool_call_completed", {
      tool_call_id: "b1",
      tool_name: "Bash",
      tool_output: "ok 3",
      is_error: false,
      exit_code: 0,
    }, { at: T5 }),
    envelope("token_usage_updated", { input_tokens: 2400, output_tokens: 140 }),
    envelope("run_completed", { stop_reason: "end_turn" }),
  ];
  return { before, after };
}

function switchMidTool(from: View["log_mode"], to: View["log_mode"], tty = false): string {
  const { before, after } = bashSession();
  let r: Renderer = createRenderer(settings({ log_mode: from, color: tty, tty }));
  let out = "";
  for (const ev of before) out += r.render(ev);
  const switched = switchRenderer(r, settings({ log_mode: to, color: tty, tty }));
  out += switched.text;
  r = switched.renderer;
  for (const ev of after) out += r.render(ev);
  return out + r.finish();
}

Deno.test("a switch to studio while a shell call runs completes it with its command and duration on its own line", () => {
  const out = switchMidTool("compact", "studio");
  assert.match(out, /t\+Bash\n {2}✓ Ran: deno test -A \(exit 0, 4 chars, 5\.0s\)\n/);
  assert.doesNotMatch(out, /Ran: {2}\(/, "the command is not lost");
  assert.match(out, /Session complete \(end_turn\) — 2400\/140 tokens, 1 tool\n/, "the tool count spans the switch");
  assertGolden("render/fixes/mid-tool-compact-to-studio.txt", out);
});

Deno.test("a switch away from studio ends the open ◐ line and the footer counts the whole stream", () => {
  const out = switchMidTool("studio", "compact", true);
  assert.ok(out.includes("◐\x1b[0m Running: deno test -A\n"), "the ◐ line is ended, not overwritten by the next mode");
  assert.match(out, /--- 6 events, 1 tool ---/);
  assertGolden("render/fixes/mid-tool-studio-to-compact.txt", out);
  const verbose = switchMidTool("compact", "verbose");
  assert.match(verbose, /t\+Bash\n\[tool_call_completed\] name=Bash exit_code=0 chars=4 lines=1\n/);
  assert.match(verbose, /--- 6 events, 1 tool ---\n$/);
});

Deno.test("replay renders a recorded mid-tool view change exactly as the live switch", () => {
  const { before, after } = bashSession();
  const view = (log_mode: View["log_mode"]) => ({ log_mode, tool_output: "summary", thinking: "show", diff: "stat" });
  const runner = (type: string, data: Record<string, unknown>) =>
    envelope(type, data, { origin: "runner", prompt_id: "01", attempt: 1, stream: null });
  const events = [
    runner("run_opened", { packet: "demo", selection: ["01"], resumed: false, view: view("compact") }),
    ...before,
    runner("view_changed", { view: view("studio"), author: "ada", request: "r1.json" }),
    ...after,
  ];
  const r = replayEvents(events, {
    view: null,
    color: false,
    tty: false,
    diff_max_lines: 60,
    tool_output_max_lines: 200,
    pathDiffFor: null,
  });
  assert.equal(r.output, switchMidTool("compact", "studio"));
});

Deno.test("an error_occurred followed by run_failed with the same message is shown once", () => {
  const events = [
    envelope("run_started", { provider_session_id: "s1", model: "simulated-demo" }),
    envelope("message_streamed", { delta: "Starting on capacity.txt." }),
    envelope("error_occurred", {
      error_code: "provider_capacity",
      error_message: "Selected model is at capacity.",
      severity: "error",
    }),
    envelope("run_failed", { error_code: "provider_capacity", error_message: "Selected model is at capacity." }),
  ];
  const render = (mode: View["log_mode"]) => {
    const r = createRenderer(settings({ log_mode: mode }));
    return events.map((e) => r.render(e)).join("") + r.finish();
  };
  const compact = render("compact");
  assert.equal(compact.split("Selected model is at capacity.").length - 1, 1, compact);
  assert.equal(
    compact,
    "r+ simulated-demo >> Starting on capacity.txt.\n! Selected model is at capacity.\n--- 4 events, 0 tools ---\n",
  );
  const studio = render("studio");
  assert.equal(studio.split("Selected model is at capacity.").length - 1, 1, studio);
  // Verbose shows each event as its own tagged line.
  assert.match(render("verbose"), /\[error\] .*capacity\.\n\[run_failed\] .*capacity\.\n/);
  // A run_failed with a different message is still shown.
  const r = createRenderer(settings({ log_mode: "compact" }));
  let out = r.render(events[2]!);
  out += r.render(envelope("run_failed", { error_code: "exit", error_message: "provider exited with status 1" }));
  assert.match(out, /! Selected model is at capacity\. ! provider exited with status 1/);
  assertGolden("render/fixes/error-once.compact.txt", compact);
  assertGolden("render/fixes/error-once.studio.txt", studio);
});

Deno.test("counts of one are singular: 1 line, 1 tool, 1 event, +1 line", () => {
  const events = [
    envelope("tool_call_started", { tool_call_id: "r1", tool_name: "Read", tool_input: { file_path: "a.txt" } }),
    envelope("tool_call_completed", { tool_call_id: "r1", tool_name: "Read", tool_output: "one\n", is_error: false }),
    envelope("run_completed", { stop_reason: "end_turn" }),
  ];
  const studio = createRenderer(settings({ log_mode: "studio" }));
  const s = events.map((e) => studio.render(e)).join("");
  assert.match(s, /✓ Read a\.txt \(1 line\)\n/);
  assert.match(s, /Session complete \(end_turn\) — 1 tool\n/);
  const compact = createRenderer(settings({ log_mode: "compact" }));
  compact.render(envelope("notice", { level: "info", code: "x", message: "m" }));
  assert.match(compact.finish(), /--- 1 event, 0 tools ---/);
  const two = createRenderer(settings({ log_mode: "compact", tool_output: "summary" }));
  const t = two.render(events[0]!) +
    two.render(
      envelope("tool_call_completed", {
        tool_call_id: "r1",
        tool_name: "Read",
        tool_output: "a\nb\n",
        is_error: false,
      }),
    );
  assert.match(t, /tr:a \(\+1 line\)/);
});

Deno.test("two thinking items of a simulated step render as two runs, never glued together", async () => {
  await using dir = await tempDir();
  const session = simulatedLane.start(simSpec(dir.path, {
    attempts: [{ thinking: ["The repo is empty.", "One file is enough."], messages: ["Creating it.", "Done."] }],
  }));
  const events: Envelope[] = [];
  for await (const e of session.events) if (!e.hidden) events.push(envelope(e.type, e.data as Record<string, unknown>));
  const render = (mode: View["log_mode"]) => {
    const r = createRenderer(settings({ log_mode: mode }));
    return events.map((e) => r.render(e)).join("") + r.finish();
  };
  const compact = render("compact");
  assert.doesNotMatch(compact, /empty\.One|it\.Done/);
  assert.match(compact, />> The repo is empty\.\n>> One file is enough\.\n>> Creating it\.\n>> Done\./);
  assert.match(render("studio"), / {2}The repo is empty\.\n\n {2}One file is enough\.\n/);
  assert.match(render("verbose"), /The repo is empty\.\nOne file is enough\.\nCreating it\.\nDone\./);
  assertGolden("render/fixes/simulated-items.compact.txt", compact);
});
