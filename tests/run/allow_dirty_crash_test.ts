/**
 * Crash recovery under `--allow-dirty` (docs/crash_recovery.md, docs/keep_going.md): the user's path, dirty before the
 * run, is neither the prompt's leftovers nor a reason to refuse adopting the prompt's commit made just before the kill.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { checkRecovered, makeCrashPacket } from "../support/crash_packet.ts";

for (const point of ["commit.after_git_commit@2", "progress.after_append@2", "attempt.after_session@2"]) {
  Deno.test(`--allow-dirty, killed at ${point}: the prompt's commit is on the record, the user's path untouched`, async () => {
    await using dir = await tempDir();
    const pkt = await makeCrashPacket(dir.path, { prompts: 3, stepMs: 5, append: true });
    await Deno.writeTextFile(`${pkt}/app/user.txt`, "the user's own work\n");
    const crashed = await runCli(["run", pkt, "--allow-dirty"], { env: { PROMPT_RUNNER_FAILPOINT: point } });
    assert.equal(crashed.code, 137, crashed.stderr);
    const resumed = await runCli(["run", pkt, "--remaining", "--allow-dirty"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(await git(`${pkt}/app`, "status", "--porcelain"), "?? user.txt");
    await Deno.remove(`${pkt}/app/user.txt`);
    assert.equal(await checkRecovered(pkt, 3, { allowNoChanges: false }), null);
  });
}
