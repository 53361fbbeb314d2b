/**
 * The CLI lanes parsed from recorded captures (amp, antigravity, cursor), table-driven: one shared test body, each
 * lane supplying its fixtures and expectations (as data where the lanes agree, as a `check` where they differ).
 */
import assert from "node:assert/strict";
import type { ProviderEvent } from "../../src/events/types.ts";
import type { CliProfile } from "../../src/lanes/profile.ts";
import { type Lane, LaunchError, type StreamEnd } from "../../src/lanes/types.ts";
import { ampLane, ampProfile } from "../../src/lanes/amp.ts";
import { antigravityLane, antigravityProfile, printTimeout } from "../../src/lanes/antigravity.ts";
import { cursorLane, cursorProfile } from "../../src/lanes/cursor.ts";
import type { PermissionMode } from "../../src/packet/types.ts";
import { tempDir } from "../support/fs.ts";
import { drain, eventsOfType as of, fixtureLines, parseLines, startWithCli, testOptions } from "./_support.ts";
import { testSpec, typesOf, visible, writeReplayCli } from "./_support.ts";

type ErrorEnd = Extract<StreamEnd, { kind: "error" }>;

/** What one lane supplies to the shared tests. */
interface CliLaneCase {
  name: string;
  lane: Lane;
  profile: CliProfile;
  /** The lane's provider option bag key. */
  optsKey: string;
  /** A recorded successful turn, parsed. */
  turn: {
    fixture: string;
    title: string;
    /** Visible event types, space-separated. */
    types: string;
    sessionId: string;
    /** The event type whose first instance is the thinking (`message_received` or `message_streamed`). */
    thinking: "message_received" | "message_streamed";
    /** The first (or last) token usage. */
    usage: { at: 0 | -1; is: Record<string, number> };
    /** The first failed tool call, when the turn has one. */
    failedTool?: { name: string; output: RegExp };
    check(events: ProviderEvent[]): void;
  };
  /** A recorded failing turn replayed by a fake CLI that exits 1: the session ends in error. */
  error: { fixture: string; title: string; check(end: ErrorEnd, events: ProviderEvent[]): void };
  commands: { title: string; check(): void };
  /** Tests of this lane only. */
  more?: { title: string; fn(): void | Promise<void> }[];
}

const words = (s: string): string[] => s.split(" ");
const T = "T-5f2c7a1e-0d3b-4c8e-9a51-2b7e6f4d8c10";
const A = "c0ffee00-1111-2222-3333-444455556666";
const withMode = (permission_mode: PermissionMode) => testSpec({ options: testOptions({ permission_mode }) });

const amp: CliLaneCase = {
  name: "amp",
  lane: ampLane,
  profile: ampProfile,
  optsKey: "amp_opts",
  turn: {
    fixture: "tool_turn",
    title: "maps Claude-shaped lines and sums usage once per message id",
    types: "run_started message_received token_usage_updated tool_call_started tool_call_completed " +
      "tool_call_started token_usage_updated tool_call_failed message_received token_usage_updated run_completed",
    sessionId: T,
    thinking: "message_received",
    // msg_01 appears on two lines but counts once: 100 + 150 + 160 input, 10 + 5 + 6 output.
    usage: { at: -1, is: { input_tokens: 410, output_tokens: 21, cached_input_tokens: 20 } },
    failedTool: { name: "Bash", output: /No such file/ },
    check(events) {
      const create = of(events, "tool_call_started")[0]!.data;
      assert.equal(create.tool_name, "create_file");
      assert.equal(create.tool_input["content"], "hello\n");
      assert.equal(of(events, "tool_call_completed")[0]!.data.tool_output, "Created /scratch/e2e/repo/hello.txt");
      const done = of(events, "run_completed")[0]!.data;
      assert.deepEqual([done.num_turns, done.duration_ms], [3, 4200]);
    },
  },
  error: {
    fixture: "error",
    title: "an error result maps to error_occurred + run_failed with its message",
    check(_end, events) {
      const failed = of(events, "run_failed")[0]!.data;
      assert.equal(failed.error_code, "error_during_execution");
      assert.equal(failed.error_message, "Out of credits: too many requests for this plan");
      assert.equal(of(events, "error_occurred").length, 1);
    },
  },
  commands: {
    title: "bypass flag, mode option, resume via threads continue, plan refused",
    check() {
      const opts = { model: "x", permission_mode: "bypass" as const, provider_opts: { amp_opts: { mode: "rush" } } };
      assert.deepEqual(ampProfile.buildCommand(testSpec({ options: testOptions(opts) })), [
        "-x",
        "Do the thing.",
        ...words("--stream-json --no-ide --no-notifications --no-color --stream-json-thinking"),
        ...words("--dangerously-allow-all --mode rush --model x"),
      ]);
      for (const mode of ["default", "auto"] as const) {
        assert.equal(ampProfile.buildCommand(withMode(mode)).includes("--dangerously-allow-all"), false);
      }
      const resume = ampProfile.buildResume(T, testSpec());
      assert.deepEqual(resume.slice(0, 5), ["threads", "continue", T, "-x", "Do the thing."]);
      assert.throws(
        () => ampProfile.buildCommand(withMode("plan")),
        (e: unknown) => e instanceof LaunchError && /plan/.test(e.message),
      );
    },
  },
  more: [{
    title: "session: ready 100 ms after the first event; replayed stream ends ok",
    async fn() {
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
      assert.throws(() => s.end(), /only valid after/, "ready while the stream is still live");
      assert.deepEqual((await drained).end, { kind: "ok" });
      assert.equal(s.sessionId, T);
    },
  }],
};

