import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { TextFollower } from "../support/wait.ts";

async function writeRunRecord(dir: string, state: string) {
  const p = storePaths(storeRootForPacket(dir));
  await Deno.mkdir(p.runDir(RUN_ID), { recursive: true });
  const now = new Date().toISOString();
  await Deno.writeTextFile(
    `${p.runDir(RUN_ID)}/run.json`,
    JSON.stringify({
      schema: "prompt_runner.run/v1",
      run_id: RUN_ID,
      state,
      packet_fingerprint: "x",
      selection: { ids: ["01", "02"], selectors: {} },
      created_at: now,
      updated_at: now,
      resumed_at: [],
      reason: null,
    }),
  );
  await Deno.writeTextFile(p.currentRun, JSON.stringify({ run_id: RUN_ID, path: `runs/${RUN_ID}/run.json` }));
}

Deno.test("status on a packet that never ran reports not started and exits 0", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli(["status", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "  demo — NOT STARTED · not started\n  service    none · process down\n");
  const j = parseJsonOut(await runCli(["status", dir, "--json"]));
  assert.equal(j.schema, "prompt_runner.status/v1");
  assert.equal(j.state, "not_started");
  assert.equal(j.healthy, null);
});

Deno.test("status reconciles a running run: progress, current prompt, activity, steering, amendments, lease", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "running");
  const live = await startLivePlane(dir);
  try {
    await runCli(["control", "steer", dir, "--wait", "--", "look", "here"]);
    await runCli(["control", "amend", dir, "1", "--add-file", "x.md", "--reason", "r"]);
    const j = parseJsonOut(await runCli(["status", dir, "--json"]));
    assert.equal(j.state, "running");
    assert.equal(j.healthy, true);
    assert.equal(j.run_id_agrees, true);
    assert.deepEqual(
      { ...(j.progress as Record<string, unknown>) },
      {
        selected: 2,
        completed: 0,
        running: 1,
        failed: 0,
        blocked: 0,
        pending: 1,
        current_position: 1,
        last_verification: null,
        reason: null,
        error: null,
      },
    );
    assert.deepEqual(j.steering, { prompt_id: "01", used: 1, max: 3, pending: 0, delivered_this_run: 1 });
    assert.deepEqual(j.amendments, [{ prompt_id: "01", count: 1, phases: ["pre_verify"] }]);
    assert.equal((j.lease as { state: string }).state, "up");
    const r = await runCli(["status", dir]);
    assert.equal(r.code, 0);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "  demo — RUNNING · healthy");
    assert.equal(lines[1], "  progress   0/2 prompts complete · 1 running · 1 pending");
    assert.equal(lines[2], "  current    01 — First · 1 of 2");
    assert.equal(lines[3], "  provider   simulated / simulated-demo");
    assert.match(
      lines[4]!,
      /^ {2}activity {3}[\d.]+m?s this prompt · updated \d+s ago · 1 tool this attempt · \d+ events this run$/,
    );
    assert.equal(lines[5], "  tokens     120 in / 30 out this attempt · 120 in / 30 out this run");
    assert.equal(lines[6], "  steering   1 of 3 steers used on 01");
    assert.equal(lines[7], "  contract   01 amended 1 time (pre_verify)");
    assert.match(lines[8]!, /^ {2}service {4}attached · process up \(pid \d+ on .+\)$/);
  } finally {
    await live.stop();
  }
});

Deno.test("status of a crashed run is abandoned and needs attention", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "running");
  const live = await startLivePlane(dir, RUN_ID, "crash");
  await live.stop();
  const j = parseJsonOut(await runCli(["status", dir, "--json"]));
  assert.equal(j.state, "abandoned");
  assert.equal(j.health, "needs attention");
  assert.equal(j.healthy, false);
  const r = await runCli(["status", dir]);
  assert.match(r.stdout, /^ {2}demo — ABANDONED · needs attention\n/);
  assert.match(r.stdout, /\n {2}stopped at 01 — First · 1 of 2\n/);
});

Deno.test("status reads progress.log as run --remaining and list do: unpadded ids count, suffixes and all", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "failed");
  const store = storeRootForPacket(dir);
  await Deno.writeTextFile(
    storePaths(store).progress,
    "1:completed:2026-11-30T12:05:04.019Z:no_session\n002:failed:2026-11-30T12:05:05+01:00\n",
  );
  const j = parseJsonOut(await runCli(["status", dir, "--json"]));
  const progress = j.progress as Record<string, unknown>;
  assert.deepEqual(
    { completed: progress.completed, failed: progress.failed, pending: progress.pending, error: progress.error },
    { completed: 1, failed: 1, pending: 0, error: null },
  );
  // The runner's own readers agree: 01 is done, 02 is what --remaining would run.
  const list = parseJsonOut(await runCli(["list", dir, "--json"]));
  assert.deepEqual((list.prompts as { status: string }[]).map((p) => p.status), ["completed", "failed"]);
  assert.deepEqual(parseJsonOut(await runCli(["plan", dir, "--remaining", "--json"])).selected, ["02"]);
});

