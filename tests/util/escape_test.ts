/** The escaping helpers of untrusted text (src/util/escape.ts, src/render/shown.ts; docs/rendering.md). */
import assert from "node:assert/strict";
import { escapeControl, escapeControlKeepLines } from "../../src/util/escape.ts";
import { shownEvent, shownLine } from "../../src/render/shown.ts";
import { displayWidth } from "../../src/render/text.ts";
import type { Envelope } from "../../src/events/mod.ts";

Deno.test("escapeControl shows every control character escaped, newline and tab too; plain text is unchanged", () => {
  assert.equal(escapeControl("X\x1b[2J\x1b]0;PWNED\x07Y"), String.raw`X\x1b[2J\x1b]0;PWNED\x07Y`);
  assert.equal(escapeControl("a\nb\tc\rd\x7f\x9b\u2028"), String.raw`a\x0ab\x09c\x0dd\x7f\x9b\u2028`);
  const plain = "héllo — 世界";
  assert.equal(escapeControl(plain), plain);
});

Deno.test("escapeControlKeepLines keeps newline and tab and escapes the rest", () => {
  assert.equal(escapeControlKeepLines("Cr\x1b[2Jeating\nline\ttab\r\x07"), "Cr\\x1b[2Jeating\nline\ttab\\x0d\\x07");
});

Deno.test("escaped text is plain ASCII: its display width is its length", () => {
  const shown = escapeControl("名前\x1b[31m");
  assert.equal(displayWidth(shown), 4 + "\\x1b[31m".length);
});

Deno.test("shownEvent escapes an event's strings by field and returns the same object when nothing needs it", () => {
  const clean = { type: "message_received", data: { content: "hi\nthere", role: "assistant" } } as unknown as Envelope;
  assert.equal(shownEvent(clean), clean);
  const ev = {
    type: "tool_call_completed",
    data: { tool_call_id: "t1", tool_name: "Bash\n\x1b[2J", tool_output: "a\x1b]0;T\x07\r\nb\tc", is_error: false },
  } as unknown as Envelope;
  const shown = shownEvent(ev) as unknown as { data: Record<string, unknown> };
  assert.equal(shown.data.tool_name, String.raw`Bash\x0a\x1b[2J`);
  assert.equal(shown.data.tool_output, "a\\x1b]0;T\\x07\nb\tc");
  assert.equal((ev as unknown as { data: Record<string, unknown> }).data.tool_name, "Bash\n\x1b[2J", "not mutated");
  assert.equal(shownLine("x\ty\x1b\r"), "x\ty\\x1b");
});
