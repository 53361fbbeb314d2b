/**
 * The failpoint crash cases (docs/failpoints.md): each names a point and the occurrence to crash at (most land
 * inside the second of three prompts). Shared by the `run --remaining` and plain `run` failpoint tests.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { checkRecovered, makeCrashPacket } from "../support/crash_packet.ts";
import { isSnapshotTemp } from "../../src/control/snapshot_writer.ts";

/** `name@n` per documented failpoint. */
export const FAILPOINT_CASES: readonly string[] = [
  "attempt.before_session@2",
  "simulated.before_write@6",
  "simulated.after_write@6",
  "attempt.after_session@2",
  "verify.after_checks@2",
  "commit.before_git_commit@2",
  "commit.after_git_commit@2",
  "progress.after_append@2",
  "journal.after_append@3",
  "state.before_rename@1",
  "snapshot.before_rename@3",
  "run.before_close",
];

/** Crash a three-prompt run at `point`, resume it with `resume` (plain `run` or `run --remaining`), check it all. */
export async function crashAndResume(point: string, resume: "run" | "remaining"): Promise<void> {
  await using dir = await tempDir();
  const plain = resume === "run";
  const pkt = await makeCrashPacket(dir.path, { prompts: 3, stepMs: 5, append: !plain });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: point } });
  const name = point.split("@")[0]!;
  assert.equal(crashed.code, 137, `the run must die at ${point}: ${crashed.stderr}`);
  assert.match(crashed.stderr, new RegExp(`failpoint ${name.replace(".", "\\.")} reached`));
  if (name === "snapshot.before_rename") {
    assert.equal((await snapshotTemps(pkt)).length, 1, "the killed write leaves its temp file");
  }
  const resumed = await runCli(plain ? ["run", pkt] : ["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(await snapshotTemps(pkt), [], "the resumed run removes snapshot temp files left by the crash");
  assert.equal(await checkRecovered(pkt, 3, { allowNoChanges: plain }), null);
}

/** Snapshot temp files in the packet's `control/` directory. */
async function snapshotTemps(pkt: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(`${pkt}/.prompt_runner/control`)) if (isSnapshotTemp(e.name)) out.push(e.name);
  return out;
}
