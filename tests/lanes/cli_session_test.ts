import assert from "node:assert/strict";
import { claudeLane } from "../../src/lanes/claude.ts";
import { codexLane } from "../../src/lanes/codex.ts";
import { readProcStat } from "../../src/util/proc_tree.ts";
import { LaunchError } from "../../src/lanes/types.ts";
import { tempDir } from "../support/fs.ts";
import { drain, startWithCli, testOptions, testSpec, typesOf } from "./_support.ts";

const INIT = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });

async function fakeCli(dir: string, body: string): Promise<string> {
  const path = `${dir}/cli.sh`;
  await Deno.writeTextFile(path, `#!/bin/bash\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

function alive(pid: number): boolean {
  const st = readProcStat(pid);
  return st !== null && st.state !== "Z";
}

Deno.test("CLI session: the session timeout ends the stream with transport_timeout", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `echo '${INIT}'; exec sleep 30`);
  const s = startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path, options: testOptions({ timeout_ms: 300 }) });
  const { events, end } = await drain(s);
  assert.equal(end.kind, "error");
  if (end.kind !== "error") return;
  assert.equal(end.code, "transport_timeout");
  assert.equal(end.hintClass, "transport_timeout");
  assert.match(end.message, /timeout of 300 ms/);
  assert.deepEqual(typesOf(events.slice(-2)), ["error_occurred", "run_failed"]);
  assert.equal(alive(s.process!.pid), false);
});

Deno.test("CLI session: a stdout line over 8 MiB is a protocol_error", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `echo '${INIT}'; head -c 9000000 /dev/zero | tr '\\0' a; echo; sleep 30`);
  const { end } = await drain(startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path }));
  assert.equal(end.kind, "error");
  if (end.kind !== "error") return;
  assert.equal(end.code, "protocol_error");
  assert.equal(end.hintClass, "protocol_error");
});

Deno.test("CLI session: a missing executable throws LaunchError from start()", async () => {
  await using dir = await tempDir();
  assert.throws(
    () => startWithCli(claudeLane, `${dir.path}/nope`, "claude_opts", { cwd: dir.path }),
    (e: unknown) => e instanceof LaunchError && e.message.includes("nope"),
  );
});

Deno.test("CLI session: PROMPT_RUNNER_<LANE>_CLI in the session env replaces the executable", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `echo '${INIT}'; echo '{"type":"result","subtype":"success","is_error":false}'`);
  const s = claudeLane.start(testSpec({ cwd: dir.path, env: { PROMPT_RUNNER_CLAUDE_CLI: cli } }));
  const { events, end } = await drain(s);
  assert.deepEqual(end, { kind: "ok" });
  const started = events.find((e) => e.type === "run_started");
  assert.equal(started?.type === "run_started" && started.data.command, cli);
});

Deno.test("CLI session: adapter env values are visible to the provider", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(
    dir.path,
    `echo '{"type":"thread.started","thread_id":"t-1"}'; printf '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"%s/%s"}}\\n' "$FROM_ADAPTER" "$FROM_SPEC"; echo '{"type":"turn.completed","usage":{}}'`,
  );
  const s = startWithCli(codexLane, cli, "codex_opts", {
    cwd: dir.path,
    env: { FROM_SPEC: "spec" },
    options: testOptions({ provider_opts: { adapter_opts: { env: { FROM_ADAPTER: "adapter" } } } }),
  });
  const { events } = await drain(s);
  const msg = events.find((e) => e.type === "message_received");
  assert.equal(msg?.type === "message_received" && msg.data.content, "adapter/spec");
});

Deno.test("CLI session: interrupt escalates past an ignored SIGINT, kills the tool child, ends run_cancelled", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(
    dir.path,
    [`trap '' INT`, `setsid sleep 300 & echo $! > child.pid`, `echo '${INIT}'`, `wait`].join("\n"),
  );
  const s = startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path });
  const drained = drain(s);
  await s.whenReady();
  assert.ok(s.isReady());
  const child = Number(await Deno.readTextFile(`${dir.path}/child.pid`));
  assert.ok(alive(child));
  await s.interrupt("operator_stop", 200);
  const { events, end } = await drained;
  assert.deepEqual(end, { kind: "cancelled", reason: "operator_stop", interrupted: true });
  assert.deepEqual(events[events.length - 1], { type: "run_cancelled", data: { reason: "operator_stop" } });
  assert.equal(alive(s.process!.pid), false);
  assert.equal(alive(child), false);
});

Deno.test("CLI session: kill() ends the stream as an operator stop", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `trap '' INT TERM; echo '${INIT}'; while :; do sleep 0.05; done`);
  const s = startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path });
  const drained = drain(s);
  await s.whenReady();
  s.kill();
  const { events, end } = await drained;
  assert.deepEqual(end, { kind: "cancelled", reason: "operator_stop", interrupted: true });
  assert.equal(events[events.length - 1]!.type, "run_cancelled");
});

Deno.test("CLI session: a consumer that stops early leaves no process behind", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `echo '${INIT}'; while :; do sleep 0.05; done`);
  const s = startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path });
  for await (const ev of s.events) {
    if (ev.type === "run_started") break;
  }
  assert.equal(alive(s.process!.pid), false);
  assert.equal(s.end().kind, "cancelled");
});

Deno.test("CLI session: claude readiness is init + 100 ms even with no further output", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(
    dir.path,
    `echo '${INIT}'; sleep 1; echo '{"type":"result","subtype":"success","is_error":false}'`,
  );
  const s = startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path });
  const drained = drain(s);
  assert.equal(s.isReady(), false);
  await s.whenReady();
  assert.equal(s.isReady(), true);
  const { end } = await drained;
  assert.deepEqual(end, { kind: "ok" });
});

Deno.test("CLI session: non-JSON output becomes a hidden notice and a visible event gets a synthesised run_started", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(
    dir.path,
    `echo 'warning: not json'; echo '{"type":"turn.started"}'; echo '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"}}'; echo '{"type":"turn.completed","usage":{}}'`,
  );
  const s = startWithCli(codexLane, cli, "codex_opts", {
    cwd: dir.path,
    options: testOptions({ model: "gpt-5.5", permission_mode: "auto" }),
  });
  const { events, end } = await drain(s);
  assert.deepEqual(end, { kind: "ok" });
  assert.deepEqual(typesOf(events), [
    "message_sent~",
    "notice~",
    "notice~",
    "run_started",
    "message_received",
    "token_usage_updated",
    "run_completed",
  ]);
  const started = events[3]!;
  assert.equal(started.type === "run_started" && started.data.model, "gpt-5.5");
  assert.equal(started.type === "run_started" && started.data.permission_mode, "auto");
  assert.equal(started.type === "run_started" && started.data.cwd, dir.path);
});

Deno.test("CLI session: a failing exit without a result reports exit code and stderr tail", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(dir.path, `echo "first line" >&2; echo "Error: --verbose is required" >&2; exit 1`);
  const { events, end } = await drain(startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path }));
  assert.equal(end.kind, "error");
  if (end.kind !== "error") return;
  assert.equal(end.code, "transport_exit");
  assert.equal(end.exitCode, 1);
  assert.equal(end.stderrTail, "first line\nError: --verbose is required\n");
  assert.match(end.message, /claude exited with code 1 without a result: Error: --verbose is required/);
  const failed = events[events.length - 1]!;
  assert.equal(failed.type === "run_failed" && failed.data.exit_code, 1);
  assert.equal(failed.type === "run_failed" && failed.data.stderr_tail, end.stderrTail);
});

Deno.test("CLI session: the root refusal of bypass mode is launch_failed with the IS_SANDBOX note", async () => {
  await using dir = await tempDir();
  const cli = await fakeCli(
    dir.path,
    `echo "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons" >&2; exit 1`,
  );
  const { end } = await drain(startWithCli(claudeLane, cli, "claude_opts", { cwd: dir.path }));
  assert.equal(end.kind === "error" && end.hintClass, "launch_failed");
  assert.match(end.kind === "error" ? end.message : "", /IS_SANDBOX=1/);
});

Deno.test("CLI session: lanes that only observe tools mark tools outside allowed_tools with a guardrail", async () => {
  await using dir = await tempDir();
  const lines = [
    `{"type":"thread.started","thread_id":"t-1"}`,
    `{"type":"turn.started"}`,
    `{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
    `{"type":"item.started","item":{"id":"item_1","type":"file_change","changes":[{"path":"a","kind":"add"}],"status":"in_progress"}}`,
    `{"type":"turn.completed","usage":{}}`,
  ];
  const cli = await fakeCli(dir.path, lines.map((l) => `echo '${l}'`).join("\n"));
  const s = startWithCli(codexLane, cli, "codex_opts", {
    cwd: dir.path,
    options: testOptions({ allowed_tools: ["File_Change"] }),
  });
  const { events } = await drain(s);
  const starts = events.filter((e) => e.type === "tool_call_started");
  assert.equal(starts.length, 2);
  const [shell, change] = starts;
  assert.deepEqual(shell?.type === "tool_call_started" && shell.data.guardrail, {
    tool: "shell",
    allowed_tools: ["File_Change"],
    reason: `tool "shell" (it needs Bash) is not in allowed_tools; the codex lane can only observe it after the fact`,
  });
  // The lane's own name (any case) is still accepted.
  assert.equal(change?.type === "tool_call_started" && change.data.guardrail, undefined);

  // The generic vocabulary: a shell call is Bash, an added file is Write.
  const generic = startWithCli(codexLane, cli, "codex_opts", {
    cwd: dir.path,
    options: testOptions({ allowed_tools: ["Read", "Write", "Bash"] }),
  });
  const genericStarts = (await drain(generic)).events.filter((e) => e.type === "tool_call_started");
  assert.equal(genericStarts.length, 2);
  for (const e of genericStarts) assert.equal(e.type === "tool_call_started" && e.data.guardrail, undefined);

  await using dir2 = await tempDir();
  const claudeCli = await fakeCli(
    dir2.path,
    `echo '${INIT}'; echo '{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}'`,
  );
  const c = startWithCli(claudeLane, claudeCli, "claude_opts", {
    cwd: dir2.path,
    options: testOptions({ allowed_tools: ["Edit"] }),
  });
  const ce = (await drain(c)).events.find((e) => e.type === "tool_call_started");
  // claude enforces the list itself: nothing to record.
  assert.equal(ce?.type === "tool_call_started" && ce.data.guardrail, undefined);
});
