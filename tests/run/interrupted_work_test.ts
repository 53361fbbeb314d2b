/**
 * A prompt interrupted with its runner alive (Ctrl-C) records its uncommitted work (docs/crash_recovery.md, "A prompt
 * interrupted by Ctrl-C or stop"). A path the user dirties afterwards is not the prompt's: `run --remaining` refuses
 * naming it; with `--allow-dirty` it stays out of the prompt's commit. Without such a path the prompt resumes as before.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { readPrompts, readSnapshot } from "./support.ts";
import { checkRecovered, makeCrashPacket } from "../support/crash_packet.ts";

/** A three-prompt packet interrupted (SIGINT) while prompt 02's session is live. */
async function interruptedAt02(root: string): Promise<string> {
  const pkt = await makeCrashPacket(root, { prompts: 3, stepMs: 300, append: true });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => {
    const s = await readSnapshot(pkt);
    return s?.prompt_id === "02" && s?.session_live === true;
  }, { intervalMs: 5, what: "prompt 02's live session" });
  child.kill("SIGINT");
  const o = await child.output();
  assert.equal(o.code, 130, new TextDecoder().decode(o.stderr));
  const entry = (await readPrompts(pkt))["02"] as unknown as { status: string; interrupted_work?: unknown };
  assert.equal(entry.status, "interrupted");
  assert.ok(entry.interrupted_work, "the interrupted prompt's work is on its entry");
  return pkt;
}

Deno.test("after a Ctrl-C, a path the user dirtied is refused by run --remaining, naming it", async () => {
  await using dir = await tempDir();
  const pkt = await interruptedAt02(dir.path);
  await Deno.writeTextFile(`${pkt}/app/README.md`, "# my own edit\n");
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /repo app: prompt 02 was interrupted, and its repo has changed since — 1 path\(s\) not its own: README\.md/,
  );
  // Back to the prompt's own work: it resumes and completes as ever.
  await git(`${pkt}/app`, "checkout", "--", "README.md");
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 0, again.stdout + again.stderr);
  assert.equal(await checkRecovered(pkt, 3, { allowNoChanges: false }), null);
});

Deno.test("after a Ctrl-C, --allow-dirty keeps the user's later edit out of the interrupted prompt's commit", async () => {
  await using dir = await tempDir();
  const pkt = await interruptedAt02(dir.path);
  await Deno.writeTextFile(`${pkt}/app/README.md`, "# my own edit\n");
  const r = await runCli(["run", pkt, "--remaining", "--allow-dirty"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(await git(`${pkt}/app`, "status", "--porcelain"), "M README.md", "the user's edit is left as it was");
  for (const id of ["01", "02", "03"]) {
    const sha = await git(`${pkt}/app`, "log", "-1", "--format=%H", `--grep=Prompt-Runner-Prompt: ${id}`);
    const files = (await git(`${pkt}/app`, "show", "--name-only", "--format=", sha)).split("\n");
    assert.ok(!files.includes("README.md"), `prompt ${id}'s commit holds README.md: ${files}`);
  }
  await git(`${pkt}/app`, "checkout", "--", "README.md");
  assert.equal(await checkRecovered(pkt, 3, { allowNoChanges: false }), null);
});
