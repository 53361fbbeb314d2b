import assert from "node:assert/strict";
import { ampLane, ampProfile } from "../../src/lanes/amp.ts";
import { LaunchError } from "../../src/lanes/types.ts";
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
const T = "T-5f2c7a1e-0d3b-4c8e-9a51-2b7e6f4d8c10";

Deno.test("amp parser maps Claude-shaped lines and sums usage once per message id", () => {
  const { events, sessionIds } = parseLines(ampProfile, fixtureLines("amp", "tool_turn"));
  assert.deepEqual(typesOf(visible(events)), [
    "run_started",
    "message_received",
    "token_usage_updated",
    "tool_call_started",
    "tool_call_completed",
    "tool_call_started",
    "token_usage_updated",
    "tool_call_failed",
    "message_received",
    "token_usage_updated",
    "run_completed",
  ]);
  assert.equal(sessionIds[0], T);
  assert.equal(of(events, "message_received")[0]!.data.kind, "thinking");
  const create = of(events, "tool_call_started")[0]!.data;
  assert.equal(create.tool_name, "create_file");
  assert.equal(create.tool_input["content"], "hello\n");
  assert.equal(of(events, "tool_call_completed")[0]!.data.tool_output, "Created /scratch/e2e/repo/hello.txt");
  const failed = of(events, "tool_call_failed")[0]!.data;
  assert.equal(failed.tool_name, "Bash");
  assert.match(failed.tool_output, /No such file/);
  const usage = of(events, "token_usage_updated").map((e) => e.data);
  // msg_01 appears on two lines but counts once: 100 + 150 + 160 input, 10 + 5 + 6 output.
  assert.deepEqual(usage[usage.length - 1], { input_tokens: 410, output_tokens: 21, cached_input_tokens: 20 });
  const done = of(events, "run_completed")[0]!.data;
  assert.equal(done.num_turns, 3);
  assert.equal(done.duration_ms, 4200);
});

Deno.test("amp parser maps an error result to error_occurred + run_failed with its message", () => {
  const { events } = parseLines(ampProfile, fixtureLines("amp", "error"));
  const failed = of(events, "run_failed")[0]!.data;
  assert.equal(failed.error_code, "error_during_execution");
  assert.equal(failed.error_message, "Out of credits: too many requests for this plan");
  assert.equal(of(events, "error_occurred").length, 1);
});

Deno.test("amp session: ready 100 ms after the first event; replayed stream ends ok", async () => {
  await using dir = await tempDir();
  const lines = fixtureLines("amp", "tool_turn");
  await Deno.writeTextFile(`${dir.path}/rest.jsonl`, lines.slice(1).join("\n") + "\n");
  const cli = await writeReplayCli(dir.path, { lines: [lines[0]!], exitCode: 0 });
  // Print the init line, stay silent past the readiness delay, then print the rest.
  const script = await Deno.readTextFile(cli.path);
  await Deno.writeTextFile(cli.path, script.replace(/\nexit 0\n$/, `\nsleep 0.4\ncat rest.jsonl\nexit 0\n`));
  const s = startWithCli(ampLane, cli.path, "amp_opts", { cwd: dir.path });
  const drained = drain(s);
  await s.whenReady();
  assert.equal(s.isReady(), true);
  // Ready while the stream is still live.
  assert.throws(() => s.end(), /only valid after/);
  const { end } = await drained;
  assert.deepEqual(end, { kind: "ok" });
  assert.equal(s.sessionId, T);
});

Deno.test("amp command builder: bypass flag, mode option, resume via threads continue, plan refused", () => {
  const args = ampProfile.buildCommand(testSpec({
    options: testOptions({ model: "x", permission_mode: "bypass", provider_opts: { amp_opts: { mode: "rush" } } }),
  }));
  assert.deepEqual(args, [
    "-x",
    "Do the thing.",
    "--stream-json",
    "--no-ide",
    "--no-notifications",
    "--no-color",
    "--stream-json-thinking",
    "--dangerously-allow-all",
    "--mode",
    "rush",
    "--model",
    "x",
  ]);
  for (const mode of ["default", "auto"] as const) {
    const a = ampProfile.buildCommand(testSpec({ options: testOptions({ permission_mode: mode }) }));
    assert.equal(a.includes("--dangerously-allow-all"), false);
  }
  const resume = ampProfile.buildResume(T, testSpec());
  assert.deepEqual(resume.slice(0, 5), ["threads", "continue", T, "-x", "Do the thing."]);
  assert.throws(
    () => ampProfile.buildCommand(testSpec({ options: testOptions({ permission_mode: "plan" }) })),
    (e: unknown) => e instanceof LaunchError && /plan/.test(e.message),
  );
});
