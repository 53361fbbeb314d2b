/**
 * `allowed_tools` in the generic vocabulary (docs/packets.md "Tool names"): every observing lane maps its own tool
 * calls onto it, so an allowed call raises no guardrail and a disallowed one does; the docs' table names every tool
 * the code maps.
 */
import assert from "node:assert/strict";
import {
  AMP_TOOLS,
  ANTIGRAVITY_TOOLS,
  CODEX_TOOLS,
  CURSOR_TOOLS,
  genericNeeds,
  toolAllowed,
  type ToolVocabulary,
} from "../../src/lanes/tool_vocabulary.ts";
import { guardrailFor } from "../../src/lanes/profile.ts";
import { ampProfile } from "../../src/lanes/amp.ts";
import { antigravityProfile } from "../../src/lanes/antigravity.ts";
import { codexProfile } from "../../src/lanes/codex.ts";
import { cursorProfile } from "../../src/lanes/cursor.ts";
import { ROOT } from "../support/cli.ts";

const GENERIC = ["Read", "Edit", "Write", "Bash"];
const change = (...kinds: string[]) => ({ changes: kinds.map((kind, i) => ({ path: `f${i}`, kind })) });

Deno.test("codex: a shell call is Bash, a file change is Write (added or deleted file) or Edit (updated file)", () => {
  assert.equal(toolAllowed(CODEX_TOOLS, "shell", { command: "ls" }, GENERIC), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "shell", { command: "ls" }, ["Read", "Edit", "Write"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("add"), ["Write"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("add"), ["Edit"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("update"), ["Edit"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("update"), ["MultiEdit"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("update"), ["Write"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("delete"), ["Edit"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("delete"), ["Write"]), true);
  // A patch that adds one file and updates another needs both.
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("add", "update"), ["Edit"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("add", "update"), ["Edit", "Write"]), true);
  // Without its changes listed, any file-editing tool allows it.
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", {}, ["Write"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "web_search", { query: "x" }, ["WebSearch"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "web_search", { query: "x" }, GENERIC), false);
});

Deno.test("names are compared in any case, and a lane's own tool name is accepted as well", () => {
  assert.equal(toolAllowed(CODEX_TOOLS, "shell", {}, ["bash"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "shell", {}, ["SHELL"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "file_change", change("add"), ["File_Change"]), true);
  assert.equal(toolAllowed(ANTIGRAVITY_TOOLS, "run_command", {}, [" run_command "]), true);
});

Deno.test("MCP calls need mcp__<server>__<tool> or mcp__<server>, as claude spells them", () => {
  assert.deepEqual(genericNeeds(CODEX_TOOLS, "mcp:docs.search", {}), [["mcp__docs__search", "mcp__docs"]]);
  assert.equal(toolAllowed(CODEX_TOOLS, "mcp:docs.search", {}, ["mcp__docs"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "mcp:docs.search", {}, ["mcp__docs__search"]), true);
  assert.equal(toolAllowed(CODEX_TOOLS, "mcp:docs.search", {}, ["mcp__other", ...GENERIC]), false);
});

Deno.test("a tool the vocabulary does not know, and a scoped rule only claude can check, allow nothing", () => {
  assert.equal(genericNeeds(CODEX_TOOLS, "image_view", {}), null);
  assert.equal(toolAllowed(CODEX_TOOLS, "image_view", {}, GENERIC), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "shell", { command: "git diff" }, ["Bash(git diff:*)"]), false);
  assert.equal(toolAllowed(CODEX_TOOLS, "toString", {}, GENERIC), false, "no prototype keys");
});

Deno.test("amp, cursor and antigravity map their documented tool names onto the vocabulary", () => {
  const cases: [ToolVocabulary, string, string[]][] = [
    [AMP_TOOLS, "Bash", ["Bash"]],
    [AMP_TOOLS, "edit_file", ["Edit"]],
    [AMP_TOOLS, "create_file", ["Write"]],
    [AMP_TOOLS, "glob", ["Glob"]],
    [AMP_TOOLS, "list_directory", ["Glob"]],
    [AMP_TOOLS, "read_web_page", ["WebFetch"]],
    [CURSOR_TOOLS, "shell", ["Bash"]],
    [CURSOR_TOOLS, "read", ["Read"]],
    [CURSOR_TOOLS, "edit", ["Edit"]],
    [CURSOR_TOOLS, "write", ["Write"]],
    [CURSOR_TOOLS, "delete", ["Write"]],
    [CURSOR_TOOLS, "ls", ["LS"]],
    [CURSOR_TOOLS, "grep", ["Grep"]],
    [ANTIGRAVITY_TOOLS, "run_command", ["Bash"]],
    [ANTIGRAVITY_TOOLS, "view_file", ["Read"]],
    [ANTIGRAVITY_TOOLS, "write_to_file", ["Write"]],
    [ANTIGRAVITY_TOOLS, "replace_file_content", ["Edit"]],
    [ANTIGRAVITY_TOOLS, "find_by_name", ["Glob"]],
    [ANTIGRAVITY_TOOLS, "read_url_content", ["WebFetch"]],
  ];
  for (const [vocab, tool, allowed] of cases) {
    assert.equal(toolAllowed(vocab, tool, {}, allowed), true, `${tool} allowed by ${allowed}`);
    assert.equal(toolAllowed(vocab, tool, {}, ["Task"]), false, `${tool} not allowed by [Task]`);
  }
});

Deno.test("guardrailFor() names what the call needs; every observing lane carries a vocabulary", () => {
  assert.equal(guardrailFor("codex", "shell", GENERIC, CODEX_TOOLS), null);
  assert.equal(guardrailFor("codex", "shell", null, CODEX_TOOLS), null, "no list: nothing to record");
  assert.deepEqual(guardrailFor("codex", "file_change", ["Read", "Edit"], CODEX_TOOLS, change("add", "update")), {
    tool: "file_change",
    allowed_tools: ["Read", "Edit"],
    reason: `tool "file_change" (it needs Write and Edit or MultiEdit) is not in allowed_tools; the codex lane can ` +
      `only observe it after the fact`,
  });
  assert.equal(codexProfile.toolVocabulary, CODEX_TOOLS);
  assert.equal(ampProfile.toolVocabulary, AMP_TOOLS);
  assert.equal(cursorProfile.toolVocabulary, CURSOR_TOOLS);
  assert.equal(antigravityProfile.toolVocabulary, ANTIGRAVITY_TOOLS);
});

Deno.test("docs/packets.md's tool table names every tool each lane's vocabulary maps", () => {
  const guide = Deno.readTextFileSync(`${ROOT}/docs/packets.md`);
  const start = guide.indexOf("\n## Tool names");
  assert.ok(start >= 0, "docs/packets.md has a Tool names section");
  const section = guide.slice(start, guide.indexOf("\n## ", start + 1));
  const rows = section.split("\n").filter((l) => l.startsWith("| "));
  const vocabularies: [string, ToolVocabulary][] = [
    ["codex", CODEX_TOOLS],
    ["amp", AMP_TOOLS],
    ["cursor", CURSOR_TOOLS],
    ["antigravity", ANTIGRAVITY_TOOLS],
  ];
  for (const [lane, vocab] of vocabularies) {
    const text = rows.filter((r) => r.split("|")[1]?.trim() === lane).join("\n");
    const missing = Object.keys(vocab).filter((tool) => !text.includes(`\`${tool}\``));
    assert.deepEqual(missing, [], `the ${lane} rows of the table do not name: ${missing.join(", ")}`);
  }
});
