/** Pattern searches under a deadline (src/contract/regex_guard.ts): catastrophic backtracking faults, never hangs. */
import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf } from "./_helpers.ts";
import { scanLines, setRegexDeadlineMs, testGuarded } from "../../src/contract/regex_guard.ts";

/** Exponential for V8's backtracking engine on `a…a!`: hundreds of milliseconds at 26 letters. */
const EVIL = "^(a+)+$";
const EVIL_TEXT = "a".repeat(26) + "!";

Deno.test("matches, source_absent and stdout_matches fault verifier_timeout on a pattern that backtracks past the deadline", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "evil.txt": `${EVIL_TEXT}\nok\n`, "fine.txt": "fine\n" });
  const previous = setRegexDeadlineMs(50);
  let items;
  try {
    items = await itemsOf(dir.path, {
      matches: [{ path: "evil.txt", pattern: EVIL }, { path: "fine.txt", pattern: "^fine" }],
      source_absent: [{ path: ".", patterns: ["FORBIDDEN", EVIL] }],
      commands: [{ exec: "printf", args: [EVIL_TEXT], stdout_matches: EVIL, timeout_ms: 30_000 }],
    });
  } finally {
    setRegexDeadlineMs(previous);
  }
  assert.deepEqual(items.map((i) => [i.id, i.status, i.fault]), [
    ["matches#1", "fault", "verifier_timeout"],
    ["matches#2", "pass", null],
    ["source_absent#1", "fault", "verifier_timeout"],
    ["commands#1", "fault", "verifier_timeout"],
  ]);
  assert.equal(items[0]!.details, `pattern /${EVIL}/ did not finish within 50 ms (catastrophic backtracking?)`);
  assert.equal(
    items[2]!.details,
    `pattern /FORBIDDEN/, /${EVIL}/ did not finish within 50 ms on evil.txt (catastrophic backtracking?)`,
  );
  assert.match(items[3]!.details, /^pattern \/.*\/ did not finish within 50 ms on the output/);
});

Deno.test("testGuarded() and scanLines() answer as the pattern does, one search after another", async () => {
  const [a, b, c] = await Promise.all([
    testGuarded("b+", "u", "abbc"),
    testGuarded("^B", "iu", "bc"),
    scanLines(["^x", "y$"], "u", "x1\r\nzy\rxy\u2028q", 2),
  ]);
  assert.equal(a, true);
  assert.equal(b, true);
  assert.deepEqual(c, { total: 4, hits: [[0, 0, "x1"], [1, 1, "zy"]] });
  await assert.rejects(() => testGuarded("(", "u", "x"), /Invalid regular expression/);
  assert.equal(await testGuarded("x", "u", "x"), true, "a failed search leaves the next one working");
});
