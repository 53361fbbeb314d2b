/**
 * The run summary written prompt by prompt (src/run/summary.ts `streamRunSummary`, `writeSummaryJson`;
 * src/render/summary_table.ts `writeSummaryTable`): the same text as the whole document, and never more than one
 * prompt's part built ahead of what was written — a 10,000-prompt run's summary was its peak memory (docs/bench.md).
 */
import assert from "node:assert/strict";
import { buildRunSummary, streamRunSummary, summaryStreamOf, writeSummaryJson } from "../../src/run/summary.ts";
import { summaryTable, writeSummaryTable } from "../../src/render/summary_table.ts";
import { CountingEntries, input, N } from "./_summary_entries.ts";

Deno.test("writeSummaryJson: the same text as JSON.stringify of the whole document, in any chunk size", () => {
  const whole = JSON.stringify(buildRunSummary(input(new CountingEntries()))) + "\n";
  for (const chunk of [1, 500, 64 * 1024]) {
    const parts: string[] = [];
    writeSummaryJson(streamRunSummary(input(new CountingEntries())), (t) => parts.push(t), chunk);
    assert.equal(parts.join(""), whole, `chunk ${chunk}`);
    if (chunk === 500) assert.ok(parts.length > 10, "a long document is written in several pieces");
  }
  const back: string[] = [];
  writeSummaryJson(summaryStreamOf(JSON.parse(whole)), (t) => back.push(t));
  assert.equal(back.join(""), whole, "a whole document written back through summaryStreamOf()");
  const doc = JSON.parse(whole);
  assert.equal(doc.prompts.length, N);
  assert.deepEqual(Object.keys(doc).at(-1), "prompts", "prompts stay the document's last key");
  assert.ok(doc.counts.not_run > 0 && doc.counts.failed > 0 && doc.counts.blocked > 0 && doc.counts.repair > 0);
});

Deno.test("writeSummaryTable: the same text as summaryTable, in any chunk size; every piece ends a line", () => {
  const whole = summaryTable(buildRunSummary(input(new CountingEntries())), false);
  for (const chunk of [1, 700, 64 * 1024]) {
    const parts: string[] = [];
    writeSummaryTable(streamRunSummary(input(new CountingEntries())), false, (t) => parts.push(t), chunk);
    assert.equal(parts.join(""), whole, `chunk ${chunk}`);
    assert.ok(parts.every((p) => p.endsWith("\n")), "a piece never ends mid-line");
  }
  assert.equal(whole.split("\n").length, N + 3, "headline, header, one row per prompt, final newline");
});

Deno.test("streamed summary: a prompt's part is written before the next entries are read (no whole document held)", () => {
  for (const kind of ["json", "table"] as const) {
    const entries = new CountingEntries();
    const s = streamRunSummary(input(entries));
    assert.equal(entries.reads, N, "the head's counts read each selected prompt's entry once");
    // Reads before the writing pass: the head's, and for the table its widths pass (one read per prompt).
    const before = kind === "json" ? N : 2 * N;
    // With one-character chunks every row is written as soon as it is built: the entries read in the writing pass
    // never run more than one ahead of the rows written.
    let lines = 0;
    let ahead = 0;
    const write = (t: string) => {
      lines += kind === "json" ? t.split('{"id":').length - 1 : t.split("\n").length - 1;
      const rows = kind === "json" ? lines : Math.max(0, lines - 2); // the table's headline and header come first
      ahead = Math.max(ahead, entries.reads - before - rows);
    };
    if (kind === "json") writeSummaryJson(s, write, 1);
    else writeSummaryTable(s, false, write, 1);
    assert.equal(entries.reads, before + N, `${kind}: one read per prompt in the writing pass`);
    assert.ok(ahead <= 1, `${kind}: entries read ahead of the rows written: ${ahead}`);
    assert.equal(kind === "json" ? lines : lines - 2, N, `${kind}: every prompt written`);
  }
});
