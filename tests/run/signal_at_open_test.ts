/**
 * A signal while a run opens (src/run/run_open.ts `holdSignals()`): the runner's first `--json` lines are out before
 * its context exists, and a SIGTERM sent the moment the first one is read is an operator's stop like any other — the
 * run closes as interrupted (exit 130, its record `failed` / `interrupted`, the lease released), never dies by the
 * signal and is found abandoned. Black-box: the CLI spawned with exactly the `run` command's permissions.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { readFirstLine, runCli, spawnCli } from "../support/cli.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";

Deno.test("run: a SIGTERM at the first --json line closes the run as interrupted (exit 130), not abandoned", async () => {
  await using tmp = await tempDir();
  for (let round = 0; round < 3; round++) {
    const dir = `${tmp.path}/p${round}`;
    await writeScalePacket(dir, 3);
    const child = spawnCli(["run", dir, "--no-commit", "--json"], { cwd: dir });
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const out = await readFirstLine(reader);
    assert.equal((JSON.parse(out.slice(0, out.indexOf("\n"))) as { seq: number }).seq, 1, "the run's first line");
    child.kill("SIGTERM");
    const status = await child.status;
    await reader.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
    assert.equal(status.code, 130, `round ${round}: the run stops as interrupted, not by the signal's default`);
    const runs = `${storeRootForPacket(dir)}/runs`;
    const ids = [...Deno.readDirSync(runs)].filter((e) => e.isDirectory).map((e) => e.name);
    assert.equal(ids.length, 1);
    const record = JSON.parse(await Deno.readTextFile(`${runs}/${ids[0]}/run.json`)) as Record<string, unknown>;
    assert.equal(record.state, "failed");
    assert.equal(record.reason, "interrupted");
    const shown = await runCli(["status", dir]);
    assert.match(shown.stdout, /reason\s+interrupted/);
    assert.doesNotMatch(shown.stdout, /ABANDONED/, "an operator's stop is not a crash");
  }
});
