/**
 * Widths without string-width (src/render/text_width.ts): the simple runs are what string-width says, character by
 * character, and any mix of simple characters measures and truncates exactly as string-width would. The tests that
 * need string-width unloaded run first: it loads once per process and then answers everything.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import stringWidth from "string-width";
import {
  fullWidthLoaded,
  loadFullWidth,
  needsFullWidth,
  needsFullWidthIn,
  SIMPLE_RUNS,
  textWidth,
} from "../../src/render/text_width.ts";
import { padEnd, truncate } from "../../src/render/text.ts";

/** The blocks the runs are taken from; each code point must be its own grapheme cluster next to any other. */
const BLOCKS: [number, number][] = [
  [0x00, 0x7f],
  [0xa0, 0x052f],
  [0x1e00, 0x1fff],
  [0x2000, 0x2bff],
  [0x2e80, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe6f],
  [0xff01, 0xffee],
];

/** The runs as string-width gives them today, in the format of SIMPLE_RUNS (regenerate it from this on an upgrade). */
function derivedRuns(): string {
  const seg = new Intl.Segmenter();
  const clusters = (s: string) => [...seg.segment(s)].length;
  const runs: [number, number, number][] = [];
  for (const [lo, hi] of BLOCKS) {
    for (let cp = lo; cp <= hi; cp++) {
      if (cp === 0x1b) continue; // ESC starts an ANSI sequence
      const c = String.fromCharCode(cp);
      if (clusters("a" + c) !== 2 || clusters(c + "a") !== 2 || clusters(c + c) !== 2) continue;
      const w = stringWidth(c);
      const last = runs.at(-1);
      if (last && last[1] === cp - 1 && last[2] === w) last[1] = cp;
      else runs.push([cp, cp, w]);
    }
  }
  return runs.map(([a, b, w]) => `${a.toString(16)}${a === b ? "" : `-${b.toString(16)}`}:${w}`).join(",");
}

/** Every simple character, and a few that are not. */
function simpleChars(): string[] {
  const out: string[] = [];
  for (const run of SIMPLE_RUNS.split(",")) {
    const [range] = run.split(":") as [string];
    const [a, b = a] = range.split("-") as [string, string?];
    for (let cp = parseInt(a, 16); cp <= parseInt(b, 16); cp++) out.push(String.fromCharCode(cp));
  }
  return out;
}

// deno-lint-ignore no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/** truncate() as it was written over string-width. */
function referenceTruncate(text: string, max: number): string {
  if (!NON_ASCII.test(text)) return text.length <= max ? text : text.slice(0, Math.max(0, max - 1)) + "…";
  if (stringWidth(text) <= max) return text;
  let out = "", width = 0;
  for (const ch of text) {
    const w = stringWidth(ch);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return out + "…";
}

Deno.test("SIMPLE_RUNS is string-width's width of every code point that is its own grapheme cluster", () => {
  assert.equal(SIMPLE_RUNS, derivedRuns());
});

Deno.test("without string-width, any mix of simple characters measures, pads and truncates as string-width does", () => {
  assert.equal(fullWidthLoaded(), false);
  const chars = simpleChars();
  const sample = fc.oneof(
    fc.constantFrom(...chars),
    fc.constantFrom("a", " ", "…", "✓", "✗", "→", "─", "日", "é", "\n", "\r", "\t", "한", "Ｆ", "\u00ad", "\u200b"),
  );
  fc.assert(
    fc.property(fc.array(sample, { maxLength: 24 }), fc.nat(30), (parts, max) => {
      const text = parts.join("");
      assert.equal(needsFullWidth(text), false);
      assert.equal(textWidth(text), stringWidth(text), JSON.stringify(text));
      assert.equal(truncate(text, max), referenceTruncate(text, max), JSON.stringify(text));
      const w = NON_ASCII.test(text) ? stringWidth(text) : text.length;
      assert.equal(padEnd(text, max), w >= max ? text : text + " ".repeat(max - w));
    }),
    { numRuns: 3000 },
  );
  assert.equal(fullWidthLoaded(), false, "simple text never loads string-width");
});

Deno.test("emoji, combining marks, escape sequences and unlisted scripts need string-width", () => {
  for (const t of ["👍", "e\u0301", "\u001b[31mred", "ok \u2764\ufe0f", "\u0627\u0644", "\ud83d", "\u0600"]) {
    assert.equal(needsFullWidth(t), true, JSON.stringify(t));
  }
  assert.equal(needsFullWidthIn({ type: "x", data: { list: ["fine", { deep: "👍" }] } }), true);
  assert.equal(needsFullWidthIn({ type: "x", n: 3, data: { list: ["fine", { deep: "✓ …" }] } }), false);
  assert.equal(fullWidthLoaded(), false);
});

Deno.test("once loaded, string-width measures everything", async () => {
  await loadFullWidth();
  assert.equal(fullWidthLoaded(), true);
  // Simple text (measured by the table), simple text ending in one that is not (string-width from there), and the rest.
  const texts = [
    "✅ completed",
    "│ box ─ 42",
    "abc👍",
    "ok ✓ e\u0301",
    "👍🏽 done",
    "e\u0301",
    "\u001b[31mred\u001b[0m",
    "한국어",
    "✓ ok",
  ];
  for (const t of texts) {
    assert.equal(textWidth(t), stringWidth(t), JSON.stringify(t));
    assert.equal(truncate(t, 3), referenceTruncate(t, 3));
  }
  assert.equal(needsFullWidth("👍"), false, "nothing more to load");
});
