import assert from "node:assert/strict";
import { toolActivity, type ToolResult, toolSummaries } from "../../src/render/tools.ts";
import { formatSize, shortModel, shortPath, truncate } from "../../src/render/text.ts";

Deno.test("toolActivity() names the studio activity of each tool family", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["Bash", { command: "mix test" }, "Running: mix test"],
    ["shell", { command: ["bash", "-lc", "ls"] }, "Running: bash -lc ls"],
    ["Read", { file_path: "a.ex" }, "Reading a.ex"],
    ["Write", { file_path: "b.ex" }, "Writing b.ex"],
    ["Edit", { file_path: "c.ex" }, "Editing c.ex"],
    ["replace_file_content", { TargetFile: "d.txt" }, "Editing d.txt"],
    ["Glob", { pattern: "**/*.ts" }, "Searching for **/*.ts"],
    ["Grep", { pattern: "TODO" }, 'Searching "TODO" in .'],
    ["Grep", { pattern: "TODO", path: "src" }, 'Searching "TODO" in src'],
    ["Task", { description: "review" }, "Running task: review"],
    ["WebFetch", { url: "https://example.com/a/b" }, "Fetching example.com"],
    ["WebSearch", { query: "deno diff" }, 'Searching: "deno diff"'],
    ["file_change", { changes: [{ path: "a" }, { path: "b" }] }, "Changing 2 files"],
    ["mcp:docs.lookup", {}, "Using mcp:docs.lookup"],
  ];
  for (const [name, input, expected] of cases) assert.equal(toolActivity(name, input), expected, name);
  assert.equal(toolActivity("Bash", { command: "x".repeat(80) }), `Running: ${"x".repeat(59)}…`);
});

function result(
  name: string,
  input: Record<string, unknown>,
  output: string,
  over: Partial<ToolResult> = {},
): ToolResult {
  return {
    id: "1",
    name,
    input,
    output,
    failed: false,
    exitCode: null,
    meta: null,
    startedAt: null,
    at: "2026-11-30T12:00:00.000Z",
    ...over,
  };
}

Deno.test("toolSummaries() writes the studio completion summaries", () => {
  const text = (r: ToolResult, mode: "none" | "summary" = "summary") => toolSummaries(r, mode).map((s) => s.text);
  assert.deepEqual(
    text(result("Bash", { command: "make" }, "x".repeat(1234), {
      exitCode: 0,
      startedAt: "2026-11-30T11:59:56.600Z",
    })),
    ["Ran: make (exit 0, 1.2k chars, 3.4s)"],
  );
  assert.deepEqual(
    text(result("Bash", { command: "make" }, "", { exitCode: 0, startedAt: "2026-11-30T11:59:59.000Z" })),
    ["Ran: make (exit 0, 0 chars)"],
    "duration only above 2 s",
  );
  assert.deepEqual(text(result("Bash", { command: "make" }, "err", { failed: true, exitCode: 2 }), "none"), [
    "Bash failed: make",
  ]);
  assert.deepEqual(text(result("Read", { file_path: "a" }, "1\n2\n")), ["Read a (2 lines)"]);
  assert.deepEqual(text(result("Read", { file_path: "a" }, "1\n2\n"), "none"), ["Read a"]);
  assert.deepEqual(text(result("Write", { file_path: "w", content: "a\nb\nc\n" }, "ok")), ["Wrote w (3 lines)"]);
  assert.deepEqual(text(result("Write", { file_path: "w" }, "no", { failed: true })), ["Write failed: w"]);
  assert.deepEqual(text(result("Glob", { pattern: "*.ts" }, "a.ts\nb.ts\n")), ["Found 2 files matching *.ts"]);
  assert.deepEqual(text(result("Grep", { pattern: "x" }, "a:1\n")), ['Found 1 match for "x"']);
  assert.deepEqual(text(result("Task", { description: "audit" }, "done")), ["Task complete: audit"]);
  assert.deepEqual(text(result("Task", { description: "audit" }, "err", { failed: true })), ["Task failed: audit"]);
  assert.deepEqual(text(result("WebFetch", { url: "https://x.y" }, "x".repeat(12_400))), [
    "WebFetch complete (12k chars)",
  ]);
  assert.deepEqual(text(result("WebFetch", { url: "https://x.y" }, "abc"), "none"), ["WebFetch complete"]);
  const changes = [{ path: "n.ex", kind: "add" }, { path: "o.ex", kind: "update" }, { path: "p.ex", kind: "delete" }];
  assert.deepEqual(text(result("file_change", { changes }, "")), ["Added n.ex", "Edited o.ex", "Deleted p.ex"]);
});

Deno.test("text helpers: sizes, short models, short paths and width-aware truncation", () => {
  assert.deepEqual([formatSize(812), formatSize(1234), formatSize(12_345)], ["812 chars", "1.2k chars", "12k chars"]);
  assert.equal(shortModel("claude-sonnet-4-5-20250929"), "sonnet-4-5");
  assert.equal(shortModel("anthropic.claude-haiku-4-5-20251001-v1:0"), "haiku-4-5");
  assert.equal(shortModel("gpt-5-codex"), "gpt-5-codex");
  assert.equal(shortPath("short/path.ts"), "short/path.ts");
  assert.equal(shortPath("/" + "dir/".repeat(20) + "last/two.ts"), "/dir/…/last/two.ts");
  assert.equal(truncate("日本語テキスト", 7), "日本語…");
  assert.equal(truncate("abc", 3), "abc");
});
