import assert from "node:assert/strict";
import type { TextOut } from "../../src/cli/frame.ts";
import {
  cleanForFile,
  compactEventRecord,
  eventsFileSink,
  fileSink,
  jsonLinesSink,
  ttySink,
} from "../../src/render/sinks.ts";
import { encodeEnvelope } from "../../src/events/json.ts";
import { tempDir } from "../support/fs.ts";
import { envelope, loadFixture, renderAll, settings } from "./_fixtures.ts";

function memoryOut(isTerminal: boolean): TextOut & { chunks: string[] } {
  const chunks: string[] = [];
  return { chunks, isTerminal, write: (t: string) => void chunks.push(t) };
}

Deno.test("cleanForFile() strips ANSI and lone \\r and keeps overwritten studio lines as separate lines", () => {
  assert.equal(cleanForFile("\x1b[0;32mok\x1b[0m done"), "ok done");
  assert.equal(cleanForFile("a\rb\r\nc"), "ab\r\nc");
  assert.equal(cleanForFile("  ◐ Reading a\r\x1b[2K  \x1b[0;32m✓\x1b[0m Read a\n"), "  ◐ Reading a\n  ✓ Read a\n");
  assert.equal(cleanForFile("plain\n"), "plain\n");
});

Deno.test("fileSink() appends clean text, buffers until flush() and closes", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/prompt-01.log`;
  Deno.writeTextFileSync(path, "Session: header\n\n");
  const sink = fileSink(path);
  const colored = renderAll(loadFixture("claude"), settings({ log_mode: "studio", color: true, tty: true }));
  sink.write(colored);
  assert.equal(Deno.readTextFileSync(path), "Session: header\n\n", "nothing is written before a flush");
  sink.flush();
  const text = Deno.readTextFileSync(path);
  assert.ok(text.startsWith("Session: header\n\n"));
  assert.ok(!text.includes("\x1b") && !/\r(?!\n)/.test(text));
  assert.equal(
    text.slice("Session: header\n\n".length),
    renderAll(loadFixture("claude"), settings({ log_mode: "studio" })),
  );
  sink.write("tail\n");
  sink.close();
  assert.ok(Deno.readTextFileSync(path).endsWith("tail\n"));
  sink.write("after close\n");
  assert.ok(!Deno.readTextFileSync(path).includes("after close"));
});

Deno.test("fileSink() creates a missing log file with mode 0600", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/new.log`;
  const sink = fileSink(path);
  sink.write("x\n");
  sink.close();
  assert.equal(Deno.readTextFileSync(path), "x\n");
  assert.equal((Deno.statSync(path).mode ?? 0) & 0o777, 0o600);
});

Deno.test("ttySink() writes straight through on a terminal and buffers otherwise", () => {
  const term = memoryOut(true);
  const t = ttySink(term);
  t.write("a");
  t.write("");
  t.write("b");
  assert.deepEqual(term.chunks, ["a", "b"]);
  const pipe = memoryOut(false);
  const p = ttySink(pipe);
  p.write("a");
  p.write("b");
  assert.deepEqual(pipe.chunks, []);
  p.flush();
  assert.deepEqual(pipe.chunks, ["ab"]);
});

Deno.test("compactEventRecord() abbreviates per docs/reference/runner.md §10.4 and drops empty fields", () => {
  const at = "2026-11-30T12:05:01.000Z";
  const ms = Date.parse(at);
  const rec = (type: string, data: Record<string, unknown>) => compactEventRecord(envelope(type, data, { at }));
  assert.deepEqual(rec("run_started", { model: "claude-sonnet-4-5-2025", provider_session_id: "s" }), {
    t: ms,
    e: { t: "rs", m: "sonnet-4-5" },
  });
  assert.deepEqual(rec("run_started", { model: null, provider_session_id: "s" }).e, { t: "rs" });
  assert.deepEqual(rec("message_streamed", { delta: "hello" }).e, { t: "ms", l: 5 });
  assert.deepEqual(rec("tool_call_started", { tool_call_id: "1", tool_name: "Bash", tool_input: {} }).e, {
    t: "ts",
    n: "Bash",
  });
  assert.deepEqual(
    rec("tool_call_completed", { tool_call_id: "1", tool_name: "Bash", tool_output: "abc", is_error: false }).e,
    {
      t: "tc",
      n: "Bash",
      l: 3,
    },
  );
  assert.deepEqual(
    rec("tool_call_failed", { tool_call_id: "1", tool_name: "Bash", tool_output: "", is_error: true }).e,
    {
      t: "tf",
      n: "Bash",
      l: 0,
    },
  );
  assert.deepEqual(rec("token_usage_updated", { input_tokens: 1, output_tokens: 2, cost_usd: 0.5 }).e, {
    t: "tu",
    i: 1,
    o: 2,
    $: 0.5,
  });
  assert.deepEqual(rec("message_received", { content: "x", role: "assistant" }).e, { t: "mr" });
  assert.deepEqual(rec("run_completed", { stop_reason: "end_turn" }).e, { t: "rc", sr: "end_turn" });
  assert.deepEqual(rec("run_failed", { error_code: "c", error_message: "m".repeat(200) }).e, {
    t: "rf",
    x: "m".repeat(119) + "…",
  });
  assert.deepEqual(rec("error_occurred", { error_code: "c", error_message: "boom" }).e, { t: "er", x: "boom" });
  assert.deepEqual(rec("run_cancelled", { reason: "operator_stop" }).e, { t: "rx" });
  assert.deepEqual(rec("notice", { level: "info", code: "x", message: "m" }).e, { t: "notice" });
});

Deno.test("eventsFileSink() writes compact or full lines, skips hidden events, and creates no file when off", async () => {
  await using dir = await tempDir();
  const events = loadFixture("claude");
  const visible = events.filter((e) => !e.hidden);
  const compact = eventsFileSink(`${dir.path}/c.events.jsonl`, "compact");
  const full = eventsFileSink(`${dir.path}/f.events.jsonl`, "full");
  const off = eventsFileSink(`${dir.path}/o.events.jsonl`, "off");
  for (const ev of events) {
    compact.event(ev);
    full.event(ev);
    off.event(ev);
  }
  for (const s of [compact, full, off]) s.close();
  const c = Deno.readTextFileSync(`${dir.path}/c.events.jsonl`).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(c.length, visible.length);
  assert.deepEqual(c[0], compactEventRecord(visible[0]!));
  const f = Deno.readTextFileSync(`${dir.path}/f.events.jsonl`);
  assert.equal(f, visible.map((e) => encodeEnvelope(e) + "\n").join(""));
  assert.ok(!f.includes("message_sent"));
  await assert.rejects(() => Deno.stat(`${dir.path}/o.events.jsonl`), Deno.errors.NotFound);
});

Deno.test("jsonLinesSink() prints every envelope including hidden ones, then extra lines", () => {
  const out = memoryOut(false);
  const sink = jsonLinesSink(out);
  const events = loadFixture("codex");
  for (const ev of events) sink.event(ev);
  sink.line({ type: "run_summary", prompts: [] });
  sink.close();
  const lines = out.chunks.join("").trimEnd().split("\n");
  assert.equal(lines.length, events.length + 1);
  assert.equal(JSON.parse(lines[0]!).type, "message_sent");
  assert.deepEqual(JSON.parse(lines.at(-1)!), { type: "run_summary", prompts: [] });
});
