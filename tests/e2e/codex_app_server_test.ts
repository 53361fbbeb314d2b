/**
 * End to end, the codex lane on its `app_server` transport (`codex_opts.app_server: true`, docs/lanes.md): our CLI
 * runs the real `codex app-server` against the loopback fake OpenAI server and `control steer` steers it. A default
 * steer during a long command goes into the running turn (the command runs to its end; the model's next request
 * carries the guidance); an `--interrupt` steer stops the command in the process (no process of it survives) and the
 * guidance continues the same thread. Each run completes in one stream and leaves no process behind.
 */
import assert from "node:assert/strict";
import {
  control,
  controlLog,
  describeRun,
  e2eSkipReason,
  events,
  killPids,
  latestUserText,
  marker,
  modelRequests,
  processesMatching,
  prompt01,
  requestSession,
  scenario,
  spawnRun,
  waitForEvent,
} from "./_harness.ts";
import { waitFor, type WaitOptions } from "../support/wait.ts";

const E2E_WAIT = (what: string): WaitOptions => ({ what, timeoutMs: 30_000, intervalMs: 50 });
const APP_SERVER = { codex_opts: { app_server: true } };

const skip = e2eSkipReason("codex");
if (skip) console.error(`SKIPPED: ${skip}`);
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({
    name: `e2e codex app_server: ${name}`,
    ignore: skip !== null,
    sanitizeOps: false,
    sanitizeResources: false,
    fn,
  });

type Json = Record<string, unknown>;

/** The kinds of an attempt's streams (`initial`, `steer`, …). */
function streamKinds(attempt: Json | undefined): unknown[] {
  return ((attempt?.streams as Json[] | undefined) ?? []).map((st) => st.kind);
}

test("a default steer during a long command is delivered in-turn; the command is not killed", async () => {
  const sleepArg = `3.${Math.floor(Math.random() * 1e6)}`;
  const steerMark = marker("STEER");
  await using s = await scenario("codex", {
    body: `Run the long command. [[e2e:bash sleep ${sleepArg}]]`,
    manifest: APP_SERVER,
    verify: { files_exist: ["steered.txt"] },
  });
  const run = spawnRun(s);
  let steer;
  try {
    await waitForEvent(s, "tool_call_started");
    await waitFor(() => processesMatching(`sleep ${sleepArg}`).length > 0, E2E_WAIT("the sleep process"));
    steer = await control(s, [
      "steer",
      s.packet,
      "--wait",
      "--",
      `Operator ${steerMark}: then write the file. [[e2e:write steered.txt steered]]`,
    ]);
  } finally {
    const r = await run.finish();
    assert.equal(r.code, 0, describeRun(s, r));
  }
  assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
  assert.match(steer.stdout, /delivered \(in_turn\)/);
  assert.deepEqual(processesMatching(`sleep ${sleepArg}`), [], "no stray process");

  const evs = events(s);
  const done = evs.find((e) => e.type === "tool_call_completed");
  assert.ok(done, "the command ran to its end");
  assert.equal((done.data as Json).exit_code, 0);
  assert.ok(!evs.some((e) => e.type === "run_cancelled" || e.type === "tool_call_failed"), "nothing was cancelled");
  const reqs = modelRequests(s);
  const first = reqs.findIndex((q) => latestUserText(s, q).includes(steerMark));
  assert.equal(first, 1, "the model's next request (after the command's result) carries the guidance");
  assert.equal(requestSession(s, reqs[first]!), requestSession(s, reqs[0]!), "same thread");
  assert.equal(await Deno.readTextFile(`${s.repo}/steered.txt`), "steered\n");

  const p = prompt01(s);
  assert.equal(p.result.status, "completed");
  assert.equal(p.result.steer_count, 1);
  assert.deepEqual(streamKinds(p.attempts[0]), ["initial"], "one stream, no resume");
  const applied = controlLog(s).find((e) => e.command === "steer" && e.outcome === "applied");
  assert.equal((applied?.params as Json | undefined)?.delivery, "in_turn");
});

test("an --interrupt steer stops the command (no process of it survives) and continues the same thread", async () => {
  const sleepArg = `4${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;
  const steerMark = marker("STEER");
  await using s = await scenario("codex", {
    body: `Run the long command. [[e2e:bash sleep ${sleepArg}]]`,
    manifest: APP_SERVER,
    verify: { files_exist: ["steered.txt"] },
  });
  const run = spawnRun(s);
  let steer;
  try {
    await waitForEvent(s, "tool_call_started");
    await waitFor(() => processesMatching(`sleep ${sleepArg}`).length > 0, E2E_WAIT("the sleep process"));
    steer = await control(s, [
      "steer",
      s.packet,
      "--interrupt",
      "--wait",
      "--",
      `Operator ${steerMark}: skip the command. [[e2e:write steered.txt steered]]`,
    ]);
  } finally {
    const r = await run.finish();
    assert.equal(r.code, 0, describeRun(s, r));
  }
  const left = processesMatching(`sleep ${sleepArg}`);
  killPids(left.map((p) => p.pid));
  assert.deepEqual(left, [], "no process of the stopped command survives");
  assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
  assert.match(steer.stdout, /delivered \(interrupt_in_process\)/);

  const evs = events(s);
  assert.ok(evs.some((e) => e.type === "tool_call_failed"), "the stopped command is on the record as failed");
  assert.ok(!evs.some((e) => e.type === "run_cancelled"), "the session was not cancelled");
  const reqs = modelRequests(s);
  const steered = reqs.find((q) => latestUserText(s, q).includes(steerMark));
  assert.ok(steered, "the guidance reached the model");
  assert.equal(requestSession(s, steered), requestSession(s, reqs[0]!), "in the same thread");
  assert.equal(await Deno.readTextFile(`${s.repo}/steered.txt`), "steered\n");

  const p = prompt01(s);
  assert.equal(p.result.status, "completed");
  assert.deepEqual(streamKinds(p.attempts[0]), ["initial"], "the same session, no resume");
  const applied = controlLog(s).find((e) => e.command === "steer" && e.outcome === "applied");
  assert.equal((applied?.params as Json | undefined)?.delivery, "interrupt_in_process");
});
