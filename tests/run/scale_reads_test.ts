/**
 * Regression guard for per-prompt cost (issue #13, docs/bench.md `scale`): the hot path of a run appends to its
 * records and never re-reads them, so a prompt costs the same whatever the packet size. Counted, not timed: the
 * read meter (src/util/read_meter.ts) and the bytes each change writes.
 */
import assert from "node:assert/strict";
import { appendJournal, journalPath } from "../../src/store/journal.ts";
import { StateStore } from "../../src/run/state.ts";
import { readTotals } from "../../src/util/read_meter.ts";
import type { AttemptRecord } from "../../src/run/state.ts";

function attempt(runId: string): AttemptRecord {
  return {
    run_id: runId,
    attempt: 1,
    mode: "run",
    status: "running",
    started_at: "2026-12-01T00:00:00.000Z",
    provider: "simulated",
    model: "simulated-demo",
    session_id: null,
    streams: [],
    log_file: null,
    events_file: null,
  };
}

Deno.test("appendJournal() reads the journal once per process, then only counts; seq stays contiguous", async () => {
  const root = await Deno.makeTempDir({ prefix: "pr-scale-journal-" });
  try {
    const before = readTotals("journal").reads;
    for (let i = 0; i < 300; i++) await appendJournal(root, "R1", "prompt_finished", { prompt: String(i) });
    assert.equal(readTotals("journal").reads - before, 1);
    const seqs = (await Deno.readTextFile(journalPath(root, "R1"))).trim().split("\n").map((l) => JSON.parse(l).seq);
    assert.deepEqual(seqs, Array.from({ length: 300 }, (_, i) => i + 1));
    // Someone else appended (the file is not the size this process left it at): read again, continue after it.
    await Deno.writeTextFile(journalPath(root, "R1"), JSON.stringify({ seq: 900, type: "x" }) + "\n", { append: true });
    const next = await appendJournal(root, "R1", "run_completed");
    assert.equal(next.seq, 901);
    assert.equal(readTotals("journal").reads - before, 2);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Bytes one prompt change writes, and state files read meanwhile, in a store already holding `size` prompts. */
async function costOfOneChange(size: number): Promise<{ written: number; reads: number }> {
  const root = await Deno.makeTempDir({ prefix: "pr-scale-state-" });
  try {
    const store = await StateStore.open(root, { rewriteMs: 1e9 });
    for (let i = 0; i < size; i++) {
      await store.updatePrompt(String(i).padStart(4, "0"), (p) => {
        p.attempts.push(attempt("R1"));
      });
    }
    await store.flush();
    const reads = readTotals("state").reads;
    const pending = `${root}/state.pending.jsonl`;
    for (let i = 0; i < 20; i++) {
      await store.updateAttempt("0000", "R1", 1, (a) => {
        a.status = i % 2 ? "running" : "completed";
      });
    }
    return { written: (await Deno.stat(pending)).size / 20, reads: readTotals("state").reads - reads };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("a prompt change writes one entry and reads nothing, whether the store holds 50 or 500 prompts", async () => {
  const small = await costOfOneChange(50);
  const big = await costOfOneChange(500);
  assert.equal(small.reads, 0);
  assert.equal(big.reads, 0);
  assert.ok(small.written > 0 && small.written < 1000, `one change wrote ${small.written} bytes`);
  assert.equal(big.written, small.written);
});
