/**
 * Memory per prompt of the runner's state (issue #13, docs/bench.md `scale`): a finished prompt is held as compact
 * text with its verification report once, the same size whatever the number of prompts, and `state.json` written from
 * those texts says exactly what the document says. Counted in characters held, never timed or sampled from RSS.
 */
import assert from "node:assert/strict";
import type { VerifyReport } from "../../src/contract/mod.ts";
import { readState, StateStore } from "../../src/run/state.ts";
import type { AttemptRecord, PromptState, StateDoc } from "../../src/run/state.ts";
import { docPieces, freezeEntry, thawEntry } from "../../src/run/state_entries.ts";
import { tempDir } from "../support/fs.ts";

function report(id: string): VerifyReport {
  const item = (clause: string) => ({
    id: `${clause}#1`,
    clause,
    kind: clause,
    repo: "app",
    path: `out/${id}.txt`,
    resolved_path: `/work/app/out/${id}.txt`,
    status: "pass",
    pass: true,
    fault: null,
    details: "ok",
  });
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: id,
    run_id: "R1",
    source: "attempt",
    attempt: 1,
    verified_at: "2026-12-01T00:00:01.000Z",
    status: "pass",
    pass: true,
    counts: { items: 2, passed: 2, failed: 0, faulted: 0 },
    items: [item("files_exist"), item("contains")],
    failures: [],
    faults: [],
    amendments: [],
    contract_digest: "sha256:" + "0".repeat(64),
  } as unknown as VerifyReport;
}

function attempt(id: string): AttemptRecord {
  return {
    run_id: "R1",
    attempt: 1,
    mode: "run",
    status: "running",
    started_at: "2026-12-01T00:00:00.000Z",
    provider: "simulated",
    model: "simulated-demo",
    session_id: `simulated-${id}-1`,
    streams: [{ kind: "initial", started_at: "2026-12-01T00:00:00.000Z", ended_at: null, result: null }],
    log_file: `logs/prompt-${id}.log`,
    events_file: `logs/prompt-${id}.events.jsonl`,
  };
}

/** The steps a prompt's entry goes through in a run: started, attempt verified and completed, result recorded. */
async function runPrompt(store: StateStore, id: string): Promise<void> {
  await store.updatePrompt(id, (p) => {
    p.status = "running";
    p.attempts.push(attempt(id));
  });
  const r = report(id);
  await store.updateAttempt(id, "R1", 1, (a) => {
    a.status = "completed";
    a.completed_at = "2026-12-01T00:00:01.000Z";
    a.verification = r;
    a.decision = "complete";
  });
  await store.updatePrompt(id, (p) => {
    p.status = "completed";
    p.result = {
      status: "completed",
      run_id: "R1",
      finished_at: "2026-12-01T00:00:02.000Z",
      source: "session",
      session_ran: true,
      attempts: 1,
      commit: { status: "skip", reason: "no_commit" },
      failure_class: null,
      reason: null,
      last_verifier: r,
      steered: false,
      amended: false,
    };
  });
}

/** Characters held per finished prompt by a store that ran `count` prompts. */
async function heldPerPrompt(count: number): Promise<{ perPrompt: number; entryChars: number; reportChars: number }> {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path, { rewriteMs: 1e9 });
  for (let i = 0; i < count; i++) await runPrompt(store, String(i).padStart(5, "0"));
  const held = store.heldAtRest();
  assert.equal(held.prompts, count, "every finished prompt is held at rest");
  const one = store.entry("00000")!;
  return {
    perPrompt: held.units / held.prompts,
    entryChars: JSON.stringify(one).length,
    reportChars: JSON.stringify(one.result!.last_verifier).length,
  };
}

Deno.test("a finished prompt is held as text with its verification report once, the same size at 50 and 500 prompts", async () => {
  const small = await heldPerPrompt(50);
  const big = await heldPerPrompt(500);
  // The same per prompt whatever the packet size (ids are the same length): nothing accumulates across prompts.
  assert.equal(big.perPrompt, small.perPrompt);
  // One entry's JSON without its second copy of the report: the report is held once, not twice.
  assert.ok(
    big.perPrompt <= big.entryChars - big.reportChars,
    `${big.perPrompt} chars held per prompt; the entry is ${big.entryChars} with a report of ${big.reportChars}`,
  );
});

