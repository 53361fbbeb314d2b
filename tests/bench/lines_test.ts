/** The benchmarks' reader of growing logs (scripts/bench/_lines.ts): complete lines only, each byte decoded once. */
import assert from "node:assert/strict";
import { AppendedLines } from "../../scripts/bench/_lines.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("AppendedLines: a torn line and a character split across two reads come back whole, once", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/log.jsonl`;
  const lines = new AppendedLines(path);
  assert.deepEqual(lines.read().lines, [], "no file yet");
  const bytes = new TextEncoder().encode("one\ncafé\n");
  const cut = bytes.indexOf(0xc3) + 1; // inside "é" (0xc3 0xa9)
  Deno.writeFileSync(path, bytes.subarray(0, cut));
  assert.deepEqual(lines.read().lines, ["one"]);
  Deno.writeFileSync(path, bytes.subarray(cut), { append: true });
  assert.deepEqual(lines.read().lines, ["café"]);
  assert.deepEqual(lines.read().lines, []);
});
