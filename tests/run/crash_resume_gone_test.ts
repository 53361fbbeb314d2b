/**
 * A crash resume whose provider session is gone (issue #11 item 5): after the runner is SIGKILLed mid-session, the
 * next run tries to resume the recorded session once; the CLI says the session does not exist (followed by a
 * backtrace), so the runner goes straight to a fresh session and shows the CLI's own message, not a frame.
 */
import assert from "node:assert/strict";
import { pidsWithEnv } from "../../src/util/proc_tree.ts";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts, waitFor } from "./support.ts";

const INIT = JSON.stringify({ type: "system", subtype: "init", session_id: "s-1", model: "m", cwd: "/x" });
const INIT2 = JSON.stringify({ type: "system", subtype: "init", session_id: "s-2", model: "m", cwd: "/x" });
const RESULT = JSON.stringify({
  type: "result",
  subtype: "success",
  is_error: false,
  result: "done",
  session_id: "s-2",
});

Deno.test("crash resume of a session the CLI no longer knows: one try, then a fresh session at once", async () => {
  await using dir = await tempDir();
  const marker = crypto.randomUUID();
  const calls = `${dir.path}/calls.txt`;
  const cli = `${dir.path}/fake-claude`;
  await Deno.writeTextFile(
    cli,
    [
      "#!/bin/bash",
      `export FAULT_MARKER=${marker}`,
      `[ "$1" = "--version" ] && { echo "2.1.0 (Claude Code)"; exit 0; }`,
      `if [[ " $* " == *" --resume "* ]]; then`,
      `  echo resume >> ${calls}`,
      `  echo "No conversation found with session ID: s-1" >&2`,
      `  printf 'Stack backtrace:\\n   8: std::rt::lang_start_internal\\n   9: <unknown>\\n' >&2`,
      `  exit 1`,
      `fi`,
      `if [ -f ${calls} ]; then`,
      `  echo fresh >> ${calls}; echo '${INIT2}'; echo hi > hello.txt; echo '${RESULT}'; exit 0`,
      `fi`,
      `echo first >> ${calls}; echo '${INIT}'; while :; do sleep 0.2; done`,
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
  await waitFor(async () => {
    const prompts = await readPrompts(pkt).catch(() => null);
    const a = prompts?.["01"]?.attempts[0] as { session_id?: string | null } | undefined;
    return a?.session_id === "s-1";
  });
  child.kill("SIGKILL");
  await child.output();

  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual((await Deno.readTextFile(calls)).trim().split("\n"), ["first", "resume", "fresh"]);
  assert.match(
    r.stdout,
    /session s-1 cannot be resumed \(.*No conversation found with session ID: s-1\); starting a fresh session/,
  );
  assert.doesNotMatch(r.stdout + r.stderr, /<unknown>/);
  assert.equal((await readPrompts(pkt))["01"]?.status, "completed");
  assert.deepEqual(await pidsWithEnv("FAULT_MARKER", marker), [], "the first run's provider was reaped");
});
