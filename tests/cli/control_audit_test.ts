/**
 * Audit completeness (docs/reference/control-plane.md §10): every refusal made at the call reaches the audit log with command,
 * outcome `rejected`, author and reason; the default author is the OS user when USER/USERNAME are unset.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";
import { passwdName } from "../../src/util/os_user.ts";

/** The expected OS user of a child process: our own uid's name (the child runs as the same user). */
function expectedOsUser(): string {
  const uid = Deno.uid()!;
  return passwdName(Deno.readTextFileSync("/etc/passwd"), uid) ?? `uid:${uid}`;
}

/** USER and USERNAME unset (empty counts as unset). */
const NO_USER = { USER: "", USERNAME: "" };

async function logOf(dir: string): Promise<Record<string, unknown>[]> {
  return parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log));
}

Deno.test("amend without --reason and relax without --confirm are refused (exit 2) and logged with the OS user", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const amend = await runCli(["control", "amend", dir, "1", "--add-file", "NOTES.md"], { env: NO_USER });
    assert.equal(amend.code, 2, amend.stderr);
    assert.match(amend.stderr, /^error: an amendment needs a reason/);
    const relax = await runCli(["control", "relax", dir, "1", "--drop", "contains", "--reason", "wrong"], {
      env: { ...NO_USER, USERNAME: "  " },
    });
    assert.equal(relax.code, 2, relax.stderr);
    const named = await runCli(["control", "amend", dir, "9", "--add-file", "x", "--reason", "r", "--author", "ada"]);
    assert.equal(named.code, 4, named.stderr);
  } finally {
    await live.stop();
  }
  const log = await logOf(dir);
  const user = expectedOsUser();
  assert.notEqual(user, "unknown");
  assert.deepEqual(log.map((e) => [e.command, e.outcome, e.author, e.request, e.prompt_id, e.run_id]), [
    ["amend", "rejected", user, null, "01", RUN_ID],
    ["relax", "rejected", user, null, "01", RUN_ID],
    ["amend", "rejected", "ada", null, "09", RUN_ID],
  ]);
  assert.equal(log[0]!.reason, "an amendment needs a reason (--reason)");
  assert.deepEqual(log[0]!.params, { clause: "files_exist", entries: ["NOTES.md"], persist: false });
  assert.equal(log[1]!.reason, "relaxing a contract needs explicit confirmation (--confirm)");
  assert.deepEqual(log[1]!.params, {
    clause: "contains",
    operation: "drop",
    entries: [],
    confirm: false,
    persist: false,
  });
  assert.equal(log[2]!.reason, 'prompt "9" is not in packet demo');
  // Keys are unique: a dashboard can tell two identical refusals apart.
  assert.equal(new Set(log.map((e) => e.key)).size, log.length);
  // Nothing else was written: no amendment records.
  await assert.rejects(Deno.lstat(storePaths(storeRootForPacket(dir)).amendmentsFile("01")), Deno.errors.NotFound);
});

Deno.test("view and steer to a run that has ended: exit 4, never 'queued'/'Requested', and logged", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  await live.stop();
  const view = await runCli(["control", "view", dir, "--diff", "full"], { env: NO_USER });
  assert.equal(view.code, 4, view.stderr);
  assert.equal(view.stdout, "");
  assert.equal(view.stderr, `error: run ${RUN_ID} is completed; nothing will answer a request\n`);
  const steer = await runCli(["control", "steer", dir, "--", "too", "late"], { env: NO_USER });
  assert.equal(steer.code, 4, steer.stderr);
  assert.equal(steer.stdout, "");
  const log = (await logOf(dir)).filter((e) => e.outcome === "rejected");
  assert.deepEqual(log.map((e) => [e.command, e.author, e.params, e.reason]), [
    ["set_view", expectedOsUser(), { diff: "full" }, `run ${RUN_ID} is completed; nothing will answer a request`],
    ["steer", expectedOsUser(), { text: "too late" }, `run ${RUN_ID} is completed; nothing will answer a request`],
  ]);
  assert.deepEqual([...Deno.readDirSync(storePaths(storeRootForPacket(dir)).requests)], []);
});

Deno.test("a refusal for a packet that never ran creates nothing (no plane to reach)", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli(["control", "amend", dir, "1", "--add-file", "x"]);
  assert.equal(r.code, 2, r.stderr);
  await assert.rejects(Deno.lstat(storeRootForPacket(dir)), Deno.errors.NotFound);
});
