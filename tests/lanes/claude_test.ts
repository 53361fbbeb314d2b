import assert from "node:assert/strict";
import { claudeLane, claudeProfile } from "../../src/lanes/claude.ts";
import type { PermissionMode } from "../../src/packet/types.ts";
import { tempDir } from "../support/fs.ts";
import {
  eventsOfType,
  fixtureLines,
  fixtureMeta,
  parseLines,
  replayFixture,
  testOptions,
  testSpec,
  typesOf,
  visible,
} from "./_support.ts";

const parse = (name: string, interrupted = false) =>
  parseLines(claudeProfile, fixtureLines("claude", name), { interrupted });
const of = eventsOfType;

Deno.test("claude parser maps a text turn: run_started, deltas with message_id, message, usage, completion", () => {
  const { events, sessionIds } = parse("text");
  assert.deepEqual(typesOf(visible(events)), [
    "run_started",
    "message_streamed",
    "message_streamed",
    "message_streamed",
    "message_received",
    "token_usage_updated",
    "run_completed",
  ]);
  const started = of(events, "run_started")[0]!.data;
  assert.equal(started.provider_session_id, "2a4ab323-b7fd-4e0d-b290-1d922fef9ed7");
  assert.equal(started.permission_mode, "acceptEdits");
  assert.equal(started.version, "2.1.197");
  assert.equal(started.cwd, "/scratch/e2e/repo");
  assert.ok(started.tools?.includes("Bash"));
  const deltas = of(events, "message_streamed");
  const message = of(events, "message_received")[0]!.data;
  assert.equal(deltas.map((d) => d.data.delta).join(""), message.content);
  assert.equal(message.content, "Hello there, operator.");
  assert.ok(deltas.every((d) => d.data.message_id === message.message_id && d.data.message_id !== undefined));
  const usage = of(events, "token_usage_updated")[0]!.data;
  assert.equal(usage.input_tokens, 120);
  assert.equal(usage.output_tokens, 6);
  assert.equal(usage.cost_usd, 0.00075);
  const done = of(events, "run_completed")[0]!.data;
  assert.equal(done.stop_reason, "end_turn");
  assert.equal(done.num_turns, 1);
  assert.deepEqual(done.token_usage, usage);
  assert.deepEqual([...new Set(sessionIds)], ["2a4ab323-b7fd-4e0d-b290-1d922fef9ed7"]);
});

Deno.test("claude parser marks thinking deltas and the thinking block", () => {
  const { events } = parse("thinking");
  const thinkingDeltas = of(events, "message_streamed").filter((e) => e.data.kind === "thinking");
  const thinkingMsg = of(events, "message_received").filter((e) => e.data.kind === "thinking");
  assert.equal(thinkingMsg.length, 1);
  assert.ok(thinkingMsg[0]!.data.content.length > 0);
  assert.ok(thinkingDeltas.length >= 1);
  assert.equal(thinkingDeltas.map((d) => d.data.delta).join(""), thinkingMsg[0]!.data.content);
  const text = of(events, "message_received").filter((e) => e.data.kind === undefined);
  assert.equal(text.length, 1);
  // system/thinking_tokens lines are hidden notices.
  assert.ok(events.some((e) => e.type === "notice" && e.hidden && e.data.code === "thinking_tokens"));
});

Deno.test("claude parser carries Write content and the Edit patch with result_meta", () => {
  const write = parse("write").events;
  const wStart = of(write, "tool_call_started").find((e) => e.data.tool_name === "Write")!;
  assert.equal(typeof wStart.data.tool_input["content"], "string");
  assert.match(String(wStart.data.tool_input["file_path"]), /hello\.txt$/);
  const wDone = of(write, "tool_call_completed").find((e) => e.data.tool_call_id === wStart.data.tool_call_id)!;
  assert.equal(wDone.data.tool_name, "Write");
  assert.equal(wDone.data.result_meta?.["type"], "create");

  const edit = parse("edit").events;
  const starts = of(edit, "tool_call_started");
  assert.deepEqual(starts.map((s) => s.data.tool_name), ["Read", "Edit"]);
  const e = starts[1]!.data;
  assert.equal(e.tool_input["old_string"], "beta");
  assert.equal(e.tool_input["new_string"], "BETA");
  const done = of(edit, "tool_call_completed").find((c) => c.data.tool_call_id === e.tool_call_id)!;
  assert.equal(done.data.tool_name, "Edit");
  assert.ok(Array.isArray(done.data.result_meta?.["structuredPatch"]));
  assert.equal(done.data.result_meta?.["originalFile"], "alpha\nbeta\ngamma\n");
});

