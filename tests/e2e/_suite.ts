/**
 * The required end-to-end cases of docs/reference/providers.md §7.9, registered once per lane: our CLI (`prompt_runner run`,
 * `control steer`, `control view`) drives the real `claude` / `codex` binary against its loopback fake server.
 * The fake's request log is the main oracle; the store root (state.json, events.jsonl, log.jsonl) is the other.
 */
import assert from "node:assert/strict";
import {
  commitCount,
  control,
  controlLog,
  describeRun,
  destroySession,
  e2eSkipReason,
  events,
  historyText,
  killPids,
  type LaneName,
  LANES,
  latestUserText,
  marker,
  modelRequests,
  processesMatching,
  prompt01,
  requestCwd,
  requestSession,
  runPacket,
  scenario,
  spawnRun,
  waitForEvent,
} from "./_harness.ts";
import { git } from "../support/fs.ts";
import { waitFor, type WaitOptions } from "../support/wait.ts";

/** The e2e waits: 30 s, polled every 50 ms. */
const E2E_WAIT = (what: string): WaitOptions => ({ what, timeoutMs: 30_000, intervalMs: 50 });

/** Register every case for one lane (ignored, visibly, when its binary is not installed). */
export function defineLaneSuite(lane: LaneName): void {
  const skip = e2eSkipReason(lane);
  const ignore = skip !== null;
  if (skip) console.error(`SKIPPED: ${skip}`);
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({ name: `e2e ${lane}: ${name}`, ignore, sanitizeOps: false, sanitizeResources: false, fn });

  test("1. a plain text turn renders and completes", async () => {
    await using s = await scenario(lane, { body: "Say hello. [[e2e:text Hello there, operator.]]" });
    const r = await runPacket(s);
    assert.equal(r.code, 0, describeRun(s, r));
    assert.match(r.stdout, /Hello there, operator\./);
    assert.equal(prompt01(s).result.status, "completed");
    const started = events(s).find((e) => e.type === "run_started");
    assert.ok(started, "run_started recorded");
    assert.equal(started.provider, lane);
    assert.ok(typeof started.session_id === "string" && started.session_id !== "", "session id known");
    assert.equal(modelRequests(s).length, 1);
  });

  test("2. a tool turn edits a file, the contract passes and one commit is made", async () => {
    await using s = await scenario(lane, {
      files: { "notes.txt": "alpha\nbeta\ngamma\n" },
      body: "Uppercase beta in notes.txt. [[e2e:edit notes.txt beta => BETA]]",
      verify: { contains: [{ path: "notes.txt", text: "BETA" }] },
    });
    const before = await commitCount(s.repo);
    const r = await runPacket(s);
    assert.equal(r.code, 0, describeRun(s, r));
    assert.equal(await Deno.readTextFile(`${s.repo}/notes.txt`), "alpha\nBETA\ngamma\n");
    assert.equal(await commitCount(s.repo), before + 1, "exactly one commit");
    assert.match(await git(s.repo, "show", "--name-only", "--format=", "HEAD"), /notes\.txt/);
    const p = prompt01(s);
    assert.equal(p.result.status, "completed");
    const tools = events(s).filter((e) => e.type === "tool_call_started").map((e) =>
      (e.data as Record<string, unknown>).tool_name
    );
    assert.ok(tools.length >= 1, `tool calls recorded: ${JSON.stringify(tools)}`);
  });

  for (const thinking of ["show", "hide"] as const) {
    test(`3. thinking is ${thinking === "show" ? "rendered" : "hidden"} with --thinking ${thinking}`, async () => {
      await using s = await scenario(lane, { body: "Think first. [[e2e:thinking]] [[e2e:text Thought it through.]]" });
      const r = await runPacket(s, ["--thinking", thinking]);
      assert.equal(r.code, 0, describeRun(s, r));
      assert.match(r.stdout, /Thought it through\./);
      const text = LANES[lane].thinkingText;
      if (thinking === "show") assert.ok(r.stdout.includes(text), `thinking shown:\n${r.stdout}`);
      else assert.ok(!r.stdout.includes(text), `thinking hidden:\n${r.stdout}`);
      const recorded = events(s).some((e) => (e.data as Record<string, unknown>)?.kind === "thinking");
      assert.ok(recorded, "thinking events are recorded either way");
    });
  }

  test("4. a steer during a slow stream resumes the same session and the fake sees prompt and steer", async () => {
    const original = marker("ORIGINAL");
    const steerMark = marker("STEER");
    await using s = await scenario(lane, {
      body: `Task ${original}: stream slowly. [[e2e:slow 30]]`,
      verify: { files_exist: ["steered.txt"] },
    });
    const run = spawnRun(s);
    try {
      await waitForEvent(s, "run_started");
      await waitFor(() => modelRequests(s).length >= 1, E2E_WAIT("the first model request"));
      const steer = await control(s, [
        "steer",
        s.packet,
        "--",
        `Operator ${steerMark}: write the file instead. [[e2e:write steered.txt steered]]`,
      ]);
      assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
      assert.match(steer.stdout, /Steer queued for prompt 01/);
    } finally {
      const r = await run.finish();
      assert.equal(r.code, 0, describeRun(s, { ...r }));
    }
    const reqs = modelRequests(s);
    const first = reqs[0]!;
    const resumed = reqs.find((q) => latestUserText(s, q).includes(steerMark));
    assert.ok(resumed, "a request carries the steer in its latest user message");
    assert.ok(historyText(s, resumed).includes(original), "the resumed request still carries the original prompt");
    assert.equal(requestSession(s, resumed), requestSession(s, first), "same provider session");
    assert.equal(requestCwd(s, resumed), s.repo, "resumed in the same cwd");
    assert.equal(requestCwd(s, first), s.repo);
    assert.equal(await Deno.readTextFile(`${s.repo}/steered.txt`), "steered\n");
    const p = prompt01(s);
    assert.equal(p.result.status, "completed");
    assert.equal(p.result.steered, true);
    assert.equal(p.result.steer_count, 1);
    const applied = controlLog(s).find((e) => e.command === "steer" && e.outcome === "applied");
    assert.ok(applied, "steer applied in the control log");
    assert.equal((applied.params as Record<string, unknown>).delivery, "interrupt_and_resume");
    const cancelled = events(s).find((e) => e.type === "run_cancelled");
    assert.equal((cancelled?.data as Record<string, unknown> | undefined)?.reason, "interrupted_for_steer");
  });

  test("5. a steer during a tool call resumes the same session and leaves no orphaned tool process", async () => {
    const sleepArg = `4${Math.floor(Math.random() * 9)}.${Math.floor(Math.random() * 1e6)}`;
    const steerMark = marker("STEER");
    await using s = await scenario(lane, {
      body: `Run the long command. [[e2e:bash sleep ${sleepArg}]]`,
      verify: { files_exist: ["steered.txt"] },
    });
    const run = spawnRun(s);
    try {
      await waitForEvent(s, "tool_call_started");
      await waitFor(() => processesMatching(`sleep ${sleepArg}`).length > 0, E2E_WAIT("the sleep process"));
      const steer = await control(s, [
        "steer",
        s.packet,
        "--",
        `Operator ${steerMark}: skip the command. [[e2e:write steered.txt steered]]`,
      ]);
      assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
    } finally {
      const r = await run.finish();
      assert.equal(r.code, 0, describeRun(s, r));
    }
    const left = processesMatching(`sleep ${sleepArg}`);
    killPids(left.map((p) => p.pid));
    assert.deepEqual(left, [], "no orphaned tool process");
    const reqs = modelRequests(s);
    const resumed = reqs.find((q) => latestUserText(s, q).includes(steerMark));
    assert.ok(resumed, "a request carries the steer in its latest user message");
    assert.equal(requestSession(s, resumed), requestSession(s, reqs[0]!), "same provider session");
    assert.equal(prompt01(s).result.steered, true);
  });

  test("6a. an HTTP 400 fails with provider_config_claim after its retry budget", async () => {
    await using s = await scenario(lane, {
      body: "Fail please. [[e2e:error 400]]",
      verify: { files_exist: ["x.txt"] },
    });
    const r = await runPacket(s, ["--retry-attempts", "1", "--repair-attempts", "0"]);
    assert.equal(r.code, 1, describeRun(s, r));
    const p = prompt01(s);
    assert.equal(p.result.status, "failed");
    assert.equal(p.result.failure_class, "provider_config_claim");
    assert.equal(p.attempts.length, 2, "one retry");
    assert.equal(modelRequests(s).length, 2, "a 400 is not retried inside the CLI");
  });

  for (const [status, klass] of [[429, "provider_rate_limit"], [500, LANES[lane].class500]] as const) {
    test(`6b. an HTTP ${status} is retried (${klass}) and the retry completes`, async () => {
      const times = LANES[lane].requestsPerFailedAttempt;
      await using s = await scenario(lane, {
        body: `Flaky server. [[e2e:error ${status} times=${times}]]`,
      });
      const r = await runPacket(s, ["--repair-attempts", "0"]);
      assert.equal(r.code, 0, describeRun(s, r));
      const p = prompt01(s);
      assert.equal(p.result.status, "completed");
      assert.equal(p.attempts.length, 2);
      assert.equal(p.attempts[0]?.decision, "retry");
      assert.equal((p.attempts[0]?.failure as Record<string, unknown> | undefined)?.class, klass);
      assert.equal(p.attempts[1]?.mode, "retry");
    });
  }

  test("7. a steer whose session cannot be resumed falls back to restart_with_steer", async () => {
    const original = marker("ORIGINAL");
    const steerMark = marker("STEER");
    await using s = await scenario(lane, {
      body: `Task ${original}: stream slowly. [[e2e:slow 30]]`,
      verify: { files_exist: ["restarted.txt"] },
    });
    const run = spawnRun(s);
    let sessionId = "";
    try {
      const started = await waitForEvent(s, "run_started");
      sessionId = String(started.session_id ?? (started.data as Record<string, unknown>).provider_session_id);
      await waitFor(() => modelRequests(s).length >= 1, E2E_WAIT("the first model request"));
      const destroyed = await waitFor(async () => {
        const gone = await destroySession(s, sessionId);
        return gone.length > 0 && gone;
      }, { ...E2E_WAIT("the session destroyed"), timeoutMs: 10_000 }).catch(() => [] as string[]);
      assert.ok(destroyed.length > 0, `session storage of ${sessionId} found`);
      const steer = await control(s, [
        "steer",
        s.packet,
        "--",
        `Operator ${steerMark}: start over. [[e2e:write restarted.txt restarted]]`,
      ]);
      assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
    } finally {
      const r = await run.finish();
      assert.equal(r.code, 0, describeRun(s, r));
    }
    const applied = controlLog(s).find((e) => e.command === "steer" && e.outcome === "applied");
    assert.ok(applied, "steer applied");
    assert.equal((applied.params as Record<string, unknown>).delivery, "restart_with_steer");
    const restart = modelRequests(s).find((q) => latestUserText(s, q).includes("## Operator guidance"));
    assert.ok(restart, "a fresh session got the restart prompt");
    const text = latestUserText(s, restart);
    assert.ok(text.includes(original) && text.includes(steerMark), "restart prompt = original prompt + steer");
    assert.notEqual(requestSession(s, restart), sessionId, "a new session");
    assert.equal(prompt01(s).result.status, "completed");
  });

  test("8. a mid-run set_view switches the renderer", async () => {
    await using s = await scenario(lane, { body: "Stream a while. [[e2e:slow 4]]", slowTickMs: 200 });
    const run = spawnRun(s, ["--log-mode", "compact"]);
    let r;
    try {
      await waitForEvent(s, "run_started");
      const view = await control(s, ["view", s.packet, "--log-mode", "verbose"]);
      assert.equal(view.code, 0, `control view: ${view.stdout}${view.stderr}`);
      assert.match(view.stdout, /^Requested log_mode=verbose for run /);
      await waitForEvent(s, "view_changed", (d) => (d.view as Record<string, unknown>)?.log_mode === "verbose");
    } finally {
      r = await run.finish();
    }
    assert.equal(r.code, 0, describeRun(s, r));
    assert.match(r.stdout, /r\+ /, "compact before the change");
    assert.match(r.stdout, /\[run_completed\]/, "verbose after the change");
    const applied = controlLog(s).find((e) => e.command === "set_view" && e.outcome === "applied");
    assert.ok(applied, "set_view applied in the control log");
  });
}
