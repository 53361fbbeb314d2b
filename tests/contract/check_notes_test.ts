/** Failing checks as an operator sees them (docs/run-summary.md): headline, bounded and sanitized output tail. */
import assert from "node:assert/strict";
import { checkNote, checkNoteLines, checkNotes, sanitizeLine } from "../../src/contract/check_notes.ts";
import type { ReportItem, VerifyReport } from "../../src/contract/types.ts";

function item(extra: Partial<ReportItem>): ReportItem {
  return {
    id: "commands#1",
    clause: "commands",
    kind: "command",
    repo: "app",
    status: "fail",
    pass: false,
    fault: null,
    details: "",
    ...extra,
  } as ReportItem;
}

Deno.test("a file check names its clause, path and verdict, with no tail", () => {
  const note = checkNote(
    item({ id: "files_exist#2", clause: "files_exist", kind: "file_exists", path: "b.txt", details: "missing" }),
  );
  assert.deepEqual(checkNoteLines(note), ["  ✗ files_exist b.txt: missing"]);
  assert.deepEqual([note.tail, note.omitted], [[], 0]);
});

Deno.test("a command's output tail keeps the last lines and counts the rest, the truncation marker included", () => {
  const out = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n");
  const note = checkNote(
    item({ command: "make", details: `[output truncated: 99 earlier bytes dropped]\nexit 2\n${out}\n` }),
    3,
  );
  assert.equal(note.detail, "exit 2 (expected 0)");
  assert.deepEqual(note.tail, ["l18", "l19", "l20"]);
  assert.equal(note.omitted, 18, "17 earlier lines and the dropped bytes");
  assert.deepEqual(checkNoteLines(note, ""), [
    "✗ commands make: exit 2 (expected 0)",
    "    … (18 earlier lines)",
    "    │ l18",
    "    │ l19",
    "    │ l20",
  ]);
});

Deno.test("output is made safe for a terminal: escapes removed, tabs expanded, controls escaped, long lines cut", () => {
  assert.equal(sanitizeLine("\x1b[1;31mred\x1b[0m\tx\x07\r"), "red  x\\x07");
  assert.equal(sanitizeLine("\x1b]0;title\x07ok"), "ok");
  assert.equal(sanitizeLine("a\u2028b"), "a\\u2028b");
  const long = sanitizeLine("x".repeat(500));
  assert.equal(long.length, 200);
  assert.ok(long.endsWith("…"));
  const note = checkNote(item({ command: "evil\x1b[2Jcmd", details: "exit 1\n\x1b[2J\x1b[Hcleared" }));
  assert.equal(note.subject, "evilcmd");
  assert.deepEqual(note.tail, ["cleared"]);
});

Deno.test("a fault is marked; passing items are left out; the subject falls back to the repo", () => {
  const report = {
    items: [
      item({ id: "files_exist#1", clause: "files_exist", path: "a.txt", status: "pass", pass: true, details: "ok" }),
      item({
        status: "fault",
        fault: "verifier_fault",
        command: "tool",
        details: "executable not found on PATH: tool",
      }),
      item({
        id: "repos_clean#1",
        clause: "repos_clean",
        kind: "repos_clean",
        path: ".",
        details: "uncommitted changes (1): x",
      }),
    ],
  } as unknown as VerifyReport;
  assert.deepEqual(checkNotes(report).flatMap((n) => checkNoteLines(n)), [
    "  ✗ commands tool: executable not found on PATH: tool (fault)",
    "  ✗ repos_clean app: uncommitted changes (1): x",
  ]);
});

Deno.test("a verdict that names only what was found gets what was expected", () => {
  const absent = checkNote(
    item({ id: "files_absent#1", clause: "files_absent", kind: "file_absent", path: "x", details: "present" }),
  );
  assert.equal(absent.detail, "present (expected absent)");
  assert.equal(checkNote(item({ command: "t", details: "exit 1\nboom" })).detail, "exit 1 (expected 0)");
  assert.equal(checkNote(item({ command: "t", details: "killed by SIGKILL" })).detail, "killed by SIGKILL");
  assert.equal(checkNote(item({ command: "t", details: 'stdout missing "ok"\nno' })).detail, 'stdout missing "ok"');
});