Deno.test("status skips a malformed progress line and reports it in progress.error without failing", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "failed");
  await Deno.writeTextFile(
    storePaths(storeRootForPacket(dir)).progress,
    "01:completed:2026-11-30T12:05:04.019Z\nx:completed:2026-11-30T12:05:05.000Z\n02:completed:2026-11-30T12:05:06Z:junk\n",
  );
  const r = await runCli(["status", dir, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const progress = parseJsonOut(r).progress as Record<string, unknown>;
  assert.equal(progress.completed, 1);
  assert.equal(progress.pending, 1);
  assert.equal(progress.error, "progress.log line 2 is malformed");
});

Deno.test("status ignores a runs/current.json whose run id escapes runs/", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const p = storePaths(storeRootForPacket(dir));
  // A well-formed record the pointer would reach if it were followed: <store>/runs/../x/run.json.
  await Deno.mkdir(`${p.root}/x`, { recursive: true });
  await Deno.writeTextFile(
    `${p.root}/x/run.json`,
    JSON.stringify({
      schema: "prompt_runner.run/v1",
      run_id: "x",
      state: "failed",
      packet_fingerprint: "x",
      selection: { ids: ["01"], selectors: {} },
      created_at: "2026-11-30T12:05:01.000Z",
      updated_at: "2026-11-30T12:06:01.000Z",
      resumed_at: [],
      reason: "prompt_failed",
    }),
  );
  await Deno.mkdir(`${p.root}/runs`, { recursive: true });
  await Deno.writeTextFile(p.currentRun, JSON.stringify({ run_id: "../x", path: "runs/../x/run.json" }));
  const r = await runCli(["status", dir, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const j = parseJsonOut(r);
  assert.equal(j.state, "not_started");
  assert.equal(j.run_id, null);
  assert.equal(j.selection, null);
  assert.equal(j.last_progress_at, null);
});

Deno.test("status exits 4 when the target does not exist", async () => {
  await using tmp = await tempDir();
  const r = await runCli(["status", `${tmp.path}/nope/`]);
  assert.equal(r.code, 4);
});

Deno.test("status --watch --json prints one line per change and ends when the run ends", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "running");
  const live = await startLivePlane(dir);
  const child = spawnCli(["status", dir, "--watch", "--json", "--interval", "100ms"]);
  const out = new TextFollower(child.stdout);
  await out.until((t) => t.includes("\n"));
  await runCli(["control", "view", dir, "--diff", "full", "--wait"]);
  await live.stop();
  const text = await out.rest();
  const status = await child.status;
  assert.equal(status.code, 0);
  const docs = text.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.ok(docs.length >= 2, `several reports: ${docs.length}`);
  assert.equal(docs[0].state, "running");
  assert.equal(docs.at(-1).state, "completed");
  assert.ok(docs.some((d) => d.control?.view?.diff === "full"), "the view change was reported");
});

Deno.test("status after a real completed run reports the last prompt, the lease down and healthy", async () => {
  const { setupExample } = await import("../../examples/setup.ts");
  const root = await Deno.makeTempDir({ prefix: "pr-status-" });
  try {
    const packet = await setupExample("recovery", root);
    const run = await runCli(["run", packet]);
    assert.equal(run.code, 0, run.stderr);
    const r = await runCli(["status", packet]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}recovery — COMPLETED · healthy\n/);
    assert.match(r.stdout, /\n {2}progress {3}9\/9 prompts complete\n/);
    assert.match(r.stdout, /\n {2}last prompt 09 — Transport timeout · 9 of 9\n/);
    assert.match(r.stdout, /\n {2}service {4}none · process down\n/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("status reads each selected prompt's amendments file it lists, and reports one it may not read", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  await writeRunRecord(dir, "completed");
  const p = storePaths(storeRootForPacket(dir));
  await Deno.mkdir(p.amendments, { recursive: true });
  const record = {
    schema: "prompt_runner.amendment/v1",
    seq: 1,
    run_id: RUN_ID,
    prompt_id: "02",
    kind: "amend",
    phase: "pre_verify",
  };
  await Deno.writeTextFile(p.amendmentsFile("02"), JSON.stringify(record) + "\n");
  let j = parseJsonOut(await runCli(["status", dir, "--json"]));
  assert.deepEqual(j.amendments, [{ prompt_id: "02", count: 1, phases: ["pre_verify"] }]);
  // A symlink where 01's file would be is listed, read by name and refused, and said: not skipped as absent.
  await Deno.symlink(p.amendmentsFile("02"), p.amendmentsFile("01"));
  j = parseJsonOut(await runCli(["status", dir, "--json"]));
  assert.match(JSON.stringify(j), /amendments\/01\.jsonl not read/);
  assert.deepEqual(j.amendments, [{ prompt_id: "02", count: 1, phases: ["pre_verify"] }]);
});
