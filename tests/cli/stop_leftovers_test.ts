/** `stop` after the runner died mid-tool (SIGKILL): no live run, but the run's leftover processes are killed. */
import assert from "node:assert/strict";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readSnapshot, waitFor } from "../run/support.ts";

const INIT = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });

Deno.test("stop of a SIGKILLed runner: exit 4 (no live run), and the setsid tool it left is killed", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const cli = `${dir.path}/fake-claude`;
  await Deno.writeTextFile(
    cli,
    [
      "#!/bin/bash",
      `export FAULT_MARKER=${marker}`,
      `[ "$1" = "--version" ] && { echo "2.1.0 (Claude Code)"; exit 0; }`,
      `echo '${INIT}'`,
      `setsid bash -c "trap '' TERM INT HUP; while :; do sleep 0.2; done" &`,
      `while :; do sleep 0.2; done`,
    ].join("\n") + "\n",
  );
  await Deno.chmod(cli, 0o755);
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `provider: claude\nmodel: m\nclaude_opts: {cli_path: ${cli}}\nverify:\n  files_exist: [hello.txt]`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  await waitFor(async () => (await pidsWithEnv("FAULT_MARKER", marker)).length >= 2);
  child.kill("SIGKILL");
  await child.output();
  assert.ok((await pidsWithEnv("FAULT_MARKER", marker)).length >= 2, "provider and tool outlived the runner");

  const r = await runCli(["stop", pkt]);
  assert.equal(r.code, 4, r.stdout + r.stderr);
  assert.match(r.stderr, /Killed \d+ leftover processes of run \S+\./);
  assert.deepEqual(await pidsWithEnv("FAULT_MARKER", marker), []);
});
