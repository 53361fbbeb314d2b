import assert from "node:assert/strict";
import type { View } from "../../src/events/types.ts";
import { createRenderer } from "../../src/render/mod.ts";
import { envelope, FIXTURES, loadFixture, renderAll, settings, toolCall } from "./_fixtures.ts";

const MODES: View["log_mode"][] = ["compact", "verbose", "studio"];

Deno.test("createRenderer() picks the renderer of settings.log_mode", () => {
  for (const mode of MODES) assert.equal(createRenderer(settings({ log_mode: mode })).mode, mode);
});

Deno.test("render() returns '' for hidden events and does not count them", () => {
  for (const mode of MODES) {
    const r = createRenderer(settings({ log_mode: mode }));
    assert.equal(r.render(envelope("message_sent", { content: "secret prompt", role: "user" }, { hidden: true })), "");
    assert.equal(r.render(envelope("notice", { level: "info", code: "x", message: "m" }, { hidden: true })), "");
    if (mode !== "studio") assert.match(r.finish(), /--- 0 events, 0 tools ---/);
  }
});

Deno.test("with color false no renderer writes any ANSI sequence; with color true the palette is used", () => {
  for (const fixture of FIXTURES) {
    for (const mode of MODES) {
      for (const over of [{}, { tool_output: "full", diff: "full" }, { tty: true }] as const) {
        const out = renderAll(loadFixture(fixture), settings({ log_mode: mode, ...over }));
        assert.ok(!out.includes("\x1b"), `${fixture}/${mode} has ANSI without colour`);
        assert.ok(!out.includes("\r"), `${fixture}/${mode} has \\r without colour`);
      }
    }
  }
  const colored = renderAll(loadFixture("claude"), settings({ log_mode: "compact", color: true }));
  assert.ok(colored.includes("\x1b[0;32mt+Read\x1b[0m"));
  assert.ok(colored.includes("\x1b[0;34mr+\x1b[0m \x1b[0;35msonnet-4-5\x1b[0m"));
});

Deno.test("studio overwrites the ◐ line with \\r\\e[2K only on a tty with colour", () => {
  const events = toolCall("t1", "Read", { file_path: "a.txt" }, "one\ntwo\n");
  const tty = renderAll(events, settings({ log_mode: "studio", color: true, tty: true }));
  assert.ok(tty.includes("Reading a.txt\r\x1b[2K  \x1b[0;32m✓\x1b[0m Read a.txt (2 lines)\n"));
  const plain = renderAll(events, settings({ log_mode: "studio", color: false, tty: true }));
  assert.equal(plain, "  ◐ Reading a.txt\n  ✓ Read a.txt (2 lines)\n");
  const noTty = renderAll(events, settings({ log_mode: "studio", color: true, tty: false }));
  assert.ok(!noTty.includes("\r"));
});

Deno.test("studio ends an open ◐ line with a newline when another event comes first", () => {
  const r = createRenderer(settings({ log_mode: "studio", color: true, tty: true }));
  let out = r.render(
    envelope("tool_call_started", { tool_call_id: "a", tool_name: "Bash", tool_input: { command: "x" } }),
  );
  out += r.render(
    envelope("tool_call_started", { tool_call_id: "b", tool_name: "Bash", tool_input: { command: "y" } }),
  );
  assert.ok(out.includes("Running: x\n"), "the first spinner line is kept, not overwritten");
  out += r.render(
    envelope("tool_call_completed", {
      tool_call_id: "a",
      tool_name: "Bash",
      tool_output: "",
      is_error: false,
      exit_code: 0,
    }),
  );
  assert.ok(out.includes("Running: y\n  "), "a completion of another call does not overwrite the open line");
});

Deno.test("message_received is skipped when deltas with the same message_id were printed", () => {
  const events = [
    envelope("message_streamed", { delta: "Hel", message_id: "m1" }),
    envelope("message_streamed", { delta: "lo", message_id: "m1" }),
    envelope("message_received", { content: "Hello", role: "assistant", message_id: "m1" }),
    envelope("message_received", { content: "Other", role: "assistant", message_id: "m2" }),
  ];
  for (const mode of MODES) {
    const out = renderAll(events, settings({ log_mode: mode }));
    assert.equal(out.split("Hel").length - 1, 1, `${mode}: the text is printed once, from the deltas`);
    assert.ok(out.includes("Other"), `${mode}: a message without deltas is shown`);
  }
});

