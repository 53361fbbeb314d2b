import assert from "node:assert/strict";
import { codexLane, codexProfile } from "../../src/lanes/codex.ts";
import { unwrapCodexError } from "../../src/lanes/codex_stream.ts";
import { classifyHint } from "../../src/lanes/hints.ts";
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

const parse = (lines: string[], interrupted = false) => parseLines(codexProfile, lines, { interrupted });
const fx = (name: string) => fixtureLines("codex", name);
const of = eventsOfType;

Deno.test("codex parser maps a text turn: thread id, turn marker, message, usage, completion", () => {
  const { events, sessionIds } = parse(fx("text"));
  assert.deepEqual(typesOf(events), [
    "run_started",
    "notice~",
    "message_received",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.equal(of(events, "run_started")[0]!.data.provider_session_id, "01a22b0b-970a-7eb0-b146-2d70f5274bbf");
  assert.deepEqual(sessionIds, ["01a22b0b-970a-7eb0-b146-2d70f5274bbf"]);
  assert.equal(of(events, "message_received")[0]!.data.content, "Hello there, operator.");
  assert.deepEqual(of(events, "token_usage_updated")[0]!.data, {
    input_tokens: 200,
    output_tokens: 30,
    cached_input_tokens: 0,
    reasoning_output_tokens: 0,
  });
  assert.equal(of(events, "run_completed")[0]!.data.stop_reason, "end_turn");
});

Deno.test("codex parser maps command_execution to shell tool events with <turn>:<item> ids", () => {
  const { events } = parse(fx("bash"));
  const start = of(events, "tool_call_started")[0]!.data;
  assert.deepEqual(start, {
    tool_call_id: "1:item_0",
    tool_name: "shell",
    tool_input: { command: "/bin/bash -lc 'echo hi from the shell'" },
  });
  const done = of(events, "tool_call_completed")[0]!.data;
  assert.equal(done.tool_call_id, "1:item_0");
  assert.equal(done.tool_output, "hi from the shell\n");
  assert.equal(done.exit_code, 0);
});

Deno.test("codex parser fails a command with a non-zero exit code", () => {
  const line = fx("bash").find((l) => l.includes('"item.completed"') && l.includes("command_execution"))!;
  const failing = line.replace('"exit_code":0', '"exit_code":2').replace('"status":"completed"', '"status":"failed"');
  const { events } = parse([fx("bash")[0]!, fx("bash")[1]!, failing]);
  const failed = of(events, "tool_call_failed")[0]!.data;
  assert.equal(failed.exit_code, 2);
  assert.equal(failed.is_error, true);
  // The completion had no start line: a start is synthesised first.
  assert.deepEqual(typesOf(visible(events)), ["run_started", "tool_call_started", "tool_call_failed"]);
});

Deno.test("codex parser maps file_change (path-only) and synthesises a missing start", () => {
  for (const [name, kind] of [["write", "add"], ["edit", "update"]] as const) {
    const { events } = parse(fx(name));
    const start = of(events, "tool_call_started")[0]!.data;
    assert.equal(start.tool_name, "file_change");
    const changes = start.tool_input["changes"] as { path: string; kind: string }[];
    assert.equal(changes.length, 1);
    assert.equal(changes[0]!.kind, kind);
    assert.match(changes[0]!.path, /^\/scratch\/e2e\/repo\//);
    const done = of(events, "tool_call_completed")[0]!.data;
    assert.equal(done.tool_call_id, start.tool_call_id);
    assert.equal(done.result_meta, undefined);
  }
  const withoutStart = fx("edit").filter((l) => !l.includes('"item.started"'));
  const { events } = parse(withoutStart);
  const starts = of(events, "tool_call_started");
  assert.equal(starts.length, 1);
  assert.equal(starts[0]!.data.tool_name, "file_change");
  const idxStart = events.indexOf(starts[0]!);
  const idxDone = events.findIndex((e) => e.type === "tool_call_completed");
  assert.equal(idxDone, idxStart + 1);
});

Deno.test("codex parser restarts item ids per turn without collisions", () => {
  const lines = fx("bash");
  const twoTurns = [...lines.slice(0, -1), ...lines.slice(1)];
  const ids = of(parse(twoTurns).events, "tool_call_started").map((e) => e.data.tool_call_id);
  assert.deepEqual(ids, ["1:item_0", "2:item_0"]);
});

Deno.test("codex parser maps reasoning to thinking and reports reasoning tokens", () => {
  const { events } = parse(fx("thinking"));
  const msgs = of(events, "message_received");
  assert.equal(msgs[0]!.data.kind, "thinking");
  assert.match(msgs[0]!.data.content, /think this through/);
  assert.equal(msgs[1]!.data.kind, undefined);
  assert.equal(of(events, "token_usage_updated")[0]!.data.reasoning_output_tokens, 12);
});

Deno.test("codex parser unwraps a JSON error message and emits one error_occurred before run_failed", () => {
  const { events } = parse(fx("error_400"));
  assert.deepEqual(typesOf(visible(events)), ["run_started", "error_occurred", "run_failed"]);
  const err = of(events, "error_occurred")[0]!.data;
  assert.equal(err.error_message, "fake invalid_request_error (HTTP 400)");
  assert.equal(err.error_code, "invalid_request_error");
  assert.equal(of(events, "run_failed")[0]!.data.error_message, "fake invalid_request_error (HTTP 400)");
});

Deno.test("unwrapCodexError() reads codes from prefixed JSON bodies and statuses from text", () => {
  assert.deepEqual(
    unwrapCodexError(
      'unexpected status 429 Too Many Requests: {"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}',
    ),
    { message: "You exceeded your current quota", code: "insufficient_quota", status: 429 },
  );
  assert.deepEqual(unwrapCodexError("exceeded retry limit, last status: 429 Too Many Requests"), {
    message: "exceeded retry limit, last status: 429 Too Many Requests",
    code: null,
    status: 429,
  });
  assert.deepEqual(unwrapCodexError("stream disconnected before completion"), {
    message: "stream disconnected before completion",
    code: null,
    status: null,
  });
});

Deno.test("codex failure hints classify quota, auth, model and disconnect errors", () => {
  const h = (kind: string, message: string, status: number | null = null) =>
    classifyHint(codexProfile.failureHints, { kind, message, status });
  assert.deepEqual(h("insufficient_quota", "You exceeded your current quota", 429), {
    class: "provider_rate_limit",
    recovery: { class: "provider_rate_limit", retryable: false },
    note: null,
  });
  assert.equal(h("invalid_api_key", "Incorrect API key provided")?.class, "provider_auth_claim");
  assert.equal(h("http_401", "unauthorized", 401)?.class, "provider_auth_claim");
  assert.equal(h("model_not_found", "The model `x` does not exist")?.class, "provider_config_claim");
  assert.equal(h("codex_error", "stream disconnected before completion")?.class, "transport_disconnect");
  assert.equal(h("codex_error", "something else entirely"), null);
});

Deno.test("codex parser turns 'Reconnecting...' errors into warnings, not failures", () => {
  const { events } = parse([fx("text")[0]!, JSON.stringify({ type: "error", message: "Reconnecting... 1/5" })]);
  assert.equal(of(events, "error_occurred").length, 0);
  assert.deepEqual(of(events, "notice").filter((n) => !n.hidden)[0]!.data, {
    level: "warning",
    code: "reconnecting",
    message: "Reconnecting... 1/5",
  });
});

Deno.test("codex session: recorded errors end with the lane's hint classes", async () => {
  const expected: Record<string, string | null> = {
    error_400: null,
    error_429: "provider_rate_limit",
    error_500: "provider_capacity",
  };
  for (const [name, hint] of Object.entries(expected)) {
    await using dir = await tempDir();
    const r = await replayFixture(codexLane, "codex_opts", { lane: "codex", name }, dir.path);
    assert.equal(r.end.kind, "error", name);
    if (r.end.kind !== "error") continue;
    assert.equal(r.end.hintClass, hint, name);
    assert.equal(r.end.exitCode, 1);
    assert.match(r.end.stderrTail, /Reading additional input from stdin/);
  }
});

Deno.test("codex session: SIGINT mid-stream and mid-tool end as run_cancelled after turn.started readiness", async () => {
  for (const name of ["sigint_stream", "sigint_tool"]) {
    await using dir = await tempDir();
    const r = await replayFixture(codexLane, "codex_opts", { lane: "codex", name }, dir.path, { interrupt: true });
    assert.ok(r.readyBeforeEnd, name);
    assert.deepEqual(r.end, { kind: "cancelled", reason: "interrupted_for_steer", interrupted: true });
    assert.equal(r.events[r.events.length - 1]!.type, "run_cancelled");
    assert.equal(r.events.filter((e) => e.type === "run_failed").length, 0);
  }
});

Deno.test("codex session: not ready before turn.started", async () => {
  await using dir = await tempDir();
  const lines = fx("text").slice(0, 1); // thread.started only
  const { writeReplayCli, startWithCli, drain } = await import("./_support.ts");
  const cli = await writeReplayCli(dir.path, { lines, exitCode: 0 });
  const session = startWithCli(codexLane, cli.path, "codex_opts", { cwd: dir.path });
  const ready = session.whenReady().then(() => session.isReady());
  const { end } = await drain(session);
  assert.equal(await ready, false);
  assert.equal(end.kind, "error");
  assert.equal(session.sessionId, "01a22b0b-970a-7eb0-b146-2d70f5274bbf");
});

Deno.test("codex session: killed by SIGTERM without turn end → transport_exit", async () => {
  await using dir = await tempDir();
  const r = await replayFixture(codexLane, "codex_opts", { lane: "codex", name: "sigterm_stream" }, dir.path);
  assert.equal(r.end.kind, "error");
  if (r.end.kind !== "error") return;
  assert.equal(r.end.code, "transport_exit");
  assert.equal(r.end.hintClass, "transport_disconnect");
  assert.equal(r.end.exitCode, null);
  assert.match(r.end.message, /codex was killed by SIGTERM without a result/);
});

Deno.test("codex session: resume keeps the thread id and passes the sandbox through -c", async () => {
  await using dir = await tempDir();
  const id = (fixtureMeta("codex", "resume")["setup"] as { session_id: string }[])[0]!.session_id;
  const r = await replayFixture(codexLane, "codex_opts", { lane: "codex", name: "resume" }, dir.path, {
    spec: { resumeSessionId: id, prompt: "Next.", options: testOptions({ permission_mode: "auto" }) },
  });
  assert.deepEqual(r.end, { kind: "ok" });
  assert.equal(r.session.sessionId, id);
  assert.equal(of(r.events, "run_started")[0]!.data.provider_session_id, id);
  assert.deepEqual(r.argv, [
    "exec",
    "resume",
    "--json",
    "--skip-git-repo-check",
    "-c",
    'approval_policy="never"',
    "-c",
    'sandbox_mode="workspace-write"',
    id,
    "Next.",
  ]);
});

Deno.test("codex session: resume with no rollout reports sessionNotFound after an empty stdout", async () => {
  await using dir = await tempDir();
  const r = await replayFixture(codexLane, "codex_opts", { lane: "codex", name: "resume_unknown" }, dir.path, {
    spec: { resumeSessionId: "01a22b0b-c187-7188-a998-3a45325bd1a7", streamKind: "steer" },
  });
  assert.equal(r.end.kind, "error");
  if (r.end.kind !== "error") return;
  assert.equal(r.end.sessionNotFound, true);
  assert.equal(r.end.code, "transport_exit");
  assert.match(r.end.message, /no rollout found/);
  // Nothing started: no run_started, so the runner does not count the steer as delivered.
  assert.deepEqual(typesOf(r.events), ["message_sent~", "error_occurred", "run_failed"]);
});

Deno.test("codex command builder maps permission modes and never uses -s/-C on resume", () => {
  const modes: Record<PermissionMode, string[]> = {
    default: ["-s", "read-only"],
    auto: ["-s", "workspace-write"],
    bypass: ["--dangerously-bypass-approvals-and-sandbox"],
    plan: ["-s", "read-only"],
  };
  for (const [mode, flags] of Object.entries(modes)) {
    const spec = testSpec({ cwd: "/w/repo", options: testOptions({ permission_mode: mode as PermissionMode }) });
    const args = codexProfile.buildCommand(spec);
    const at = args.indexOf(flags[0]!);
    assert.deepEqual(args.slice(at, at + flags.length), flags, mode);
    assert.ok(args.includes('approval_policy="never"'), mode);
    const resume = codexProfile.buildResume("tid", spec);
    assert.equal(resume.includes("-s"), false);
    assert.equal(resume.includes("-C"), false);
    assert.equal(resume.includes("--dangerously-bypass-approvals-and-sandbox"), false);
  }
  const full = codexProfile.buildCommand(testSpec({
    cwd: "/w/repo",
    extraDirs: ["/w/other"],
    options: testOptions({ model: "gpt-5.5", reasoning_effort: "high", permission_mode: "auto" }),
  }));
  assert.deepEqual(full, [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-m",
    "gpt-5.5",
    "-c",
    'model_reasoning_effort="high"',
    "-c",
    'approval_policy="never"',
    "-s",
    "workspace-write",
    "-C",
    "/w/repo",
    "--add-dir",
    "/w/other",
    "Do the thing.",
  ]);
  const bypassResume = codexProfile.buildResume(
    "tid",
    testSpec({ options: testOptions({ permission_mode: "bypass" }) }),
  );
  assert.ok(bypassResume.includes('sandbox_mode="danger-full-access"'));
  assert.deepEqual(codexProfile.buildCommand(testSpec({ prompt: "-x starts with a dash" })).slice(-2), [
    "--",
    "-x starts with a dash",
  ]);
});

Deno.test("codex under agent control: shell commands are non-login (PATH keeps the shim) and resume keeps writable roots", () => {
  const dir = "/s/runs/r/agent-control/01-i1-a1";
  const spec = testSpec({
    cwd: "/w/repo",
    extraDirs: ["/w/other", dir],
    env: { PROMPT_RUNNER_AGENT_CONTROL_DIR: dir, PATH: `/s/runs/r/agent-control/bin:/usr/bin` },
    options: testOptions({ permission_mode: "auto" }),
  });
  const fresh = codexProfile.buildCommand(spec);
  assert.ok(fresh.includes("allow_login_shell=false"), fresh.join(" "));
  assert.deepEqual(fresh.slice(fresh.indexOf("--add-dir"), -1), ["--add-dir", "/w/other", "--add-dir", dir]);
  const resume = codexProfile.buildResume("tid", spec);
  assert.ok(resume.includes("allow_login_shell=false"), resume.join(" "));
  assert.ok(
    resume.includes(`sandbox_workspace_write.writable_roots=["/w/other","${dir}"]`),
    `the resumed session can still write the private directory: ${resume.join(" ")}`,
  );
  // Without agent control a session keeps codex's login shells; without extra directories resume adds no roots.
  const plain = testSpec({ options: testOptions({ permission_mode: "auto" }) });
  assert.ok(!codexProfile.buildCommand(plain).includes("allow_login_shell=false"));
  assert.ok(!codexProfile.buildResume("tid", plain).some((a) => a.startsWith("sandbox_workspace_write")));
});