const antigravity: CliLaneCase = {
  name: "antigravity",
  lane: antigravityLane,
  profile: antigravityProfile,
  optsKey: "antigravity_opts",
  turn: {
    fixture: "tool_turn",
    title: "maps init, thought and response deltas, one tool start per step, usage, result",
    types: "run_started message_streamed tool_call_started tool_call_completed notice message_streamed " +
      "message_streamed token_usage_updated token_usage_updated run_completed",
    sessionId: A,
    thinking: "message_streamed",
    usage: { at: 0, is: { input_tokens: 900, output_tokens: 40 } },
    check(events) {
      assert.equal(of(events, "run_started")[0]!.data.model, "gemini-3-pro");
      assert.deepEqual(of(events, "tool_call_started")[0]!.data, {
        tool_call_id: "1",
        tool_name: "replace_file_content",
        tool_input: { TargetFile: "/scratch/e2e/repo/notes.txt" },
      });
      assert.equal(of(events, "tool_call_completed")[0]!.data.tool_call_id, "1");
      const text = of(events, "message_streamed").filter((e) => e.data.kind === undefined).map((e) => e.data.delta);
      assert.equal(text.join(""), "Updated notes.txt.");
    },
  },
  error: {
    fixture: "error",
    title: "a non-SUCCESS result fails with the Google status hint",
    check(end, events) {
      assert.equal(end.hintClass, "provider_rate_limit");
      assert.match(end.message, /RESOURCE_EXHAUSTED/);
      assert.equal(events[events.length - 1]!.type, "run_failed");
    },
  },
  commands: {
    title: "print timeout, bypass, plan, add-dir; resume by --conversation",
    check() {
      assert.deepEqual([printTimeout(600_000), printTimeout(1)], ["600s", "1s"]);
      const opts = { model: "gemini-3-pro", reasoning_effort: "high", permission_mode: "bypass" as const };
      const args = antigravityProfile.buildCommand(
        testSpec({ extraDirs: ["/w/b"], options: testOptions({ ...opts, timeout_ms: 90_000 }) }),
      );
      assert.deepEqual(args, [
        "-p",
        "Do the thing.",
        ...words("--output-format stream-json --print-timeout 90s --model gemini-3-pro --effort high"),
        ...words("--dangerously-skip-permissions --add-dir /w/b"),
      ]);
      assert.ok(antigravityProfile.buildCommand(withMode("plan")).join(" ").includes("--mode plan"));
      const resume = antigravityProfile.buildResume(A, testSpec());
      assert.deepEqual(resume.slice(-2), ["--conversation", A]);
      assert.equal(resume.includes("--continue"), false);
    },
  },
};

