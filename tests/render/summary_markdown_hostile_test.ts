/**
 * The `summary` report as a Markdown reader renders it (markdown-it with raw HTML on, as GitHub's job summary
 * allows): text from a packet, an agent or an operator — prompt names, a run's reason, steer authors and texts —
 * stays text. It opens no HTML (a `<!--` would hide the rest of the summary, a `</details>` end a section), makes no
 * link or image, and cannot add or split a table row; every failing prompt is still shown.
 */
import assert from "node:assert/strict";
// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";
import { type AuditEntry, summaryMarkdown } from "../../src/render/summary_markdown.ts";
import { prompt, summary } from "./_ci_summaries.ts";

const HOSTILE = [
  "<!-- hide the rest",
  "</details><img src=https://example.invalid/p.png>",
  "[release notes](https://example.invalid/x)",
  "![pixel](https://example.invalid/p.png)",
  "a | b\n| --- |\n| forged | row |",
  "<https://example.invalid/auto>",
  "&lt;entity&gt; \\| back\\slash",
];

Deno.test("summary markdown: hostile names, reasons and audit texts render as their own text", () => {
  const failed = (id: string, name: string) =>
    prompt(id, name, { status: "failed", reason: name, commits: [], failure_class: "verification" });
  const prompts = HOSTILE.map((h, i) => failed(String(i + 1).padStart(2, "0"), h));
  prompts.push(prompt("99", "last, passing"));
  const audit: AuditEntry[] = HOSTILE.map((h, i) => ({
    prompt: "01",
    kind: "steer",
    at: `2026-12-01T10:00:0${i}.000Z`,
    author: h.split("\n")[0]!,
    what: h,
  }));
  const md = summaryMarkdown(
    summary(prompts, { packet: HOSTILE[0]!, status: "failed", reason: HOSTILE[1]!, exit_code: 1 }),
    audit,
  );
  const html = new MarkdownIt({ html: true }).render(md);
  assert.doesNotMatch(html, /<!--/, "no comment opened");
  assert.doesNotMatch(html, /<img|<a /, "no image, no link");
  // The two tables: one row per prompt, one per audit entry; nothing forged.
  const tables = [...html.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].map((m) => [...m[1]!.matchAll(/<tr>/g)].length);
  assert.deepEqual(tables, [prompts.length, audit.length]);
  assert.doesNotMatch(html, /<td>forged<\/td>/);
  // Every failing prompt's <details> is there, in order, and the passing prompt's row after them.
  assert.equal([...html.matchAll(/<details>/g)].length, HOSTILE.length);
  assert.match(html, /99 last, passing/);
  // The text reads as written (as the reader shows it, line breaks folded).
  const shown = html.replace(/<[^>]+>/g, "").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
  for (const h of HOSTILE) assert.ok(shown.includes(h.replace(/\n/g, " ")), `${h}\n---\n${shown}`);
});