Deno.test("without message ids the dedupe rule matches deltas of the same kind since the last message", () => {
  const events = [
    envelope("message_streamed", { delta: "thinking...", kind: "thinking" }),
    envelope("message_streamed", { delta: "Answer" }),
    envelope("message_received", { content: "Answer", role: "assistant" }),
    envelope("message_received", { content: "Second whole message", role: "assistant" }),
  ];
  const out = renderAll(events, settings({ log_mode: "compact" }));
  assert.equal(out.split("Answer").length - 1, 1);
  assert.ok(out.includes("Second whole message"));
  // A thinking message after text-only deltas is not a duplicate.
  const t = renderAll([
    envelope("message_streamed", { delta: "Text" }),
    envelope("message_received", { content: "Reasoning", role: "assistant", kind: "thinking" }),
  ], settings({ log_mode: "compact" }));
  assert.ok(t.includes("Reasoning"));
});

Deno.test("codex-style whole messages are all shown", () => {
  const out = renderAll(loadFixture("codex"), settings({ log_mode: "studio" }));
  for (
    const text of [
      "I need to look at the supervisor first.",
      "I'll create the report module now.",
      "needs a Mix project",
    ]
  ) {
    assert.ok(out.includes(text), text);
  }
});

Deno.test("thinking: hide drops thinking deltas and messages but keeps text", () => {
  for (const fixture of ["claude", "codex", "cursor"]) {
    for (const mode of MODES) {
      const shown = renderAll(loadFixture(fixture), settings({ log_mode: mode }));
      const hidden = renderAll(loadFixture(fixture), settings({ log_mode: mode, thinking: "hide" }));
      const thinking = { claude: "The supervisor needs", codex: "Planning the change", cursor: "Looking at" }[fixture]!;
      assert.ok(shown.includes(thinking), `${fixture}/${mode} shows thinking`);
      assert.ok(!hidden.includes(thinking), `${fixture}/${mode} hides thinking`);
      const text = { claude: "wire it into", codex: "create the report", cursor: "Renaming" }[fixture]!;
      assert.ok(hidden.includes(text), `${fixture}/${mode} keeps text`);
    }
  }
});

Deno.test("tool_output none shows nothing derived from the output; summary/preview/full add more", () => {
  const output = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const events = toolCall("t", "Bash", { command: "make" }, output, { exit_code: 0 });
  const none = renderAll(events, settings({ log_mode: "studio", tool_output: "none" }));
  assert.ok(none.includes("✓ Ran: make\n"));
  assert.ok(!/line \d|exit 0|chars/.test(none));
  const summary = renderAll(events, settings({ log_mode: "studio", tool_output: "summary" }));
  assert.ok(summary.includes(`✓ Ran: make (exit 0, ${output.length} chars)\n`));
  assert.ok(!summary.includes("│"));
  const preview = renderAll(events, settings({ log_mode: "studio", tool_output: "preview" }));
  assert.ok(preview.endsWith("      │ line 8\n      │ line 9\n      │ line 10\n"));
  const full = renderAll(events, settings({ log_mode: "studio", tool_output: "full", tool_output_max_lines: 4 }));
  assert.ok(full.endsWith("      ┊ line 3\n      ┊ line 4\n      … 6 more lines (truncated)\n"));
  const compactNone = renderAll(events, settings({ log_mode: "compact", tool_output: "none" }));
  assert.ok(!compactNone.includes("tr:"));
  const compactSummary = renderAll(events, settings({ log_mode: "compact" }));
  assert.ok(compactSummary.includes("t-Bash tr:line 1 (+9 lines)"));
});

Deno.test("diff stat uses U+2212 and is omitted when both counts are 0", () => {
  const edit = toolCall("e", "Edit", { file_path: "a", old_string: "x\n", new_string: "y\nz\n" }, "ok");
  assert.ok(renderAll(edit, settings({ log_mode: "studio" })).includes("✓ Edited a  +2 \u22121\n"));
  assert.ok(renderAll(edit, settings({ log_mode: "compact" })).includes("t-Edit +2 \u22121"));
  const same = toolCall("e", "Edit", { file_path: "a", old_string: "x\n", new_string: "x\n" }, "ok");
  assert.ok(renderAll(same, settings({ log_mode: "studio" })).includes("✓ Edited a\n"));
  const none = renderAll(edit, settings({ log_mode: "studio", diff: "none" }));
  assert.ok(none.includes("✓ Edited a\n") && !none.includes("+2"));
});