const cursor: CliLaneCase = {
  name: "cursor",
  lane: cursorLane,
  profile: cursorProfile,
  optsKey: "cursor_opts",
  turn: {
    fixture: "edit_turn",
    title: "thinking, deduplicated deltas, final snapshot, tools with diff meta, usage",
    types: "run_started message_streamed message_streamed message_streamed message_received tool_call_started " +
      "tool_call_completed tool_call_started tool_call_failed tool_call_started tool_call_completed notice " +
      "token_usage_updated run_completed",
    sessionId: "c6b62c6f-7ead-4fd6-9922-e952131177ff",
    thinking: "message_streamed",
    usage: { at: 0, is: { input_tokens: 1200, output_tokens: 80, cached_input_tokens: 300 } },
    failedTool: { name: "shell", output: /cannot access/ },
    check(events) {
      assert.deepEqual(of(events, "message_streamed").slice(1).map((e) => e.data.delta), ["I'll edit ", "the file."]);
      assert.equal(of(events, "message_received")[0]!.data.content, "I'll edit the file.");
      assert.equal(of(events, "message_sent").length, 0, "the echoed prompt equals the prompt: no message_sent");
      const edit = of(events, "tool_call_completed")[0]!.data;
      assert.equal(edit.tool_name, "edit");
      const meta = edit.result_meta ?? {};
      assert.deepEqual([meta["linesAdded"], meta["linesRemoved"], meta["beforeFullFileContent"]], [1, 1, undefined]);
      assert.match(String(meta["diffString"]), /\+BETA/);
      assert.equal(of(events, "tool_call_failed")[0]!.data.exit_code, 2);
      const ok = of(events, "tool_call_completed")[1]!.data;
      assert.deepEqual([ok.tool_output, ok.exit_code], ["ok\n", 0]);
    },
  },
  error: {
    fixture: "error",
    title: "an error result is a provider_auth_claim",
    check(end) {
      assert.deepEqual([end.code, end.hintClass], ["error", "provider_auth_claim"]);
    },
  },
  commands: {
    title: "--trust always, --force for bypass, --mode plan, prompt last, resume",
    check() {
      const extra: Record<PermissionMode, string[]> = {
        default: [],
        auto: [],
        bypass: ["--force"],
        plan: ["--mode", "plan"],
      };
      for (const [mode, flags] of Object.entries(extra)) {
        const args = cursorProfile.buildCommand(
          testSpec({ cwd: "/w", options: testOptions({ permission_mode: mode as PermissionMode }) }),
        );
        const head = words("-p --trust --output-format stream-json --stream-partial-output");
        assert.deepEqual(args, [...head, ...flags, "--workspace", "/w", "Do the thing."], mode);
      }
      const resume = cursorProfile.buildResume("sid", testSpec({ cwd: "/w" }));
      assert.deepEqual(resume.slice(0, 3), ["-p", "--resume", "sid"]);
      assert.equal(resume[resume.length - 1], "Do the thing.");
    },
  },
  more: [{
    title: "parser: an echoed user message that differs is recorded as hidden message_sent",
    fn() {
      const line = JSON.stringify({
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "other" }] },
      });
      const { events } = parseLines(cursorProfile, [line]);
      assert.deepEqual(events, [{ type: "message_sent", hidden: true, data: { content: "other", role: "user" } }]);
    },
  }, {
    title: "session: a bare non-zero exit uses stderr hints",
    async fn() {
      await using dir = await tempDir();
      const bare = await writeReplayCli(dir.path, { lines: [], stderr: "Error: usage limit reached\n", exitCode: 1 });
      const { end } = await drain(startWithCli(cursorLane, bare.path, "cursor_opts", { cwd: dir.path }));
      assert.deepEqual(end.kind === "error" && [end.code, end.hintClass], ["transport_exit", "provider_rate_limit"]);
    },
  }],
};

for (const c of [amp, antigravity, cursor]) {
  Deno.test(`${c.name} parser: ${c.turn.title}`, () => {
    const t = c.turn;
    const { events, sessionIds } = parseLines(c.profile, fixtureLines(c.name, t.fixture));
    assert.deepEqual(typesOf(visible(events)), words(t.types));
    assert.equal(sessionIds[0], t.sessionId);
    assert.equal(of(events, t.thinking)[0]!.data.kind, "thinking");
    assert.deepEqual(of(events, "token_usage_updated").at(t.usage.at)!.data, t.usage.is);
    if (t.failedTool) {
      const failed = of(events, "tool_call_failed")[0]!.data;
      assert.equal(failed.tool_name, t.failedTool.name);
      assert.match(failed.tool_output, t.failedTool.output);
    }
    t.check(events);
  });
  Deno.test(`${c.name} session: ${c.error.title}`, async () => {
    await using dir = await tempDir();
    const cli = await writeReplayCli(dir.path, { lines: fixtureLines(c.name, c.error.fixture), exitCode: 1 });
    const { events, end } = await drain(startWithCli(c.lane, cli.path, c.optsKey, { cwd: dir.path }));
    assert.equal(end.kind, "error");
    if (end.kind === "error") c.error.check(end, events);
  });
  Deno.test(`${c.name} command builder: ${c.commands.title}`, () => c.commands.check());
  for (const t of c.more ?? []) Deno.test(`${c.name} ${t.title}`, t.fn);
}
