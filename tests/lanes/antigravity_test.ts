import assert from "node:assert/strict";
import { antigravityLane, antigravityProfile, printTimeout } from "../../src/lanes/antigravity.ts";
import { tempDir } from "../support/fs.ts";
import {
  drain,
  eventsOfType,
  fixtureLines,
  parseLines,
  startWithCli,
  testOptions,
  testSpec,
  typesOf,
  visible,
  writeReplayCli,
} from "./_support.ts";

const of = eventsOfType;
const A = "c0ffee00-1111-2222-3333-444455556666";

Deno.test("antigravity parser maps init, thought and response deltas, one tool start per step, usage, result", () => {
  const { events, sessionIds } = parseLines(antigravityProfile, fixtureLines("antigravity", "tool_turn"));
  assert.deepEqual(typesOf(visible(events)), [
    "run_started",
    "message_streamed",
    "tool_call_started",
    "tool_call_completed",
    "notice",
    "message_streamed",
    "message_streamed",
    "token_usage_updated",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.equal(sessionIds[0], A);
  assert.equal(of(events, "run_started")[0]!.data.model, "gemini-3-pro");
  assert.equal(of(events, "message_streamed")[0]!.data.kind, "thinking");
  const tool = of(events, "tool_call_started")[0]!.data;
  assert.deepEqual(tool, {
    tool_call_id: "1",
    tool_name: "replace_file_content",
    tool_input: { TargetFile: "/scratch/e2e/repo/notes.txt" },
  });
  assert.equal(of(events, "tool_call_completed")[0]!.data.tool_call_id, "1");
  const text = of(events, "message_streamed").filter((e) => e.data.kind === undefined).map((e) => e.data.delta);
  assert.equal(text.join(""), "Updated notes.txt.");
  assert.deepEqual(of(events, "token_usage_updated")[0]!.data, { input_tokens: 900, output_tokens: 40 });
});

Deno.test("antigravity session: a non-SUCCESS result fails with the Google status hint", async () => {
  await using dir = await tempDir();
  const cli = await writeReplayCli(dir.path, { lines: fixtureLines("antigravity", "error"), exitCode: 1 });
  const { events, end } = await drain(startWithCli(antigravityLane, cli.path, "antigravity_opts", { cwd: dir.path }));
  assert.equal(end.kind, "error");
  if (end.kind !== "error") return;
  assert.equal(end.hintClass, "provider_rate_limit");
  assert.match(end.message, /RESOURCE_EXHAUSTED/);
  assert.equal(events[events.length - 1]!.type, "run_failed");
});

Deno.test("antigravity command builder: print timeout, bypass, plan, add-dir; resume by --conversation", () => {
  assert.equal(printTimeout(600_000), "600s");
  assert.equal(printTimeout(1), "1s");
  const args = antigravityProfile.buildCommand(testSpec({
    extraDirs: ["/w/b"],
    options: testOptions({
      model: "gemini-3-pro",
      reasoning_effort: "high",
      permission_mode: "bypass",
      timeout_ms: 90_000,
    }),
  }));
  assert.deepEqual(args, [
    "-p",
    "Do the thing.",
    "--output-format",
    "stream-json",
    "--print-timeout",
    "90s",
    "--model",
    "gemini-3-pro",
    "--effort",
    "high",
    "--dangerously-skip-permissions",
    "--add-dir",
    "/w/b",
  ]);
  const plan = antigravityProfile.buildCommand(testSpec({ options: testOptions({ permission_mode: "plan" }) }));
  assert.ok(plan.join(" ").includes("--mode plan"));
  const resume = antigravityProfile.buildResume(A, testSpec());
  assert.deepEqual(resume.slice(-2), ["--conversation", A]);
  assert.equal(resume.includes("--continue"), false);
});
