import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

async function logOf(dir: string) {
  return parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).log));
}

Deno.test("control view queues a request that the live run applies; --wait prints the outcome", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const r = await runCli(["control", "view", dir, "--tool-output", "full", "--diff", "full", "--author", "ada"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `Requested diff=full, tool_output=full for run ${RUN_ID}; it applies at the next boundary (see control log).\n`,
    );
    const w = await runCli(["control", "view", dir, "--log-mode", "studio", "--wait", "--json"]);
    assert.equal(w.code, 0, w.stderr);
    const j = parseJsonOut(w);
    assert.equal(j.run_id, RUN_ID);
    assert.equal(j.outcome, "applied");
    assert.match(String(j.request), /^\d{8}T\d{6}\.\d{6}Z-\d+-\d{6}-[0-9a-f]{4}\.json$/);
    const snap = parseJsonOut(await runCli(["control", "status", dir, "--json"]));
    assert.deepEqual(snap.view, { log_mode: "studio", tool_output: "full", thinking: "show", diff: "full" });
    const log = await logOf(dir);
    assert.deepEqual(log.map((e) => [e.command, e.outcome, e.author]).slice(0, 1), [["set_view", "applied", "ada"]]);
  } finally {
    await live.stop();
  }
});

Deno.test("control view validates before writing: no setting → exit 2, bad value → exit 2, no request, refusals logged", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const none = await runCli(["control", "view", dir]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^error: no view setting given/);
    const bad = await runCli(["control", "view", dir, "--tool-output", "everything", "--json"]);
    assert.equal(bad.code, 2);
    const j = parseJsonOut(bad) as { error: { code: string; message: string } };
    assert.equal(j.error.code, "invalid_view_value");
    assert.equal(j.error.message, '--tool-output does not take "everything"; allowed: none, summary, preview, full');
    // In human form: the flag as typed, the values in the order of --help, and where the help is.
    const human = await runCli(["control", "view", dir, "--log-mode", "compct"]);
    assert.equal(human.code, 2);
    assert.equal(
      human.stderr,
      'error: --log-mode does not take "compct"; allowed: compact, verbose, studio\n' +
        "  see `prompt_runner control view --help`\n",
    );
    const reqs = [...Deno.readDirSync(storePaths(storeRootForPacket(dir)).requests)];
    assert.equal(reqs.length, 0);
  } finally {
    await live.stop();
  }
  // No request reached the runner, but both refusals are on the record, with the OS user as author.
  const log = await logOf(dir);
  assert.deepEqual(log.map((e) => [e.command, e.outcome, e.request, e.reason]), [
    ["set_view", "rejected", null, "no view settings given"],
    ["set_view", "rejected", null, 'tool_output does not take "everything"; allowed: full, none, preview, summary'],
    ["set_view", "rejected", null, 'log_mode does not take "compct"; allowed: compact, studio, verbose'],
  ]);
  assert.deepEqual(log[1]!.params, { tool_output: "everything" });
  assert.equal(log[1]!.run_id, RUN_ID);
});

Deno.test("control steer joins words, is delivered by the live run, and refuses a finished run", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const r = await runCli(["control", "steer", dir, "--author", "ada", "--", "demo", "is", "misnamed"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `Steer queued for prompt 01 of run ${RUN_ID}; it is delivered at the next boundary (see control log).\n`,
    );
    const w = await runCli(["control", "steer", dir, "run", "the", "tests", "--wait"]);
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /\ndelivered \(interrupt_and_resume\)\n$/);
    const empty = await runCli(["control", "steer", dir]);
    assert.equal(empty.code, 2);
  } finally {
    await live.stop();
  }
  const log = await logOf(dir);
  const steers = log.filter((e) => e.command === "steer");
  assert.deepEqual(steers.map((e) => e.outcome), ["accepted", "applied", "accepted", "applied", "rejected"]);
  assert.deepEqual(steers[1]!.params, { text: "demo is misnamed", delivery: "interrupt_and_resume" });
  assert.deepEqual([steers[4]!.request, steers[4]!.reason], [null, "steer text is empty"]);
  const iv = parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).interventionsFile("01")));
  assert.equal(iv.length, 2);
  const done = await runCli(["control", "steer", dir, "--json", "--author", "eve", "--", "too", "late"]);
  assert.equal(done.code, 4);
  assert.equal((parseJsonOut(done) as { error: { code: string } }).error.code, "run_not_running");
  assert.doesNotMatch(done.stdout + done.stderr, /queued/);
  const human = await runCli(["control", "steer", dir, "still", "too", "late"]);
  assert.equal(human.code, 4);
  assert.equal(human.stdout, "");
  assert.equal(human.stderr, `error: run ${RUN_ID} is completed; nothing will answer a request\n`);
  // Both refusals of the finished run are on the record; no request file was left for anyone to answer.
  const after = (await logOf(dir)).slice(log.length);
  assert.deepEqual(after.map((e) => [e.command, e.outcome, e.author, e.params, e.run_id]), [
    ["steer", "rejected", "eve", { text: "too late" }, RUN_ID],
    ["steer", "rejected", after[1]!.author, { text: "still too late" }, RUN_ID],
  ]);
  assert.equal(after[0]!.reason, `run ${RUN_ID} is completed; nothing will answer a request`);
  assert.deepEqual([...Deno.readDirSync(storePaths(storeRootForPacket(dir)).requests)], []);
});
