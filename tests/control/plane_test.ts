import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, names, readJson, reqName, RUN_ID, testPlane } from "./_harness.ts";
import { nullPlane, openPlane } from "../../src/control/plane.ts";
import { storePaths } from "../../src/store/paths.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { FakeHooks } from "./_harness.ts";
import { steerCountsForRun } from "../../src/control/interventions.ts";
import { waitFor } from "../support/wait.ts";
import { writeTotals } from "../../src/util/read_meter.ts";

const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "s-1" };

Deno.test("openPlane() creates private dirs, store.json, .gitignore, a running snapshot and run_opened", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/.prompt_runner`;
  const { plane, paths } = await testPlane(store, { selection: ["01", "02"] });
  try {
    for (const d of [paths.root, paths.control, paths.requests, paths.outcomes, paths.rejected, paths.controlTmp]) {
      assert.equal((await Deno.stat(d)).mode! & 0o777, 0o700, d);
    }
    assert.equal(await Deno.readTextFile(paths.gitignore), "*\n");
    const info = await readJson(paths.storeJson);
    assert.equal(info.schema, "prompt_runner.store/v1");
    assert.equal(info.kind, "packet");
    const snap = await readJson(paths.snapshot);
    assert.equal(snap.status, "running");
    assert.equal(snap.stage, "starting");
    assert.equal(snap.run_id, RUN_ID);
    assert.equal((await Deno.stat(paths.snapshot)).mode! & 0o777, 0o600);
    await plane.sync();
    const ev = await lines(paths.events);
    assert.equal(ev.length, 1);
    assert.equal(ev[0]!.type, "run_opened");
    assert.equal(ev[0]!.seq, 1);
    assert.deepEqual((ev[0]!.data as Record<string, unknown>).selection, ["01", "02"]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("record() stamps seq/at/context, buffers appends and folds tools and tokens per stream", async () => {
  await using tmp = await tempDir();
  const { plane, paths } = await testPlane(`${tmp.path}/s`);
  try {
    plane.transition({ stage: "session", prompt_id: "01", attempt: 1, attempt_started_at: new Date().toISOString() });
    plane.record({ type: "run_started", data: { provider_session_id: "s-1", model: "m" } }, ctx);
    plane.record({ type: "tool_call_started", data: { tool_call_id: "t1", tool_name: "Edit", tool_input: {} } }, ctx);
    plane.record({ type: "token_usage_updated", data: { input_tokens: 100, output_tokens: 10 } }, ctx);
    plane.record({ type: "token_usage_updated", data: { input_tokens: 150, output_tokens: 20 } }, ctx);
    // A second stream (resume) adds its own cumulative usage.
    plane.record({ type: "run_started", data: { provider_session_id: "s-1", model: "m" } }, {
      ...ctx,
      stream: "steer",
    });
    const env = plane.record({ type: "token_usage_updated", data: { input_tokens: 5, output_tokens: 1 } }, {
      ...ctx,
      stream: "steer",
    });
    assert.equal(env.seq, 7);
    assert.equal(env.prompt_id, "01");
    assert.equal(env.stream, "steer");
    assert.equal(env.origin, "provider");
    plane.boundary(); // flushes
    const ev = await lines(paths.events);
    assert.deepEqual(ev.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7]);
    plane.transition({ stage: "verifying" }); // a stage change within the attempt: coalesced
    await plane.sync(); // the prompt boundary writes it
    const snap = await readJson(paths.snapshot);
    assert.equal(snap.tool_count, 1);
    assert.equal(snap.input_tokens, 155);
    assert.equal(snap.output_tokens, 21);
    assert.equal(snap.event_count, 7);
    assert.equal(snap.last_seq, 7);
    assert.equal(snap.stage, "verifying");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("the run's token totals keep every attempt's usage; the attempt's start over (run_completed usage counts once)", async () => {
  await using tmp = await tempDir();
  const { plane, paths } = await testPlane(`${tmp.path}/s`);
  try {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    plane.transition({ stage: "session", prompt_id: "01", attempt: 1, attempt_started_at: at(1) });
    plane.record({ type: "run_started", data: { provider_session_id: "s-1", model: "m" } }, ctx);
    plane.record({ type: "token_usage_updated", data: { input_tokens: 2400, output_tokens: 140 } }, ctx);
    // The same cumulative usage again on run_completed (claude reports it twice): not added twice.
    plane.record({
      type: "run_completed",
      data: { stop_reason: "end_turn", token_usage: { input_tokens: 2400, output_tokens: 140 } },
    }, ctx);
    plane.transition({ prompt_id: "02", attempt: 1, attempt_started_at: at(2) });
    plane.record({ type: "run_started", data: { provider_session_id: "s-2", model: "m" } }, {
      ...ctx,
      prompt_id: "02",
    });
    // Usage reported only on run_completed still counts.
    plane.record({
      type: "run_completed",
      data: { stop_reason: "end_turn", token_usage: { input_tokens: 100, output_tokens: 7 } },
    }, { ...ctx, prompt_id: "02" });
    plane.transition({ prompt_id: "03", attempt: 1, attempt_started_at: at(3) });
    await plane.sync();
    const snap = await readJson(paths.snapshot);
    assert.deepEqual([snap.input_tokens, snap.output_tokens], [0, 0]);
    assert.deepEqual([snap.run_input_tokens, snap.run_output_tokens], [2500, 147]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("a session going live or ending is written at once after a quiet window, and coalesced inside one", async () => {
  await using tmp = await tempDir();
  // A window no machine outlasts: with the default 50 ms a loaded machine could pass it between two lines below.
  const wide = await testPlane(`${tmp.path}/wide`, { snapshotCoalesceMs: 60_000 });
  try {
    wide.plane.transition({
      stage: "session",
      prompt_id: "01",
      attempt: 1,
      attempt_started_at: new Date().toISOString(),
    });
    wide.plane.transition({ session_live: true }); // inside the window of the open's write
    await wide.plane.settled();
    assert.equal((await readJson(wide.paths.snapshot)).session_live, false, "coalesced: not written yet");
    await wide.plane.sync(); // the next write, whatever causes it, carries it
    assert.equal((await readJson(wide.paths.snapshot)).session_live, true);
  } finally {
    await wide.plane.close("completed", null);
  }
  // A window that has always passed: every transition is written as it happens.
  const quiet = await testPlane(`${tmp.path}/quiet`, { snapshotCoalesceMs: 0 });
  try {
    quiet.plane.transition({ stage: "session", prompt_id: "01", attempt: 1 });
    quiet.plane.transition({ session_live: true });
    await quiet.plane.settled(); // the write started at once, off this thread
    assert.equal((await readJson(quiet.paths.snapshot)).session_live, true, "visible without waiting for a timer");
    quiet.plane.transition({ session_live: false });
    await quiet.plane.settled();
    assert.equal((await readJson(quiet.paths.snapshot)).session_live, false);
  } finally {
    await quiet.plane.close("completed", null);
  }
});

Deno.test("events are flushed within 20 ms without a boundary", async () => {
  await using tmp = await tempDir();
  const { plane, paths } = await testPlane(`${tmp.path}/s`);
  try {
    plane.record({ type: "notice", data: { level: "info", code: "x", message: "y" } }, ctx);
    assert.equal((await lines(paths.events)).length, 1, "buffered, not yet written");
    // No boundary is called: the flush timer alone must write the line.
    await waitFor(async () => (await lines(paths.events)).length >= 2, {
      timeoutMs: 2_000,
      what: "the flush timer writing the line",
      intervalMs: 10,
    });
    assert.equal((await lines(paths.events)).length, 2);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("set_view requests apply in order, each logged with a receipt, view_changed and snapshot", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  try {
    const a = await dropRaw(store, reqName(), body("set_view", { tool_output: "full" }));
    const b = await dropRaw(store, reqName(), body("set_view", { log_mode: "studio", tool_output: "none" }));
    plane.boundary();
    assert.deepEqual(hooks.views.map((v) => v.changed), [{ tool_output: "full" }, {
      log_mode: "studio",
      tool_output: "none",
    }]);
    assert.equal(plane.view.tool_output, "none");
    assert.equal(plane.view.log_mode, "studio");
    const log = await lines(paths.log);
    assert.deepEqual(log.map((e) => [e.request, e.outcome, e.key]), [[a, "applied", `${a}:applied`], [
      b,
      "applied",
      `${b}:applied`,
    ]]);
    assert.deepEqual(log[0]!.params, { tool_output: "full" });
    assert.equal(log[0]!.author, "ada");
    assert.equal((await readJson(`${paths.outcomes}/${a}`)).outcome, "applied");
    assert.deepEqual(await names(paths.requests), []);
    await plane.sync();
    const changed = (await lines(paths.events)).filter((e) => e.type === "view_changed");
    assert.equal(changed.length, 2);
    assert.equal((changed[1]!.data as { view: { log_mode: string } }).view.log_mode, "studio");
    assert.equal(((await readJson(paths.snapshot)).view as Record<string, string>).tool_output, "none");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("set_view refusals use the exact reasons and change nothing", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  try {
    await dropRaw(store, reqName(), body("set_view", { colour: "red" }));
    await dropRaw(store, reqName(), body("set_view", { tool_output: "everything" }));
    await dropRaw(store, reqName(), body("set_view", { diff: 3 }));
    await dropRaw(store, reqName(), body("set_view", {}));
    plane.boundary();
    assert.equal(hooks.views.length, 0);
    const reasons = (await lines(paths.log)).map((e) => e.reason);
    assert.deepEqual(reasons, [
      'unknown view setting "colour"; known: diff, log_mode, thinking, tool_output',
      'tool_output does not take "everything"; allowed: full, none, preview, summary',
      'diff does not take "3"; allowed: full, none, stat',
      "no view settings given",
    ]);
    assert.deepEqual(plane.view, DEFAULT_VIEW);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("malformed requests are each logged, receipted and removed; the run carries on", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  try {
    const notJson = await dropRaw(store, reqName(), "{not json");
    const notObject = await dropRaw(store, reqName(), "[1,2]");
    const noCommand = await dropRaw(store, reqName(), JSON.stringify({ params: {} }));
    const unknown = await dropRaw(store, reqName(), body("launch_rockets", {}));
    const wrongRun = await dropRaw(
      store,
      reqName(),
      body("set_view", { diff: "full" }, { run_id: "20260101T000000Z-AAAAAA" }),
    );
    const big = await dropRaw(store, reqName(), body("steer", { text: "x".repeat(70_000) }));
    const badUtf8 = await dropRaw(store, reqName(), new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    const link = reqName();
    await Deno.writeTextFile(`${tmp.path}/target.json`, "{}");
    await Deno.symlink(`${tmp.path}/target.json`, `${paths.requests}/${link}`);
    const dir = reqName();
    await Deno.mkdir(`${paths.requests}/${dir}`);
    const fifo = reqName();
    const mk = await new Deno.Command("mkfifo", { args: [`${paths.requests}/${fifo}`] }).output();
    plane.boundary();
    const log = await lines(paths.log);
    const by = new Map(log.map((e) => [e.request, e]));
    assert.equal(by.get(notJson)!.command, "unparseable");
    assert.match(String(by.get(notJson)!.reason), /^invalid JSON: /);
    assert.equal(by.get(notObject)!.command, "unparseable");
    assert.equal(by.get(noCommand)!.command, "unknown");
    assert.equal(by.get(noCommand)!.reason, "request has no command");
    assert.equal(by.get(unknown)!.command, "launch_rockets");
    assert.equal(by.get(unknown)!.reason, "unknown command");
    assert.equal(by.get(wrongRun)!.reason, "request targets run 20260101T000000Z-AAAAAA");
    assert.equal(by.get(big)!.command, "rejected_file");
    assert.equal(by.get(big)!.reason, "request larger than 65536 bytes");
    assert.equal(by.get(badUtf8)!.command, "unparseable");
    assert.equal(by.get(link)!.reason, "not a regular file (symlink)");
    assert.equal((by.get(link)!.params as { file_type: string }).file_type, "symlink");
    assert.equal((by.get(link)!.params as { file: string }).file, link);
    assert.equal(by.get(dir)!.reason, "not a regular file (directory)");
    if (mk.success) assert.equal(by.get(fifo)!.reason, "not a regular file (fifo)");
    for (const e of log) assert.equal(e.outcome, "rejected");
    assert.deepEqual(await names(paths.requests), []);
    assert.equal(await Deno.readTextFile(`${tmp.path}/target.json`), "{}", "only the link was removed");
    const rejected = await names(paths.rejected);
    assert.equal(rejected.length, 1);
    assert.ok(rejected[0]!.startsWith(`${dir}-`));
    // Receipts exist for each; nothing is processed twice.
    assert.equal((await readJson(`${paths.outcomes}/${notJson}`)).command, "unparseable");
    plane.boundary();
    assert.equal((await lines(paths.log)).length, log.length);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("a failed receipt write leaves the request pending and the retry does not duplicate the log entry", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  try {
    const name = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
    let fail = true;
    plane.audit.beforeReceipt = () => {
      if (fail) throw new Error("disk full");
    };
    plane.boundary();
    assert.deepEqual(await names(paths.requests), [], "claimed out of requests/");
    assert.deepEqual(await names(`${paths.control}/.claims/runner-${Deno.pid}`), [name], "stays claimed, pending");
    assert.equal(hooks.views.length, 0, "state unchanged");
    assert.equal((await lines(paths.log)).length, 1);
    fail = false;
    // Force rescans (the poll fallback would do this after pollMs) until the receipt is written.
    await waitFor(async () => {
      plane.boundary();
      return (await names(paths.outcomes)).includes(name);
    }, { timeoutMs: 3_000, what: "the retried receipt", intervalMs: 50 });
    const log = await lines(paths.log);
    assert.equal(log.length, 1, "no duplicate applied entry");
    assert.equal(hooks.views.length, 1);
    assert.equal((await readJson(`${paths.outcomes}/${name}`)).outcome, "applied");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("steer acceptance: exact reasons in order and budget reservation", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store, { maxSteers: 2 });
  try {
    plane.transition({ prompt_id: "01", attempt: 1, stage: "session", session_live: true });
    hooks.gate = { promptRunning: true, sessionLive: true };
    const empty = await dropRaw(store, reqName(), body("steer", { text: "   " }));
    const long = await dropRaw(store, reqName(), body("steer", { text: "é".repeat(4097) }));
    const s1 = await dropRaw(store, reqName(), body("steer", { text: "  look at the tokenizer\nsecond line " }));
    const s2 = await dropRaw(store, reqName(), body("steer", { text: "second" }));
    const s3 = await dropRaw(store, reqName(), body("steer", { text: "third" }));
    plane.boundary();
    const log = await lines(paths.log);
    const by = new Map(log.map((e) => [e.request, e]));
    assert.equal(by.get(empty)!.reason, "steer has no text");
    assert.equal(by.get(long)!.reason, "steer text exceeds 8192 bytes");
    assert.equal(by.get(s1)!.outcome, "accepted");
    assert.equal(by.get(s2)!.outcome, "accepted");
    // The plane's ledger reserves a slot per accepted steer: the third is over the budget.
    assert.equal(
      by.get(s3)!.reason,
      "steer budget spent (2/2 for this prompt); raise recovery.max_steers to allow more",
    );
    assert.deepEqual(hooks.accepted.map((s) => s.text), ["look at the tokenizer\nsecond line", "second"]);
    assert.ok(hooks.notices.some((n) => n.text === "↳ steer accepted: look at the tokenizer" && n.level === "warning"));
    assert.equal((await readJson(`${paths.outcomes}/${s1}`)).outcome, "accepted");
    await plane.settled();
    assert.equal((await readJson(paths.snapshot)).steers_pending, 2);

    hooks.gate = { promptRunning: false, sessionLive: false };
    const np = await dropRaw(store, reqName(), body("steer", { text: "x" }));
    plane.boundary();
    hooks.gate = { promptRunning: true, sessionLive: false };
    const ns = await dropRaw(store, reqName(), body("steer", { text: "x" }));
    plane.boundary();
    const log2 = new Map((await lines(paths.log)).map((e) => [e.request, e]));
    assert.equal(log2.get(np)!.reason, "no prompt is running");
    assert.equal(log2.get(ns)!.reason, "no provider session is live; nothing to steer");

    // Delivery: log applied, intervention records with batch, counts.
    const [a, b] = hooks.accepted;
    plane.steersDelivered([a!, b!], {
      delivery: "interrupt_and_resume",
      prompt_id: "01",
      attempt: 1,
      lane: "simulated",
      session_id: "s-1",
      interrupted: true,
    });
    const iv = await lines(paths.interventionsFile("01"));
    assert.equal(iv.length, 2);
    assert.equal(iv[0]!.batch, 2);
    assert.equal(iv[0]!.text, "look at the tokenizer\nsecond line");
    assert.equal(iv[0]!.request, s1);
    const applied = (await lines(paths.log)).filter((e) => e.outcome === "applied");
    assert.deepEqual(applied.map((e) => e.params), [
      { text: "look at the tokenizer\nsecond line", delivery: "interrupt_and_resume" },
      { text: "second", delivery: "interrupt_and_resume" },
    ]);
    await plane.settled();
    const snap = await readJson(paths.snapshot);
    assert.equal(snap.steer_count, 2);
    assert.equal(snap.steers_pending, 0);
    await plane.sync();
    const delivered = (await lines(paths.events)).filter((e) => e.type === "steer_delivered");
    assert.deepEqual(delivered.map((e) => (e.data as { count: number }).count), [1, 2]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("steerRejected() logs the final rejection and releases the slot", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store, { maxSteers: 1 });
  try {
    plane.transition({ prompt_id: "01", attempt: 1 });
    const r = await dropRaw(store, reqName(), body("steer", { text: "one" }));
    plane.boundary();
    plane.steerRejected(hooks.accepted[0]!, "resume failed: boom");
    const r2 = await dropRaw(store, reqName(), body("steer", { text: "two" }));
    plane.boundary();
    const log = await lines(paths.log);
    assert.deepEqual(log.filter((e) => e.request === r).map((e) => [e.outcome, e.reason]), [
      ["accepted", null],
      ["rejected", "resume failed: boom"],
    ]);
    assert.equal(log.find((e) => e.request === r2)!.outcome, "accepted");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("close() appends run_finished last, writes the final snapshot and sweeps late requests", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  plane.transition({ prompt_id: "01", attempt: 1 });
  await dropRaw(store, reqName(), body("steer", { text: "pending one" }));
  plane.boundary();
  const late = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
  await plane.close("failed", "verification_failed");
  const ev = await lines(paths.events);
  assert.equal(ev.at(-1)!.type, "run_finished");
  assert.deepEqual(ev.at(-1)!.data, { status: "failed", reason: "verification_failed" });
  const snap = await readJson(paths.snapshot);
  assert.equal(snap.status, "failed");
  assert.equal(snap.stage, "closed");
  assert.equal(snap.reason, "verification_failed");
  const log = await lines(paths.log);
  assert.equal(log.find((e) => e.request === late)!.reason, "run has finished");
  const steerFinal = log.filter((e) => e.request === hooks.accepted[0]!.request).map((e) => e.outcome);
  assert.deepEqual(steerFinal, ["accepted", "rejected"]);
  assert.deepEqual(await names(paths.requests), []);
  assert.equal(hooks.views.length, 0);
});

Deno.test("a new run rotates the old stream; a resumed run continues seq and reconciles dead-runner steers", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const first = await testPlane(store, { runId: "20261130T110000Z-AAAAAA" });
  first.plane.record({ type: "notice", data: { level: "info", code: "a", message: "b" } }, ctx);
  await first.plane.close("completed", null);
  // Second run: rotation.
  const second = await testPlane(store);
  second.plane.transition({ prompt_id: "01", attempt: 1 });
  await dropRaw(store, reqName(), body("steer", { text: "hello" }));
  second.plane.boundary();
  second.plane.record({ type: "notice", data: { level: "info", code: "a", message: "b" } }, ctx);
  await second.plane.sync();
  // Simulate a crash: no close; release resources via a private close of the watcher by closing normally later.
  const archived = await lines(`${second.paths.eventsArchive}/20261130T110000Z-AAAAAA.jsonl`);
  assert.equal(archived.at(-1)!.type, "run_finished");
  const before = await lines(second.paths.events);
  assert.deepEqual(before.map((e) => e.seq), [1, 2, 3]);
  // Tear the file's last line as a crash would, then "crash" (log has an accepted steer with no final entry).
  await Deno.writeTextFile(second.paths.events, '{"seq": 4, "trunc', { append: true });
  const snapText = await Deno.readTextFile(second.paths.snapshot);
  await second.plane.close("failed", "x"); // closes handles; now restore the crash state by hand
  await Deno.writeTextFile(second.paths.snapshot, snapText);
  const logText = (await Deno.readTextFile(second.paths.log)).split("\n").filter((l) => l && !l.includes('"rejected"'));
  await Deno.writeTextFile(second.paths.log, logText.join("\n") + "\n");
  const evText = (await Deno.readTextFile(second.paths.events)).split("\n");
  await Deno.writeTextFile(second.paths.events, evText.slice(0, 3).join("\n") + '\n{"seq": 4, "trunc');
  const resumed = await openPlane({
    storeRoot: store,
    runId: RUN_ID,
    resumed: true,
    packet: { name: "demo", dir: tmp.path },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 1,
    maxSteers: 3,
    hooks: new FakeHooks(),
    watch: false,
  });
  const env = resumed.record({ type: "notice", data: { level: "info", code: "c", message: "d" } }, ctx);
  await resumed.close("completed", null);
  assert.equal(env.seq, 5, "run_opened took 4");
  const after = await lines(store + "/control/events.jsonl");
  assert.deepEqual(after.map((e) => e.seq), [1, 2, 3, 4, 5, 6]);
  const log = await lines(`${store}/control/log.jsonl`);
  const final = log.filter((e) => e.command === "steer" && e.outcome === "rejected");
  assert.equal(final.length, 1);
  assert.equal(final[0]!.reason, "runner stopped before the steer was delivered");
});

Deno.test("guardrail() logs a received entry keyed by seq", async () => {
  await using tmp = await tempDir();
  const { plane, paths } = await testPlane(`${tmp.path}/s`);
  plane.record({ type: "tool_call_started", data: { tool_call_id: "t", tool_name: "Bash", tool_input: {} } }, ctx);
  plane.guardrail({ tool: "Bash", allowed_tools: ["Read"], rule: "not in allowed_tools" });
  await plane.close("completed", null);
  const g = (await lines(paths.log)).find((e) => e.command === "guardrail")!;
  assert.equal(g.key, "guardrail:2");
  assert.equal(g.outcome, "received");
  assert.equal(g.author, "runner");
  assert.deepEqual(g.params, { tool: "Bash", allowed_tools: ["Read"], rule: "not in allowed_tools" });
});

Deno.test("the watcher wakes a waiting runner when a request arrives", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks } = await testPlane(store, { watch: true, pollMs: 60_000 });
  try {
    plane.boundary(); // initial scan
    const woke = plane.wake();
    await dropRaw(store, reqName(), body("set_view", { thinking: "hide" }));
    const t0 = Date.now();
    await woke;
    assert.ok(Date.now() - t0 < 5000);
    plane.boundary();
    assert.equal(hooks.views.length, 1);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("nullPlane() stamps envelopes and writes nothing", async () => {
  await using tmp = await tempDir();
  const before = await names(tmp.path);
  const plane = nullPlane(RUN_ID, { ...DEFAULT_VIEW }, new FakeHooks());
  const a = plane.record({ type: "notice", data: { level: "info", code: "a", message: "b" } }, ctx);
  const b = plane.record({ type: "notice", data: { level: "info", code: "a", message: "b" } }, ctx);
  plane.boundary();
  await plane.close("completed", null);
  assert.deepEqual([a.seq, b.seq], [1, 2]);
  assert.equal(a.run_id, RUN_ID);
  assert.deepEqual(await names(tmp.path), before);
});

Deno.test("storePaths() names match the spec layout", () => {
  const p = storePaths("/x/.prompt_runner/");
  assert.equal(p.requests, "/x/.prompt_runner/control/requests");
});

Deno.test("openPlane() prunes receipts older than 7 days and keeps recent ones", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  await Deno.mkdir(`${store}/control/outcomes`, { recursive: true });
  await Deno.writeTextFile(`${store}/control/outcomes/old.json`, "{}");
  await Deno.writeTextFile(`${store}/control/outcomes/new.json`, "{}");
  const old = new Date(Date.now() - 8 * 24 * 3600 * 1000);
  await Deno.utime(`${store}/control/outcomes/old.json`, old, old);
  const { plane, paths } = await testPlane(store);
  await plane.close("completed", null);
  assert.deepEqual(await names(paths.outcomes), ["new.json"]);
});

Deno.test("steerCountsForRun() rebuilds per-prompt steer counts of a run; a resumed plane continues them", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks } = await testPlane(store);
  plane.transition({ prompt_id: "02", attempt: 1 });
  await dropRaw(store, reqName(), body("steer", { text: "a" }));
  await dropRaw(store, reqName(), body("steer", { text: "b" }));
  plane.boundary();
  const info = {
    delivery: "interrupt_and_resume" as const,
    prompt_id: "02",
    attempt: 1,
    lane: "simulated",
    session_id: null,
    interrupted: false,
  };
  plane.steersDelivered([hooks.accepted[0]!], info);
  plane.steersDelivered([hooks.accepted[1]!], info);
  await plane.close("failed", "interrupted");
  assert.deepEqual([...steerCountsForRun(store, RUN_ID)], [["02", 2]]);
  assert.deepEqual([...steerCountsForRun(store, "20260101T000000Z-AAAAAA")], []);
  const resumed = await testPlane(store, { resumed: true, maxSteers: 2 });
  resumed.plane.transition({ prompt_id: "02", attempt: 2 });
  await resumed.plane.sync(); // a new attempt is coalesced (docs/reference/control-plane.md §4.4)
  assert.equal((await readJson(resumed.paths.snapshot)).steer_count, 2);
  resumed.hooks.gate = { promptRunning: true, sessionLive: true };
  const third = await dropRaw(store, reqName(), body("steer", { text: "c" }));
  resumed.plane.boundary();
  await resumed.plane.close("completed", null);
  const entry = (await lines(resumed.paths.log)).find((e) => e.request === third)!;
  assert.equal(entry.reason, "steer budget spent (2/2 for this prompt); raise recovery.max_steers to allow more");
});

Deno.test("a trivial prompt inside the coalescing window makes no snapshot write of its own: the window's write has it", async () => {
  await using tmp = await tempDir();
  // A wide window: the count does not depend on how fast this machine runs the sequence.
  const { plane, paths } = await testPlane(`${tmp.path}/s`, { snapshotCoalesceMs: 60_000 });
  try {
    const before = writeTotals("snapshot");
    plane.transition({ stage: "between_prompts", prompt_position: 1 });
    plane.transition({ stage: "session", prompt_id: "01", attempt: 1, attempt_started_at: new Date().toISOString() });
    plane.transition({ session_live: true });
    plane.transition({ session_live: false });
    plane.transition({ stage: "verifying" });
    plane.transition({ completed_count: 1 });
    plane.syncRecord(); // the boundary: inside the window, coalesced like the rest
    await plane.settled();
    assert.equal(writeTotals("snapshot") - before, 0, "no document built inside the window");
    assert.equal((await readJson(paths.snapshot)).completed_count, 0);
    const renamed = writeTotals("snapshot rename");
    await plane.sync(); // the one write that ends the window carries all of it
    assert.equal(writeTotals("snapshot") - before, 1, "one document for the whole prompt");
    assert.ok(writeTotals("snapshot rename") - renamed <= 1, "at most one rename");
    const snap = await readJson(paths.snapshot);
    assert.deepEqual([snap.prompt_id, snap.stage, snap.completed_count, snap.session_live], [
      "01",
      "verifying",
      1,
      false,
    ]);
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("a prompt boundary fsyncs log.jsonl only when entries were appended since the last fsync", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  try {
    const fsyncs = () => writeTotals("log.jsonl fsync");
    const before = fsyncs();
    await plane.sync();
    await plane.sync();
    assert.equal(fsyncs() - before, 0, "nothing appended: no fsync");
    const r = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
    plane.boundary();
    assert.equal((await lines(paths.log)).find((e) => e.request === r)?.outcome, "applied");
    await plane.sync();
    assert.equal(fsyncs() - before, 1, "the boundary after an entry fsyncs it");
    await plane.sync();
    assert.equal(fsyncs() - before, 1);
  } finally {
    await plane.close("completed", null);
  }
});
