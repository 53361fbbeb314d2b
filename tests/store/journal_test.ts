/**
 * The run journal (docs/reference/runner.md §10.5): `runs/<run_id>/journal.jsonl` lifecycle lines with contiguous seq, fsynced
 * appends, and torn final lines moved to `journal.jsonl.torn.<n>` before the next append.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { appendJournal, journalPath, nextJournalSeq, splitTorn } from "../../src/store/journal.ts";
import { makePacket, promptFile } from "../run/support.ts";

const RUN = "20261130T120501Z-7QK2MD";
const enc = new TextEncoder();
const dec = new TextDecoder();

async function journal(
  path: string,
): Promise<{ seq: number; type: string; run_id: string; data: Record<string, unknown> }[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test("splitTorn() and nextJournalSeq() separate complete lines and continue the sequence", () => {
  const { complete, torn } = splitTorn(enc.encode('{"seq":1}\n{"seq":2}\n{"seq":3,"at'));
  assert.equal(dec.decode(complete), '{"seq":1}\n{"seq":2}\n');
  assert.equal(dec.decode(torn), '{"seq":3,"at');
  assert.equal(splitTorn(enc.encode("")).torn.length, 0);
  assert.equal(dec.decode(splitTorn(enc.encode("no newline")).torn), "no newline");
  assert.equal(nextJournalSeq(""), 1);
  assert.equal(nextJournalSeq('{"seq":1}\n{"seq":2}\n'), 3);
  assert.equal(nextJournalSeq('{"seq":4}\nnot json\n'), 5);
});

Deno.test("appendJournal() appends {seq, at, run_id, type, data} and moves torn tails aside before appending", async () => {
  await using dir = await tempDir();
  const root = `${dir.path}/store`;
  await appendJournal(root, RUN, "run_created", { ids: ["01"] });
  await appendJournal(root, RUN, "prompt_finished", { prompt: "01", status: "completed" });
  const path = journalPath(root, RUN);
  assert.equal(path, `${root}/runs/${RUN}/journal.jsonl`);
  // A crash mid-append leaves a torn line.
  await Deno.writeTextFile(path, '{"seq":3,"at":"2026', { append: true });
  await appendJournal(root, RUN, "run_failed", { reason: "interrupted" });
  assert.equal(await Deno.readTextFile(`${path}.torn.1`), '{"seq":3,"at":"2026');
  await Deno.writeTextFile(path, "{", { append: true });
  const last = await appendJournal(root, RUN, "run_resumed", {});
  assert.equal(await Deno.readTextFile(`${path}.torn.2`), "{");
  assert.equal(last.seq, 4);
  const lines = await journal(path);
  assert.deepEqual(lines.map((l) => [l.seq, l.type]), [
    [1, "run_created"],
    [2, "prompt_finished"],
    [3, "run_failed"],
    [4, "run_resumed"],
  ]);
  for (const l of lines) {
    assert.deepEqual(Object.keys(l), ["seq", "at", "run_id", "type", "data"]);
    assert.equal(l.run_id, RUN);
  }
  assert.deepEqual(lines[0]!.data, { ids: ["01"] });
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("run journals creation, prompt results, failure, resume and supersession", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [never.txt]\nrecovery:\n  repair:\n    enabled: false"),
  });
  const store = `${pkt}/.prompt_runner`;
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1);
  const runId = JSON.parse(await Deno.readTextFile(`${store}/runs/current.json`)).run_id as string;
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 1);
  let lines = await journal(journalPath(store, runId));
  assert.deepEqual(lines.map((l) => l.seq), [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(lines.map((l) => l.type), [
    "run_created",
    "prompt_finished",
    "prompt_finished",
    "run_failed",
    "run_resumed",
    "prompt_finished",
    "run_failed",
  ]);
  assert.deepEqual(lines[0]!.data.ids, ["01", "02"]);
  assert.deepEqual([lines[1]!.data.prompt, lines[1]!.data.status], ["01", "completed"]);
  assert.deepEqual([lines[2]!.data.prompt, lines[2]!.data.status], ["02", "verification_failed"]);
  assert.match(String(lines[3]!.data.reason), /^prompt 02: /);
  assert.deepEqual(lines[4]!.data.ids, ["02"]);

  const fresh = await runCli(["run", pkt, "--new-run", "01"]);
  assert.equal(fresh.code, 0, fresh.stderr);
  const newId = JSON.parse(await Deno.readTextFile(`${store}/runs/current.json`)).run_id as string;
  assert.notEqual(newId, runId);
  lines = await journal(journalPath(store, runId));
  assert.deepEqual([lines.at(-1)!.seq, lines.at(-1)!.type, lines.at(-1)!.data.by], [8, "run_superseded", newId]);
  const created = await journal(journalPath(store, newId));
  assert.deepEqual(created.map((l) => l.type), ["run_created", "prompt_finished", "run_completed"]);
  assert.equal(created[0]!.data.supersedes, runId);
});
