/**
 * The reports written entry by entry (src/run/reports.ts `writeReports`, src/render/junit.ts `junitPieces`,
 * src/render/summary_markdown.ts `summaryMarkdownPieces`, src/run/ci.ts `stepSummaryPieces`): from the run summary's
 * stream they give the same bytes as the whole document did, never build more than one prompt's part per piece, and
 * the step summary's trimming under GitHub's 1 MiB bound cuts where the whole text was cut.
 */
import assert from "node:assert/strict";
import { buildRunSummary, streamRunSummary } from "../../src/run/summary.ts";
import { type ReportFormat, reportPieces, reportText, writeReports } from "../../src/run/reports.ts";
import { appendStepSummary, CiLog, stepSummaryPieces } from "../../src/run/ci.ts";
import { junitOutcome, junitReport, wholeSummaryStream } from "../../src/render/junit.ts";
import { summaryMarkdown } from "../../src/render/summary_markdown.ts";
import type { RunSummary } from "../../src/events/mod.ts";
import { CountingEntries, input, N } from "./_summary_entries.ts";
import { mixedSummary } from "../render/_ci_summaries.ts";

const FORMATS: ReportFormat[] = ["junit", "summary", "json"];

/** The text each format had when it was built from the whole document. */
function wholeText(format: ReportFormat, s: RunSummary): string {
  if (format === "junit") return junitReport(s);
  if (format === "summary") return summaryMarkdown(s);
  return JSON.stringify(s, null, 2) + "\n";
}

Deno.test("reports from the stream: the same bytes as from the whole document, every format", () => {
  const whole = buildRunSummary(input(new CountingEntries()));
  assert.equal(whole.prompts.length, N);
  for (const format of FORMATS) {
    const streamed = reportText(format, streamRunSummary(input(new CountingEntries())));
    assert.equal(streamed, wholeText(format, whole), format);
  }
  // A run refused before any prompt: no prompts at all (the JSON's empty array, JUnit's one errored testcase).
  const aborted: RunSummary = { ...whole, status: "aborted", exit_code: 2, counts: { ...whole.counts }, prompts: [] };
  for (const format of FORMATS) {
    assert.equal(reportText(format, wholeSummaryStream(aborted)), wholeText(format, aborted), `${format}, aborted`);
  }
  assert.equal(reportText("json", mixedSummary()), JSON.stringify(mixedSummary(), null, 2) + "\n");
});

Deno.test("reports from the stream: one prompt's part per piece, each built when it is reached", () => {
  for (const format of FORMATS) {
    const entries = new CountingEntries();
    const s = streamRunSummary(input(entries));
    const headReads = entries.reads;
    let total = 0;
    let largest = 0;
    let pieces = 0;
    let ahead = 0;
    for (const piece of reportPieces(format, s)) {
      pieces++;
      total += piece.length;
      largest = Math.max(largest, piece.length);
      // JUnit: one counting pass, then its header and one piece per testcase; JSON: its head, one piece per prompt.
      if (format !== "summary") {
        const passes = format === "junit" ? 2 : 1;
        ahead = Math.max(ahead, entries.reads - headReads - (passes - 1) * N - (pieces - 1));
      }
    }
    assert.ok(pieces > N, `${format}: ${pieces} pieces for ${N} prompts`);
    assert.ok(largest < 2000, `${format}: the largest piece is ${largest} characters (one prompt's part)`);
    assert.ok(total > 40 * largest, `${format}: ${total} characters in all`);
    assert.ok(ahead <= 1, `${format}: entries read ahead of the pieces given: ${ahead}`);
  }
});

