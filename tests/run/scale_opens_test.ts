/**
 * Regression guard for per-prompt opens (issue #13, docs/bench.md `scale`, "Per-prompt cost"): a run holds its
 * journal, `progress.log` and verification history open between appends (src/util/held_append.ts), so a prompt opens
 * none of them. Counted, not timed: the opens of those three files in a 2- and a 7-prompt `run --no-commit` made in
 * this process (the test's own seam over `Deno.openSync`) are the same. (Two, not one: progress.log's first line creates
 * the file through a rename, so its held handle is opened by the second.)
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { runScalePacket } from "./_scale_run.ts";

const HELD = ["journal.jsonl", "progress.log", "verifications.jsonl"];

/** Opens per held file name made by a run of the packet in `dir`. */
async function opensOfRun(dir: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(HELD.map((n) => [n, 0]));
  const openSync = Deno.openSync;
  Deno.openSync = (path, opts) => {
    const name = String(path).slice(String(path).lastIndexOf("/") + 1);
    if (name in counts) counts[name]!++;
    return openSync(path, opts);
  };
  try {
    await runScalePacket(dir);
  } finally {
    Deno.openSync = openSync;
  }
  return counts;
}

Deno.test("a prompt opens neither the journal, progress.log nor the verification history: the run holds them", async () => {
  await using dir = await tempDir();
  await writeScalePacket(`${dir.path}/two`, 2);
  await writeScalePacket(`${dir.path}/seven`, 7);
  const two = await opensOfRun(`${dir.path}/two`);
  const seven = await opensOfRun(`${dir.path}/seven`);
  for (const name of HELD) {
    assert.equal(seven[name], two[name], `${name}: 2 prompts ${two[name]}, 7 prompts ${seven[name]}`);
  }
  assert.ok(HELD.every((n) => two[n]! > 0), `every file was opened by the run: ${JSON.stringify(two)}`);
  const progress = await Deno.readTextFile(`${dir.path}/seven/.prompt_runner/progress.log`);
  assert.equal(progress.trim().split("\n").length, 7, "every prompt's line is in progress.log");
});
