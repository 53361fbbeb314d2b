import assert from "node:assert/strict";
import { claudeProfile } from "../../src/lanes/claude.ts";
import { probeCli } from "../../src/lanes/cli_lane.ts";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { tempDir } from "../support/fs.ts";
import { testOptions } from "./_support.ts";

/** A fake CLI whose processes all carry `PROBE_MARKER=<marker>` (exported by the script itself). */
async function bin(dir: string, marker: string, body: string): Promise<string> {
  const path = `${dir}/claude`;
  await Deno.writeTextFile(path, `#!/bin/bash\nexport PROBE_MARKER=${marker}\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("probe: a --version that ignores SIGTERM and hangs is unavailable after its deadline, nothing left", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const path = await bin(dir.path, marker, `trap '' TERM INT; sleep 60 & wait; sleep 60`);
  const t0 = Date.now();
  const r = await probeCli(claudeProfile, testOptions({ provider_opts: { claude_opts: { cli_path: path } } }), 300);
  const took = Date.now() - t0;
  assert.equal(r.available, false);
  assert.match(r.error ?? "", /--version" did not finish within 300 ms/);
  assert.ok(took < 4000, `returned after ${took} ms`);
  assert.deepEqual(await pidsWithEnv("PROBE_MARKER", marker), []);
});

Deno.test("probe: a --version that prints and exits but leaves a child holding stdout still reports", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const path = await bin(dir.path, marker, `echo "9.9.9 (Claude Code)"; sleep 60 & exit 0`);
  const t0 = Date.now();
  const r = await probeCli(
    claudeProfile,
    testOptions({ provider_opts: { claude_opts: { cli_path: path } } }),
    20_000,
  );
  assert.ok(Date.now() - t0 < 5000, "not held by the child");
  assert.equal(r.available, true);
  assert.equal(r.version, "9.9.9 (Claude Code)");
  assert.deepEqual(await pidsWithEnv("PROBE_MARKER", marker), [], "the child is gone");
});