Deno.test("diff full truncates the body at diff_max_lines with an explicit marker", () => {
  const content = Array.from({ length: 10 }, (_, i) => `v${i}`).join("\n") + "\n";
  const events = toolCall("w", "Write", { file_path: "t.ts", content }, "ok");
  const out = renderAll(events, settings({ log_mode: "studio", diff: "full", diff_max_lines: 4 }));
  assert.ok(out.includes("      + v3\n      … 6 more lines (truncated)\n"));
  const within = renderAll(events, settings({ log_mode: "studio", diff: "full", diff_max_lines: 10 }));
  assert.ok(!within.includes("truncated") && within.includes("      + v9\n"));
});

Deno.test("path-only changes never show counts and label the git body as the current state", () => {
  const events = toolCall("f", "file_change", { changes: [{ path: "lib/r.ex", kind: "add" }] }, "");
  const stat = renderAll(events, settings({ log_mode: "studio", diff: "stat" }));
  assert.equal(stat, "  ◐ Changing 1 file\n  ✓ Added lib/r.ex\n");
  const full = renderAll(events, settings({ log_mode: "studio", diff: "full" }));
  assert.ok(
    full.includes(
      "  ✓ Added lib/r.ex\n      (current state of lib/r.ex, not this call's change)\n        # lib/r.ex\n      - old line\n",
    ),
  );
  const noBody = renderAll(events, settings({ log_mode: "studio", diff: "full", pathDiff: () => null }));
  assert.ok(!noBody.includes("current state"));
  const noFn = renderAll(events, settings({ log_mode: "compact", diff: "full", pathDiff: null }));
  assert.ok(!noFn.includes("current state"));
});

Deno.test("a failed edit shows no diff", () => {
  const events = [
    envelope("tool_call_started", {
      tool_call_id: "e",
      tool_name: "Edit",
      tool_input: { file_path: "a", old_string: "x", new_string: "y" },
    }),
    envelope("tool_call_failed", {
      tool_call_id: "e",
      tool_name: "Edit",
      tool_output: "File does not exist.",
      is_error: true,
    }),
  ];
  const out = renderAll(events, settings({ log_mode: "studio", diff: "full" }));
  assert.equal(out, "  ◐ Editing a\n  ✗ Edit failed: a\n");
  assert.ok(renderAll(events, settings({ log_mode: "compact" })).includes("! tool Edit failed"));
});

Deno.test("a non-zero exit code makes a completed shell call a failure in studio", () => {
  const events = toolCall("s", "shell", { command: "false" }, "", { exit_code: 2 });
  assert.ok(renderAll(events, settings({ log_mode: "studio" })).includes("✗ Bash failed: false (exit 2, 0 chars)"));
});

Deno.test("setView() applies to later events only", () => {
  const r = createRenderer(settings({ log_mode: "studio" }));
  const a = toolCall("a", "Bash", { command: "one" }, "out-a\n", { exit_code: 0 });
  const b = toolCall("b", "Bash", { command: "two" }, "out-b\n", { exit_code: 0 });
  let out = a.map((e) => r.render(e)).join("");
  r.setView({ tool_output: "preview", log_mode: "compact" });
  assert.equal(r.mode, "studio", "log_mode is not changed by setView");
  out += b.map((e) => r.render(e)).join("");
  assert.ok(!out.includes("│ out-a") && out.includes("│ out-b"));
});

Deno.test("breakLine() ends an open line once", () => {
  const r = createRenderer(settings({ log_mode: "compact" }));
  assert.equal(r.breakLine(), "");
  r.render(envelope("message_streamed", { delta: "partial" }));
  assert.equal(r.breakLine(), "\n");
  assert.equal(r.breakLine(), "");
  assert.equal(r.render(envelope("message_streamed", { delta: "more" })), ">> more");
});

Deno.test("compact truncates long messages to 120 columns, counting wide characters as 2", () => {
  const wide = "界".repeat(100);
  const out = renderAll([envelope("notice", { level: "info", code: "x", message: wide })], settings());
  const line = out.split("\n")[0]!;
  assert.equal(line, "~ " + "界".repeat(59) + "…");
});

Deno.test("studio shortens long paths to first/…/last/two", () => {
  const path = "src/very/deeply/nested/directory/structure/for/testing/generated_table.ts";
  const out = renderAll(toolCall("r", "Read", { file_path: path }, "x\n"), settings({ log_mode: "studio" }));
  assert.ok(out.includes("✓ Read src/…/testing/generated_table.ts (1 line)"));
});

Deno.test("compact prints the spec example line for a simulated Write", () => {
  const out = renderAll(loadFixture("simulated"), settings({ log_mode: "compact" }));
  assert.equal(
    out,
    "r+ simulated-demo >> I'll create the file.\nt+Write t-Write +3 \u22120 tr:File created successfully at: hello.txt " +
      "tk:1200/85 r-:end\n--- 6 events, 1 tool ---\n",
  );
});
