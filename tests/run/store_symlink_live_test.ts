/**
 * Links planted while a run is live (docs/store.md): the up-front check has passed, so each writer's own no-follow
 * open must hold. A store file replaced by a link to the canary mid-prompt makes the run stop with a reason naming
 * the path; nothing is written through the link, nothing hangs, no process is left.
 */
import assert from "node:assert/strict";
import { spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readSnapshot } from "./support.ts";
import { waitFor, within } from "../support/wait.ts";
import { canaryDigest, makeCanary, processesMentioning } from "./_store_plant.ts";

const SLOW = "verify:\n  files_exist: [slow.txt]\nsimulate:\n  attempts:\n    - delay_ms: 150\n" +
  "      messages: [one, two, three, four, five, six]\n      writes: [{path: slow.txt}]";

/**
 * Store-relative files the runner writes after the first prompt's session is live, and whether the runner replaces
 * them atomically: a rename that began before the plant may replace the link (nothing is written through it either
 * way), so for those the run may also go on with a regular file where the link was.
 */
const LIVE_TARGETS: [string, boolean][] = [
  ["progress.log", false],
  ["verifications.jsonl", false],
  ["state.json", true],
  ["control/snapshot.json", true],
];

for (const [rel, atomic] of LIVE_TARGETS) {
  for (const kind of ["file", "fifo"] as const) {
    Deno.test(`a link planted at ${rel} (to a ${kind}) during a live run stops the run by name; nothing leaks`, async () => {
      await using dir = await tempDir();
      const canary = `${dir.path}/canary`;
      await makeCanary(canary);
      const before = await canaryDigest(canary);
      const pkt = await makePacket(dir.path, {
        "01_a.prompt.md": promptFile("1", SLOW),
        "02_b.prompt.md": promptFile(
          "2",
          "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]",
        ),
      });
      const child = spawnCli(["run", pkt]);
      const output = child.output();
      await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
      const path = `${pkt}/.prompt_runner/${rel}`;
      // The runner may replace the file between the remove and the link: retry until the link is in place.
      await waitFor(async () => {
        await Deno.remove(path).catch(() => {});
        return await Deno.symlink(`${canary}/${kind}`, path).then(() => true, () => false);
      });
      const out = await within(output, 60_000, null);
      if (out === null) {
        child.kill("SIGKILL");
        await output;
        assert.fail("the run hung");
      }
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      const refused = text.includes(`refusing store path ${path}`);
      const replaced = atomic && out.code === 0 && (await Deno.lstat(path)).isFile;
      assert.ok(refused || replaced, `exit ${out.code}, output:\n${text}`);
      assert.equal(await canaryDigest(canary), before, "nothing was written through the link");
      assert.deepEqual(await processesMentioning(pkt), []);
    });
  }
}
