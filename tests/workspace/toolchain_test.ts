/** Parsing the tool pins of `.tool-versions` and `mise.toml` (workspace doctor). */
import assert from "node:assert/strict";
import { parseMiseTools, parseToolVersions } from "../../src/workspace/toolchain.ts";

Deno.test(".tool-versions: one pin per line with fallbacks; comments skipped; a bare tool is a finding", () => {
  assert.deepEqual(parseToolVersions("# runtimes\nerlang 26.2.1\nelixir 1.16.0-otp-26 1.15.7  # pinned\n\nnodejs\n"), [
    { line: 2, tool: "erlang", required: ["26.2.1"], error: null },
    { line: 3, tool: "elixir", required: ["1.16.0-otp-26", "1.15.7"], error: null },
    { line: 5, tool: null, required: [], error: 'expected "tool version"' },
  ]);
});

Deno.test("mise.toml: only [tools]; strings, lists and inline tables; an unquoted version is a finding", () => {
  const text = `[env]\nFOO = "bar"\n\n[tools]\nnode = "20.11.0"\n"python" = ["3.12", "3.11"]\n` +
    `go = { version = "1.22.1", os = ["linux"] }\nruby = latest\n[settings]\nx = "1"\n`;
  assert.deepEqual(parseMiseTools(text), [
    { line: 5, tool: "node", required: ["20.11.0"], error: null },
    { line: 6, tool: "python", required: ["3.12", "3.11"], error: null },
    { line: 7, tool: "go", required: ["1.22.1"], error: null },
    { line: 8, tool: "ruby", required: [], error: "expected a quoted version, got latest" },
  ]);
});
