/**
 * The run summary written prompt by prompt (src/run/summary.ts `streamRunSummary`, `writeSummaryJson`;
 * src/render/summary_table.ts `writeSummaryTable`): the same text as the whole document, and never more than one
 * prompt's part built ahead of what was written — a 10,000-prompt run's summary was its peak memory (docs/bench.md).
 */
import assert from "node:assert/strict";
import {
  buildRunSummary,
  type PromptEntries,
  streamRunSummary,
  type SummaryInput,
  summaryStreamOf,
  writeSummaryJson,
} from "../../src/run/summary.ts";
import type { AttemptRecord, PromptState } from "../../src/run/state.ts";
import { summaryTable, writeSummaryTable } from "../../src/render/summary_table.ts";

const RUN = "20261201T100000Z-AAAAAA";
const N = 240;

function id(i: number): string {
  return String(i).padStart(4, "0");
}

/** A prompt entry of one of four kinds: completed (some after a repair, some vacuous), failed, blocked, not run. */
function entryOf(i: number): PromptState | undefined {
  if (i % 7 === 3) return undefined;
  const at = (s: number) =>
    `2026-12-01T10:${String(Math.floor(s / 60) % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.000Z`;
  const attempt = (n: number, mode: "run" | "repair", status: string): AttemptRecord => ({
    run_id: RUN,
    attempt: n,
    mode,
    status,
    started_at: at(i + n),
    completed_at: at(i + n + 1),
    provider: "simulated",
    model: null,
    session_id: null,
    streams: [],
    log_file: null,
    events_file: null,
    decision: "complete",
  } as AttemptRecord);
  const failed = i % 11 === 5;
  const attempts = i % 5 === 0 ? [attempt(1, "run", "verification_failed"), attempt(2, "repair", "completed")] : [
    attempt(1, "run", failed ? "verification_failed" : "completed"),
  ];
  const status = failed ? "verification_failed" : i % 13 === 6 ? "blocked_by_dependency" : "completed";
  return {
    status,
    updated_at: "",
    attempts: status === "blocked_by_dependency" ? [] : attempts,
    result: {
      status,
      run_id: RUN,
      finished_at: at(i + 4),
      source: "session",
      session_ran: true,
      attempts: attempts.length,
      commit: null,
      failure_class: failed ? "verification" : null,
      reason: null,
      last_verifier: null,
      steered: i % 17 === 1,
      steer_count: i % 17 === 1 ? 1 : 0,
      amended: false,
      ...(i % 19 === 2 ? { vacuous: true } : {}),
      ...(status === "blocked_by_dependency" ? { blocked_by: [id(i - 1)] } : {}),
    },
  } as PromptState;
}

/** Entries read one at a time, counting the reads (the store the runner passes is read the same way). */
class CountingEntries implements PromptEntries {
  reads = 0;
  readonly #ids = Array.from({ length: N }, (_, i) => id(i + 1)).filter((x) => entryOf(Number(x)) !== undefined);
  ids(): Iterable<string> {
    return this.#ids;
  }
  entry(promptId: string): PromptState | undefined {
    this.reads++;
    return entryOf(Number(promptId));
  }
}

function input(state: PromptEntries): SummaryInput {
  return {
    run: {
      runId: RUN,
      status: "failed",
      reason: "2 prompts failed",
      exitCode: 1,
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: "2026-12-01T10:09:00.000Z",
    },
    packet: { name: "big", prompts: Array.from({ length: N }, (_, i) => ({ id: id(i + 1), name: `Step ${i + 1}` })) },
    selected: Array.from({ length: N }, (_, i) => id(i + 1)),
    state,
    storeRoot: "/s",
  };
}

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
