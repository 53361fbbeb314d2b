/**
 * The claude `stream_json` transport against recorded captures (tests/fixtures/lanes/claude/stream_json_*.jsonl,
 * scripts/record_stream_json_fixtures.ts): the canonical events are the exec transport's for the same turn, input
 * written into the running turn is acknowledged by its echo and appears as one visible user message after the tool's
 * result, an in-process interrupt ends the tool and the same process answers the guidance in a second turn — and
 * stdin is closed exactly when the last turn ended with nothing unanswered.
 */
import assert from "node:assert/strict";
import { CLAUDE_STREAM_INPUT, claudeProfile } from "../../src/lanes/claude.ts";
import { LiveInput } from "../../src/lanes/live_input.ts";
import { parseJsonObject } from "../../src/lanes/_json.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { InputRefused } from "../../src/lanes/types.ts";
import { fixtureLines, fixtureMeta, parseLines, testSpec, typesOf, visible } from "./_support.ts";

interface Replayed {
  events: ProviderEvent[];
  written: string[];
  /** Index of the stdout line after which stdin was closed, or -1. */
  closedAfter: number;
  acks: Promise<unknown>[];
}

/** Replay a stream-json capture through the transport's live input and the claude parser. */
function replay(name: string): Replayed {
  const meta = fixtureMeta("claude", name);
  const stdin = (meta.stdin as { line: string }[]).map((s) => JSON.parse(s.line));
  const prompt = String(stdin[0].message.content);
  const guidance = stdin.find((s, i) => i > 0 && s.type === "user")?.message.content as string | undefined;
  const interrupt = stdin.some((s) => s.type === "control_request");
  const written: string[] = [];
  let closedAfter = -1;
  let index = 0;
  const sink = {
    writeInput: (line: string) => {
      written.push(line);
      return Promise.resolve();
    },
    closeInput: () => {
      if (closedAfter < 0) closedAfter = index;
    },
  };
  const live = new LiveInput(sink, CLAUDE_STREAM_INPUT, prompt);
  const parser = claudeProfile.createParser({ spec: testSpec({ prompt }), interruptReason: () => null });
  const events: ProviderEvent[] = [];
  const acks: Promise<unknown>[] = [];
  const lines = fixtureLines("claude", name);
  for (const [i, line] of lines.entries()) {
    index = i;
    const raw = parseJsonObject(line)!;
    const owned = live.observe(raw);
    events.push(...(owned ?? parser.json(raw).events));
    const toolStart = raw.type === "assistant" && line.includes('"name":"Bash"');
    if (toolStart && guidance !== undefined && acks.length === 0) {
      acks.push(interrupt ? live.interrupt(guidance) : live.send(guidance));
    }
  }
  return { events, written, closedAfter, acks };
}

Deno.test("stream_json text turn: the same canonical events as the exec transport's; stdin closed at the result", () => {
  const r = replay("stream_json_text");
  const exec = parseLines(claudeProfile, fixtureLines("claude", "text")).events;
  assert.deepEqual(typesOf(visible(r.events)), typesOf(visible(exec)));
  assert.equal(r.written.length, 1, "only the prompt was written");
  assert.deepEqual(JSON.parse(r.written[0]!), {
    type: "user",
    message: { role: "user", content: "Say hello. [[e2e:text Hello there, operator.]]" },
  });
  const lines = fixtureLines("claude", "stream_json_text");
  assert.equal(r.closedAfter, lines.length - 1, "closed at the result line");
});

Deno.test("stream_json in-turn input: acknowledged by its echo, visible after the tool's result, one turn", async () => {
  const r = replay("stream_json_in_turn");
  await Promise.all(r.acks);
  const types = typesOf(visible(r.events));
  const user = r.events.findIndex((e) => e.type === "message_sent" && !e.hidden);
  assert.ok(user > types.indexOf("tool_call_completed"), "after the tool completed");
  assert.equal(types.filter((t) => t === "run_started").length, 1);
  assert.deepEqual(types.filter((t) => t.startsWith("run_")), ["run_started", "run_completed"]);
  assert.ok(!types.includes("tool_call_failed"));
  // Without the user message, the turn's events are the exec transport's for the same tool turn.
  const exec = parseLines(claudeProfile, fixtureLines("claude", "bash")).events;
  assert.deepEqual(
    typesOf(visible(r.events)).filter((t) => t !== "message_sent"),
    typesOf(visible(exec)),
  );
});

Deno.test("stream_json in-process interrupt: the tool fails, the same process answers the guidance, one terminal event", async () => {
  const r = replay("stream_json_interrupt");
  await Promise.all(r.acks);
  assert.deepEqual(r.written.map((l) => JSON.parse(l).type), ["user", "control_request", "user"]);
  assert.equal(JSON.parse(r.written[1]!).request.subtype, "interrupt");
  const types = typesOf(visible(r.events));
  assert.ok(types.includes("tool_call_failed"), "the tool was stopped");
  assert.deepEqual(types.filter((t) => t.startsWith("run_")), ["run_started", "run_completed"]);
  const failed = types.indexOf("tool_call_failed");
  const user = types.indexOf("message_sent");
  assert.ok(failed < user, "the guidance follows the stopped tool");
  const said = r.events.filter((e) => e.type === "message_received").map((e) => e.data.content);
  assert.ok(said.includes("Stopped as asked."), "the guidance was answered in the same process");
  const lines = fixtureLines("claude", "stream_json_interrupt");
  assert.equal(r.closedAfter, lines.length - 1, "the interrupted turn's result did not end the input");
});

Deno.test("input after the last turn ended is refused, and so is anything unanswered when the CLI exits", async () => {
  const r = { closed: false, written: [] as string[] };
  const sink = {
    writeInput: (line: string) => {
      r.written.push(line);
      return Promise.resolve();
    },
    closeInput: () => void (r.closed = true),
  };
  const live = new LiveInput(sink, CLAUDE_STREAM_INPUT, "p");
  const pending = live.send("written in time");
  live.close("the CLI exited before the input was read");
  await assert.rejects(pending, InputRefused);
  await assert.rejects(live.send("late"), InputRefused);
  assert.equal(r.closed, true);
  assert.equal(r.written.length, 2, "the refused late text was never written");
});

Deno.test("an echo acknowledges only the input whose text it carries; the prompt's echo, first, acknowledges none", async () => {
  const sink = { writeInput: () => Promise.resolve(), closeInput: () => {} };
  const echo = (content: string) => ({ type: "user", isReplay: true, message: { role: "user", content } });
  const live = new LiveInput(sink, CLAUDE_STREAM_INPUT, "the prompt\n");
  let acked: string[] = [];
  const watch = (text: string) => live.send(text).then(() => void acked.push(text), () => {});
  void watch("steer one");
  void watch("steer two\r\n");
  // The prompt's echo comes first even when the CLI trimmed it: no steer is acknowledged by it.
  assert.deepEqual(live.observe(echo("the prompt")), []);
  await Promise.resolve();
  assert.deepEqual(acked, []);
  // An echo of text never written acknowledges nothing.
  assert.deepEqual(live.observe(echo("something else")), []);
  await Promise.resolve();
  assert.deepEqual(acked, []);
  // Each steer by its own text, in any order, line ends normalised.
  const two = live.observe(echo("steer two"));
  assert.deepEqual(two?.map((e) => e.type), ["message_sent"]);
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(acked, ["steer two\r\n"]);
  acked = [];
  live.observe(echo("steer one"));
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(acked, ["steer one"]);
});