Deno.test("state.json written from held entries is the document: reports expanded, pending emptied, copies not aliases", async () => {
  await using dir = await tempDir();
  const store = await StateStore.open(dir.path, { rewriteMs: 1e9 });
  for (const id of ["01", "02", "03"]) await runPrompt(store, id);
  await store.updatePrompt("04", (p) => {
    p.attempts.push(attempt("04"));
  });
  await store.flush();
  const disk: StateDoc = JSON.parse(await Deno.readTextFile(`${dir.path}/state.json`));
  assert.deepEqual(disk, store.current);
  assert.deepEqual(disk.prompts["02"]!.result!.last_verifier, report("02"));
  assert.deepEqual(disk.prompts["02"]!.attempts[0]!.verification, report("02"));
  assert.equal(disk.prompts["04"]!.status, "running");
  assert.equal(await Deno.readTextFile(`${dir.path}/state.pending.jsonl`), "");
  assert.deepEqual(await readState(dir.path), store.current);
  // An entry at rest is handed out as a copy: changing it outside updatePrompt() changes nothing held.
  store.entry("01")!.status = "failed";
  store.attempts("01").length = 0;
  assert.equal(store.entry("01")!.status, "completed");
  assert.equal(store.attempts("01").length, 1);
  // The pending line of a prompt at rest is its whole entry, the report in both places.
  await store.updatePrompt("03", (p) => {
    p.updated_at = "x";
  });
  const line = JSON.parse((await Deno.readTextFile(`${dir.path}/state.pending.jsonl`)).trim());
  assert.equal(line.id, "03");
  assert.deepEqual(line.entry.result.last_verifier, report("03"));
  assert.deepEqual(line.entry.attempts[0].verification, report("03"));
});

Deno.test("freezeEntry() round-trips any entry exactly, also one whose text holds the report marker or differing reports", () => {
  const r = report("01");
  const entry: PromptState = {
    status: "failed",
    updated_at: "2026-12-01T00:00:00.000Z",
    attempts: [
      { ...attempt("01"), verification: { ...r, pass: false } },
      { ...attempt("01"), attempt: 2, verification: JSON.parse(JSON.stringify(r)) },
    ],
    result: {
      status: "failed",
      run_id: "R1",
      finished_at: "2026-12-01T00:00:02.000Z",
      source: "session",
      session_ran: true,
      attempts: 2,
      commit: null,
      failure_class: "x",
      reason: "\u0000prompt_runner:last_verifier\u0000",
      last_verifier: r,
      steered: false,
      amended: false,
    },
  };
  const frozen = freezeEntry(entry);
  assert.equal(frozen.text(), JSON.stringify(entry));
  assert.deepEqual(thawEntry(frozen), JSON.parse(JSON.stringify(entry)));
  const plain = { ...entry, reason: undefined, result: { ...entry.result!, reason: null } };
  const shared = freezeEntry(plain);
  assert.equal(shared.text(), JSON.stringify(plain));
  assert.ok(shared.size < JSON.stringify(plain).length, "the equal report of attempt 2 and the result is held once");
});

Deno.test("docPieces() joined is JSON.stringify of the whole document, unknown top fields kept", () => {
  const prompts: Record<string, PromptState> = {
    a: { status: "running", updated_at: "t", attempts: [attempt("a")] },
    b: { status: "completed", updated_at: "t", attempts: [] },
  };
  const head = { future: { x: 1 }, schema: "prompt_runner.state/v1", updated_at: "t", last_run_id: "R1" };
  const held = new Map(Object.entries(prompts).map(([id, p]) => [id, id === "b" ? freezeEntry(p) : p]));
  assert.equal([...docPieces(head, held)].join(""), JSON.stringify({ ...head, prompts }) + "\n");
  assert.equal([...docPieces(head, new Map())].join(""), JSON.stringify({ ...head, prompts: {} }) + "\n");
});