Deno.test("claude parser maps a Bash tool result to tool_call_completed with its output", () => {
  const { events } = parse("bash");
  const start = of(events, "tool_call_started")[0]!;
  assert.equal(start.data.tool_name, "Bash");
  const done = of(events, "tool_call_completed")[0]!;
  assert.equal(done.data.tool_call_id, start.data.tool_call_id);
  assert.match(done.data.tool_output, /hi from the shell/);
});

Deno.test("claude parser maps API errors to http_<status> and hides the synthetic assistant text", () => {
  for (const [name, status] of [["error_400", 400], ["error_429", 429], ["error_500", 500]] as const) {
    const { events } = parse(name);
    assert.equal(of(events, "message_received").length, 0, name);
    const err = of(events, "error_occurred");
    const failed = of(events, "run_failed");
    assert.equal(err.length, 1, name);
    assert.equal(failed.length, 1, name);
    assert.equal(err[0]!.data.error_code, `http_${status}`);
    assert.equal(err[0]!.data.provider_error.status, status);
    assert.match(err[0]!.data.error_message, /API Error/);
    assert.equal(events[events.length - 1]!.type, "run_failed");
  }
  const retry = parse("error_429").events.filter((e) => e.type === "notice" && !e.hidden);
  assert.equal(retry.length, 1);
  assert.deepEqual(retry[0]!.data, {
    level: "warning",
    code: "api_retry",
    message: "retrying after 429 (attempt 1 of 1)",
  });
});

Deno.test("claude parser maps an aborted result to run_cancelled only when the runner interrupted", () => {
  const cancelled = parse("sigint_stream", true).events;
  assert.equal(cancelled[cancelled.length - 1]!.type, "run_cancelled");
  assert.equal(of(cancelled, "error_occurred").length, 0);
  assert.ok(cancelled.some((e) => e.type === "notice" && e.data.code === "interrupted"));
  const foreign = parse("sigint_stream", false).events;
  assert.equal(of(foreign, "run_failed")[0]!.data.error_code, "error_during_execution");

  const tool = parse("sigint_tool", true).events;
  assert.equal(of(tool, "tool_call_failed").length, 1);
  assert.equal(of(tool, "tool_call_failed")[0]!.data.tool_name, "Bash");
  assert.equal(tool[tool.length - 1]!.type, "run_cancelled");
});

Deno.test("claude session: a recorded text turn ends ok, message_sent first, args recorded without the prompt", async () => {
  await using dir = await tempDir();
  const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name: "text" }, dir.path, {
    spec: { prompt: "Say hello." },
  });
  assert.deepEqual(r.end, { kind: "ok" });
  assert.deepEqual(r.events[0], { type: "message_sent", hidden: true, data: { content: "Say hello.", role: "user" } });
  const started = of(r.events, "run_started")[0]!.data;
  assert.equal(started.command, `${dir.path}/fake-cli`);
  assert.ok(started.args?.includes("<prompt>"));
  assert.ok(!started.args?.includes("Say hello."));
  assert.equal(r.session.sessionId, "2a4ab323-b7fd-4e0d-b290-1d922fef9ed7");
  assert.ok(r.session.isReady());
  assert.deepEqual(r.argv.slice(-2), ["--", "Say hello."]);
});

Deno.test("claude session: API errors carry failure hint classes", async () => {
  const expected: Record<string, string | null> = {
    error_400: null, // a 400 that does not name the model is left to the runner's heuristics
    error_429: "provider_rate_limit",
    error_500: "provider_capacity", // as on the codex lane (tests/lanes/classification_table_test.ts)
  };
  for (const [name, hint] of Object.entries(expected)) {
    await using dir = await tempDir();
    const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name }, dir.path);
    assert.equal(r.end.kind, "error", name);
    if (r.end.kind !== "error") continue;
    assert.equal(r.end.hintClass, hint, name);
    assert.equal(r.end.exitCode, 1);
    assert.equal(r.end.sessionNotFound, false);
    assert.equal(r.events.filter((e) => e.type === "run_failed").length, 1);
  }
});

Deno.test("claude session: an interrupt mid-stream ends run_cancelled and StreamEnd cancelled", async () => {
  for (const name of ["sigint_stream", "sigint_tool"]) {
    await using dir = await tempDir();
    const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name }, dir.path, { interrupt: true });
    assert.ok(r.readyBeforeEnd, name);
    assert.deepEqual(r.end, { kind: "cancelled", reason: "interrupted_for_steer", interrupted: true }, name);
    const last = r.events[r.events.length - 1]!;
    assert.deepEqual(last, { type: "run_cancelled", data: { reason: "interrupted_for_steer" } });
    assert.equal(r.events.filter((e) => e.type === "error_occurred").length, 0, name);
  }
});

