import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, startLivePlane, writeDemoPacket } from "../control/_harness.ts";
import { holdsOpen, waitFor, within } from "../support/wait.ts";

Deno.test("control events --no-follow prints human lines; --json prints envelopes", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    const r = await runCli(["control", "events", dir, "--no-follow"]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 5);
    assert.match(lines[0]!, /^ {4}1 {2}\d\d:\d\d:\d\d\.\d{3} {2}run_opened {13}/);
    assert.match(lines[2]!, /^ {4}3 {2}\d\d:\d\d:\d\d\.\d{3} {2}tool_call_started {6}shell: mix test$/);
    assert.match(lines[3]!, /^ {4}4 {2}.{12} {2}tool_call_completed {4}shell exit 0 \(1\.2k chars\)$/);
    const j = await runCli(["control", "events", dir, "--no-follow", "--json", "--from", "4"]);
    const envs = j.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(envs.map((e) => e.seq), [4, 5]);
    assert.equal(envs[0].run_id, RUN_ID);
  } finally {
    await live.stop();
  }
});

Deno.test("control events follows until the run finishes and ends with -- run completed --", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const child = spawnCli(["control", "events", dir, "--from", "current"]);
  const events = `${await Deno.realPath(dir)}/.prompt_runner/control/events.jsonl`;
  await waitFor(() => holdsOpen(child.pid, events), { what: "the follower following events.jsonl" });
  await live.stop();
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(text, "-- run completed --\n");
});

Deno.test("control events prints a live event while the run is still running (flushed when the follower waits)", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const child = spawnCli(["control", "events", dir, "--from", "current"]);
  const events = `${dir}/.prompt_runner/control/events.jsonl`;
  await waitFor(() => holdsOpen(child.pid, events), { what: "the follower following events.jsonl" });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    assert.equal((await runCli(["control", "view", dir, "--tool-output", "full", "--wait"])).code, 0);
    // The run has not ended: the line can only arrive because the follower flushed before it waited again.
    while (!text.includes("view_changed")) {
      const r = await within(reader.read(), 15_000, null);
      if (r === null) throw new Error(`no live event printed within 15 s: ${JSON.stringify(text)}`);
      if (r.done) throw new Error(`the follower ended before printing the live event: ${JSON.stringify(text)}`);
      text += r.value;
    }
    assert.ok(!text.includes("-- run"), `the run had not ended yet: ${JSON.stringify(text)}`);
  } finally {
    await live.stop();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await child.status;
  }
  assert.match(text, /view_changed +.*tool_output=full/);
  assert.ok(text.endsWith("-- run completed --\n"), JSON.stringify(text));
});

Deno.test("control events --from rejects a malformed cursor with exit 2", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli(["control", "events", dir, "--from", "yesterday"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--from does not take "yesterday"/);
});

Deno.test("control log prints refusals and applied entries; --json prints stored entries", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  try {
    assert.equal(
      (await runCli(["control", "view", dir, "--tool-output", "full", "--author", "ada", "--wait"])).code,
      0,
    );
    // A hand-written request the API would refuse: the runner logs the refusal.
    const store = `${dir}/.prompt_runner/control`;
    const name = "20261130T120701.000001Z-1-000001-abcd.json";
    await Deno.writeTextFile(
      `${store}/.tmp/${name}`,
      JSON.stringify({ command: "set_view", params: { tool_output: "everything" }, run_id: null, author: "bob" }),
    );
    await Deno.rename(`${store}/.tmp/${name}`, `${store}/requests/${name}`);
    await waitFor(async () => (await runCli(["control", "log", dir])).stdout.includes("everything"), {
      timeoutMs: 5_000,
      what: "the refusal in the log",
      intervalMs: 100,
    });
    const r = await runCli(["control", "log", dir]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}applied {3}set_view \{"tool_output":"full"\} {2}by ada on 01\/1$/,
    );
    assert.match(
      lines[1]!,
      /^.{24} {2}rejected {2}set_view \{"tool_output":"everything"\} {2}by bob on 01\/1 — tool_output does not take "everything"; allowed: full, none, preview, summary$/,
    );
    const j = await runCli(["control", "log", dir, "--json"]);
    const entries = j.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.equal(entries[1].key, `${name}:rejected`);
    assert.equal(entries[1].run_id, RUN_ID);
  } finally {
    await live.stop();
  }
  const f = await runCli(["control", "log", dir, "--follow"]);
  assert.equal(f.code, 0);
  assert.equal(f.stdout.trimEnd().split("\n").length, 2, "follow on a finished run drains and ends");
});

Deno.test("control log on a packet that never ran exits 4", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli(["control", "log", dir, "--json"]);
  assert.equal(r.code, 4);
  assert.equal((parseJsonOut(r) as { error: { code: string } }).error.code, "no_run");
});

Deno.test("control log --follow prints new entries live and ends when the run finishes", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  const child = spawnCli(["control", "log", dir, "--follow", "--json"]);
  const log = `${await Deno.realPath(dir)}/.prompt_runner/control/log.jsonl`;
  await waitFor(() => holdsOpen(child.pid, log), { what: "the follower following log.jsonl" });
  assert.equal((await runCli(["control", "view", dir, "--thinking", "hide", "--wait"])).code, 0);
  await live.stop();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const entries = new TextDecoder().decode(out.stdout).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(entries.map((e) => [e.command, e.outcome, e.params]), [["set_view", "applied", {
    thinking: "hide",
  }]]);
});

Deno.test("control events --run takes a run id, never a path into or out of the store", async () => {
  await using dir = await tempDir();
  const packet = await writeDemoPacket(dir.path);
  for (const run of ["../../../../leak", "latest"]) {
    const r = await runCli(["control", "events", packet, "--run", run, "--no-follow"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^error: --run takes a run id such as 20261130T120501Z-7QK2MD, got "${run}"`));
  }
});
