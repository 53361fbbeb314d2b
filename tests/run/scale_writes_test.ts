/**
 * Regression guard for per-prompt writes (issue #13, docs/bench.md `scale`, "Per-prompt cost"): prompts that run inside
 * one coalescing window build no snapshot of their own (the window's write carries them; the last file is the run's
 * end), never more renames than documents built, and the simulated lane writes no script cursor for a prompt whose
 * script only overwrites. Counted, not timed (src/util/read_meter.ts): the coalescing window is
 * widened so the counts do not depend on the machine's speed (its timer is held by
 * tests/control/snapshot_schedule_test.ts).
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { runScalePacket } from "./_scale_run.ts";
import { writeTotals } from "../../src/util/read_meter.ts";
import { parseProgress } from "../../src/store/progress.ts";

/** `run <dir> --no-commit` in this process; returns the snapshots built, renamed and the cursor writes it made. */
async function writesOfRun(
  dir: string,
  count: number,
): Promise<{ snapshot: number; renames: number; cursor: number }> {
  const snapshot = writeTotals("snapshot");
  const renames = writeTotals("snapshot rename");
  const cursor = writeTotals("simulated cursor");
  await runScalePacket(dir, { snapshotCoalesceMs: 600_000 });
  const progress = parseProgress(await Deno.readTextFile(`${dir}/.prompt_runner/progress.log`), "progress.log");
  assert.equal([...progress.values()].filter((r) => r.status === "completed").length, count);
  const snap = JSON.parse(await Deno.readTextFile(`${dir}/.prompt_runner/control/snapshot.json`));
  assert.deepEqual([snap.status, snap.completed_count], ["completed", count], "the last write is the run's end");
  return {
    snapshot: writeTotals("snapshot") - snapshot,
    renames: writeTotals("snapshot rename") - renames,
    cursor: writeTotals("simulated cursor") - cursor,
  };
}

Deno.test("trivial prompts inside one window build no snapshot of their own and write no simulated cursor", async () => {
  await using dir = await tempDir();
  await writeScalePacket(`${dir.path}/one`, 1);
  await writeScalePacket(`${dir.path}/six`, 6);
  const one = await writesOfRun(`${dir.path}/one`, 1);
  const six = await writesOfRun(`${dir.path}/six`, 6);
  assert.equal(six.snapshot, one.snapshot, `snapshot writes: 1 prompt ${one.snapshot}, 6 prompts ${six.snapshot}`);
  for (const run of [one, six]) {
    // Never more renames than documents built, and at least the run's last document.
    assert.ok(run.renames >= 1 && run.renames <= run.snapshot, `renames ${run.renames} of ${run.snapshot} built`);
  }
  assert.equal(six.cursor, 0, "the scripts only overwrite: no cursor file");
});