Deno.test("writeReports: each file is the streamed text; an unwritable path is a warning, the others are written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const whole = buildRunSummary(input(new CountingEntries()));
    await Deno.writeTextFile(`${dir}/blocker`, "a file where a directory should be");
    const reports = [
      { format: "junit" as const, path: `${dir}/out/junit.xml` },
      { format: "summary" as const, path: `${dir}/blocker/summary.md` },
      { format: "json" as const, path: `${dir}/out/summary.json` },
    ];
    const warnings = await writeReports(reports, streamRunSummary(input(new CountingEntries())));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /--report summary: could not write .*blocker\/summary\.md/);
    assert.equal(await Deno.readTextFile(`${dir}/out/junit.xml`), junitReport(whole));
    assert.equal(await Deno.readTextFile(`${dir}/out/summary.json`), JSON.stringify(whole, null, 2) + "\n");
    assert.deepEqual([...Deno.readDirSync(`${dir}/out`)].map((e) => e.name).sort(), ["junit.xml", "summary.json"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The step summary as it was computed from whole strings (the oracle the streamed one must match). */
function stepSummaryOfText(s: RunSummary, maxBytes: number): string {
  const size = (t: string) => new TextEncoder().encode(t).length;
  const full = summaryMarkdown(s, null);
  if (size(full) <= maxBytes) return full;
  const failing = s.prompts.filter((p) => junitOutcome(p) !== "passed");
  const note = `_${s.prompts.length - failing.length} passing prompts are left out of this table (GitHub's job ` +
    "summary is limited to 1 MiB); the `summary` and `junit` reports have every prompt._\n";
  const short = summaryMarkdown({ ...s, prompts: failing }, null) + "\n" + note;
  if (size(short) <= maxBytes) return short;
  const cut = "\n\n_…cut at GitHub's 1 MiB job-summary limit; the `summary` report has all of it._\n";
  const bytes = new TextEncoder().encode(short).slice(0, maxBytes - size(cut));
  return new TextDecoder().decode(bytes).replace(/\uFFFD+$/, "") + cut;
}

Deno.test("stepSummaryPieces: whole, trimmed to the prompts that did not pass, or cut — as the whole text was", () => {
  const cases: [string, RunSummary][] = [
    ["mixed", mixedSummary()],
    ["big", buildRunSummary(input(new CountingEntries()))],
  ];
  for (const [name, whole] of cases) {
    const fullBytes = new TextEncoder().encode(summaryMarkdown(whole)).length;
    const stream = name === "big" ? streamRunSummary(input(new CountingEntries())) : wholeSummaryStream(whole);
    // Every bound from a cut inside the first lines up to the whole text: cuts land inside multi-byte marks too.
    const bounds = new Set<number>([fullBytes, fullBytes - 1, fullBytes + 1, Math.floor(fullBytes / 2)]);
    for (let b = 200; b < 600; b++) bounds.add(b);
    for (const b of bounds) {
      const streamed = [...stepSummaryPieces(stream, null, b)].join("");
      assert.equal(streamed, stepSummaryOfText(whole, b), `${name}, bound ${b}`);
      assert.ok(new TextEncoder().encode(streamed).length <= b, `${name}, bound ${b}: within the bound`);
    }
  }
});

Deno.test("CiLog.finish from the stream: the same annotations and step summary as from the whole document", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = async (summary: Parameters<CiLog["finish"]>[0], file: string) => {
      const lines: string[] = [];
      const out = { write: (t: string) => void lines.push(t), isTerminal: false };
      const log = new CiLog({ kind: "github", stepSummary: file, workspace: "/w" }, out, new Map());
      await Deno.writeTextFile(file, "earlier step\n");
      assert.deepEqual(await log.finish(summary), []);
      return { lines, md: await Deno.readTextFile(file) };
    };
    const whole = buildRunSummary(input(new CountingEntries()));
    const a = await run(whole, `${dir}/a.md`);
    const b = await run(streamRunSummary(input(new CountingEntries())), `${dir}/b.md`);
    assert.deepEqual(b.lines, a.lines);
    assert.ok(b.lines.some((l) => l.startsWith("::error ")), "the failed prompts are annotated");
    assert.equal(b.md, a.md);
    assert.equal(b.md, "earlier step\n" + summaryMarkdown(whole) + "\n", "appended after what was there");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appendStepSummary: pieces are appended whole, with the final newline", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/step.md`;
    await Deno.writeTextFile(file, "before\n");
    const big = Array.from({ length: 3000 }, (_, i) => `| row ${i} | ✅ |\n`);
    assert.deepEqual(await appendStepSummary(file, big), []);
    assert.equal(await Deno.readTextFile(file), "before\n" + big.join("") + "\n");
    const warn = await appendStepSummary(`${dir}/missing/step.md`, ["x"]);
    assert.equal(warn.length, 1);
    assert.match(warn[0]!, /could not append the run summary to GITHUB_STEP_SUMMARY/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
