import assert from "node:assert/strict";
import {
  budget,
  diffStat,
  lineDiff,
  parseMappedLine,
  parseUnifiedDiff,
  toolChange,
  trimContext,
} from "../../src/render/diff.ts";
import { splitLines } from "../../src/render/text.ts";

Deno.test("splitLines() treats a final newline as the end of the last line", () => {
  assert.deepEqual(splitLines(""), []);
  assert.deepEqual(splitLines("a\nb\nc\n"), ["a", "b", "c"]);
  assert.deepEqual(splitLines("a\nb"), ["a", "b"]);
  assert.deepEqual(splitLines("\n"), [""]);
});

Deno.test("lineDiff() counts x→y,z as +2 −1 (no extra line for the trailing newline)", () => {
  assert.deepEqual(diffStat(lineDiff("x\n", "y\nz\n")), { added: 2, removed: 1 });
  assert.deepEqual(diffStat(lineDiff("", "a\nb\nc\n")), { added: 3, removed: 0 });
  assert.deepEqual(diffStat(lineDiff("a\nb\n", "")), { added: 0, removed: 2 });
  assert.deepEqual(diffStat(lineDiff("same\n", "same\n")), { added: 0, removed: 0 });
});

Deno.test("lineDiff() is minimal: an insertion in the middle keeps both ends as context", () => {
  const lines = lineDiff("a\nb\nc\n", "a\nb\nnew\nc\n");
  assert.deepEqual(lines, [
    { op: " ", text: "a" },
    { op: " ", text: "b" },
    { op: "+", text: "new" },
    { op: " ", text: "c" },
  ]);
});

Deno.test("trimContext() keeps at most 3 unchanged lines around each change", () => {
  const old = Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n") + "\n";
  const next = old.replace("l10\n", "L10\n");
  const body = trimContext(lineDiff(old, next));
  assert.deepEqual(
    body.map((l) => l.op + l.text),
    ["l7", "l8", "l9", "-l10", "+L10", "l11", "l12", "l13"].map((s) =>
      s.startsWith("-") || s.startsWith("+") ? s : " " + s
    ),
  );
});

Deno.test("budget() cuts at the limit and reports how many lines were cut", () => {
  assert.deepEqual(budget([1, 2, 3, 4, 5], 3), { lines: [1, 2, 3], more: 2 });
  assert.deepEqual(budget([1, 2], 3), { lines: [1, 2], more: 0 });
});

Deno.test("parseUnifiedDiff() drops headers, @@ lines and no-newline markers", () => {
  const text = "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n" +
    "\\ No newline at end of file\n";
  assert.deepEqual(parseUnifiedDiff(text), [
    { op: " ", text: "keep" },
    { op: "-", text: "old" },
    { op: "+", text: "new" },
  ]);
  assert.deepEqual(parseUnifiedDiff("no hunks here\n"), []);
});

Deno.test("parseMappedLine() reads the pathDiff line form", () => {
  assert.deepEqual(parseMappedLine("+ a"), { op: "+", text: "a" });
  assert.deepEqual(parseMappedLine("- b"), { op: "-", text: "b" });
  assert.deepEqual(parseMappedLine("  c"), { op: " ", text: "c" });
});

Deno.test("toolChange() reads Edit old/new strings as the patch and notes replace_all", () => {
  const c = toolChange("Edit", { file_path: "a.ex", old_string: "x\n", new_string: "y\nz\n", replace_all: true }, null);
  assert.ok(c && c.kind === "patch");
  assert.equal(c.path, "a.ex");
  assert.deepEqual([c.added, c.removed], [2, 1]);
  assert.equal(c.note, "(all occurrences)");
});

Deno.test("toolChange() treats an Edit without new_string as path-only", () => {
  assert.deepEqual(toolChange("Edit", { file_path: "notes.md", old_string: "x" }, null), {
    kind: "paths",
    paths: [{ path: "notes.md", kind: null }],
  });
});

Deno.test("toolChange() diffs every MultiEdit edit and sums the stat", () => {
  const c = toolChange("MultiEdit", {
    file_path: "n.ex",
    edits: [{ old_string: "Foo", new_string: "Bar" }, { old_string: "a\nb\n", new_string: "a\nc\nd\n" }],
  }, null);
  assert.ok(c && c.kind === "patch");
  assert.deepEqual([c.added, c.removed], [3, 2]);
  assert.equal(c.note, null);
  assert.deepEqual(c.lines().map((l) => l.op + l.text), ["-Foo", "+Bar", " a", "-b", "+c", "+d"]);
});

Deno.test("toolChange() diffs Write content against the empty file", () => {
  for (const name of ["Write", "create_file", "write_to_file"]) {
    const c = toolChange(name, { path: "h.txt", content: "a\nb\n" }, null);
    assert.ok(c && c.kind === "patch", name);
    assert.deepEqual([c.added, c.removed], [2, 0]);
  }
});

Deno.test("toolChange() takes a cursor diffString with linesAdded/linesRemoved as the stat", () => {
  const meta = { diffString: "@@ -1 +1,2 @@\n-a\n+b\n+c\n", linesAdded: 7, linesRemoved: 4 };
  const c = toolChange("edit", { path: "u.ts" }, meta);
  assert.ok(c && c.kind === "patch");
  assert.deepEqual([c.added, c.removed], [7, 4]);
  assert.equal(c.lines().length, 3);
  const counted = toolChange("edit", { path: "u.ts" }, { diffString: meta.diffString });
  assert.ok(counted && counted.kind === "patch");
  assert.deepEqual([counted.added, counted.removed], [2, 1]);
});

Deno.test("toolChange() lists every codex file_change path with its kind and ignores non-file tools", () => {
  const c = toolChange("file_change", { changes: [{ path: "a", kind: "add" }, { path: "b", kind: "delete" }] }, null);
  assert.deepEqual(c, { kind: "paths", paths: [{ path: "a", kind: "add" }, { path: "b", kind: "delete" }] });
  assert.deepEqual(toolChange("replace_file_content", { TargetFile: "t.txt" }, null), {
    kind: "paths",
    paths: [{ path: "t.txt", kind: null }],
  });
  assert.equal(toolChange("Read", { file_path: "a" }, null), null);
  assert.equal(toolChange("Bash", { command: "ls" }, null), null);
});
