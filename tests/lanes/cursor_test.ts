import assert from "node:assert/strict";
import { cursorLane, cursorProfile } from "../../src/lanes/cursor.ts";
import type { PermissionMode } from "../../src/packet/types.ts";
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

Deno.test("cursor parser: thinking, deduplicated deltas, final snapshot, tools with diff meta, usage", () => {
  const { events, sessionIds } = parseLines(cursorProfile, fixtureLines("cursor", "edit_turn"));
  assert.deepEqual(typesOf(visible(events)), [
    "run_started",
    "message_streamed",
    "message_streamed",
    "message_streamed",
    "message_received",
    "tool_call_started",
    "tool_call_completed",
    "tool_call_started",
    "tool_call_failed",
    "tool_call_started",
    "tool_call_completed",
    "notice",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.equal(sessionIds[0], "c6b62c6f-7ead-4fd6-9922-e952131177ff");
  const streamed = of(events, "message_streamed");
  assert.equal(streamed[0]!.data.kind, "thinking");
  assert.deepEqual(streamed.slice(1).map((e) => e.data.delta), ["I'll edit ", "the file."]);
  assert.equal(of(events, "message_received")[0]!.data.content, "I'll edit the file.");
  // The echoed prompt equals the prompt: no extra message_sent.
  assert.equal(of(events, "message_sent").length, 0);
  const edit = of(events, "tool_call_completed")[0]!.data;
  assert.equal(edit.tool_name, "edit");
  assert.equal(edit.result_meta?.["linesAdded"], 1);
  assert.equal(edit.result_meta?.["linesRemoved"], 1);
  assert.match(String(edit.result_meta?.["diffString"]), /\+BETA/);
  assert.equal(edit.result_meta?.["beforeFullFileContent"], undefined);
  const failed = of(events, "tool_call_failed")[0]!.data;
  assert.equal(failed.tool_name, "shell");
  assert.equal(failed.exit_code, 2);
  assert.match(failed.tool_output, /cannot access/);
  const ok = of(events, "tool_call_completed")[1]!.data;
  assert.equal(ok.tool_output, "ok\n");
  assert.equal(ok.exit_code, 0);
  assert.deepEqual(of(events, "token_usage_updated")[0]!.data, {
    input_tokens: 1200,
    output_tokens: 80,
    cached_input_tokens: 300,
  });
});

Deno.test("cursor parser: an echoed user message that differs is recorded as hidden message_sent", () => {
  const line = JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "other" }] } });
  const { events } = parseLines(cursorProfile, [line]);
  assert.deepEqual(events, [{ type: "message_sent", hidden: true, data: { content: "other", role: "user" } }]);
});

Deno.test("cursor session: an error result is a provider_auth_claim; a bare non-zero exit uses stderr hints", async () => {
  await using dir = await tempDir();
  const cli = await writeReplayCli(dir.path, { lines: fixtureLines("cursor", "error"), exitCode: 1 });
  const { end } = await drain(startWithCli(cursorLane, cli.path, "cursor_opts", { cwd: dir.path }));
  assert.equal(end.kind === "error" && end.code, "error");
  assert.equal(end.kind === "error" && end.hintClass, "provider_auth_claim");

  await using dir2 = await tempDir();
  const bare = await writeReplayCli(dir2.path, { lines: [], stderr: "Error: usage limit reached\n", exitCode: 1 });
  const r2 = await drain(startWithCli(cursorLane, bare.path, "cursor_opts", { cwd: dir2.path }));
  assert.equal(r2.end.kind === "error" && r2.end.code, "transport_exit");
  assert.equal(r2.end.kind === "error" && r2.end.hintClass, "provider_rate_limit");
});

Deno.test("cursor command builder: --trust always, --force for bypass, --mode plan, prompt last, resume", () => {
  const expect: Record<PermissionMode, string[]> = {
    default: [],
    auto: [],
    bypass: ["--force"],
    plan: ["--mode", "plan"],
  };
  for (const [mode, extra] of Object.entries(expect)) {
    const args = cursorProfile.buildCommand(
      testSpec({ cwd: "/w", options: testOptions({ permission_mode: mode as PermissionMode }) }),
    );
    assert.deepEqual(args, [
      "-p",
      "--trust",
      "--output-format",
      "stream-json",
      "--stream-partial-output",
      ...extra,
      "--workspace",
      "/w",
      "Do the thing.",
    ], mode);
  }
  const resume = cursorProfile.buildResume("sid", testSpec({ cwd: "/w" }));
  assert.deepEqual(resume.slice(0, 3), ["-p", "--resume", "sid"]);
  assert.equal(resume[resume.length - 1], "Do the thing.");
});