Deno.test("claude session: exit 143 without a result is transport_exit → transport_disconnect", async () => {
  await using dir = await tempDir();
  const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name: "sigterm_stream" }, dir.path);
  assert.equal(r.end.kind, "error");
  if (r.end.kind !== "error") return;
  assert.equal(r.end.code, "transport_exit");
  assert.equal(r.end.hintClass, "transport_disconnect");
  assert.equal(r.end.exitCode, 143);
  const failed = r.events.filter((e) => e.type === "run_failed");
  assert.equal(failed.length, 1);
  assert.deepEqual(typesOf(r.events.slice(-2)), ["error_occurred", "run_failed"]);
});

Deno.test("claude session: resume re-emits the same session id and resumes with --resume", async () => {
  await using dir = await tempDir();
  const setupId = (fixtureMeta("claude", "resume")["setup"] as { session_id: string }[])[0]!.session_id;
  const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name: "resume" }, dir.path, {
    spec: { resumeSessionId: setupId, streamKind: "resume", prompt: "And now?" },
  });
  assert.deepEqual(r.end, { kind: "ok" });
  assert.equal(of(r.events, "run_started")[0]!.data.provider_session_id, setupId);
  assert.equal(r.session.sessionId, setupId);
  assert.deepEqual(r.argv.slice(0, 3), ["-p", "--resume", setupId]);
  assert.deepEqual(r.argv.slice(-2), ["--", "And now?"]);
});

Deno.test("claude session: resume of an unknown session reports sessionNotFound", async () => {
  for (const name of ["resume_unknown", "resume_other_cwd"]) {
    await using dir = await tempDir();
    const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name }, dir.path, {
      spec: { resumeSessionId: "e7131e45-fb76-4ce0-b798-dd8fec0a2fae", streamKind: "steer" },
    });
    assert.equal(r.end.kind, "error", name);
    if (r.end.kind !== "error") continue;
    assert.equal(r.end.sessionNotFound, true, name);
    assert.match(r.end.stderrTail, /No conversation found/);
    assert.equal(r.events.some((e) => e.type === "run_started"), false, name);
  }
});

Deno.test("claude session: the same stderr on a fresh session is not sessionNotFound", async () => {
  await using dir = await tempDir();
  const r = await replayFixture(claudeLane, "claude_opts", { lane: "claude", name: "resume_unknown" }, dir.path);
  assert.equal(r.end.kind === "error" && r.end.sessionNotFound, false);
});

Deno.test("claude command builder maps every permission mode and the option set", () => {
  const modes: Record<PermissionMode, string> = {
    default: "default",
    auto: "acceptEdits",
    bypass: "bypassPermissions",
    plan: "plan",
  };
  for (const [mode, flag] of Object.entries(modes)) {
    const args = claudeProfile.buildCommand(
      testSpec({ options: testOptions({ permission_mode: mode as PermissionMode }) }),
    );
    const i = args.indexOf("--permission-mode");
    assert.equal(args[i + 1], flag, mode);
  }
  const none = claudeProfile.buildCommand(testSpec());
  assert.equal(none.includes("--permission-mode"), false);
  const full = claudeProfile.buildCommand(testSpec({
    prompt: "- a list item first",
    extraDirs: ["/r/b"],
    options: testOptions({
      model: "sonnet",
      reasoning_effort: "high",
      permission_mode: "auto",
      allowed_tools: ["Bash", "Edit"],
      append_system_prompt: "Be brief.",
      system_prompt: "You are terse.",
      max_turns: 7,
    }),
  }));
  assert.deepEqual(full, [
    "-p",
    "--add-dir",
    "/r/b",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--model",
    "sonnet",
    "--effort",
    "high",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash Edit",
    "--append-system-prompt",
    "Be brief.",
    "--system-prompt",
    "You are terse.",
    "--max-turns",
    "7",
    "--",
    "- a list item first",
  ]);
  const resume = claudeProfile.buildResume("sid-1", testSpec({ options: testOptions({ permission_mode: "auto" }) }));
  assert.deepEqual(resume.slice(0, 3), ["-p", "--resume", "sid-1"]);
  assert.ok(resume.includes("acceptEdits"));
  assert.deepEqual(resume.slice(-2), ["--", "Do the thing."]);
});

Deno.test("claude parser keeps a provider's garbage token counts and cost out of the record", () => {
  const lines = fixtureLines("claude", "text").map((l) => {
    const o = JSON.parse(l);
    if (o.type !== "result") return l;
    o.usage = { ...o.usage, input_tokens: 1e308, output_tokens: -500, cache_read_input_tokens: 2.5 };
    o.total_cost_usd = -3;
    return JSON.stringify(o);
  });
  const { events } = parseLines(claudeProfile, lines, { interrupted: false });
  const usage = of(events, "token_usage_updated")[0]!.data;
  assert.equal(usage.input_tokens, 0);
  assert.equal(usage.output_tokens, 0);
  assert.equal(usage.cached_input_tokens, undefined);
  assert.equal(usage.cost_usd, undefined);
});
