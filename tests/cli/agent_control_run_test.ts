/**
 * Agent control, black-box (docs/agent-control.md): simulated agents give directives and progress inside controlled
 * sessions; the runner keeps the verdict. Reproduces the sdk's agent-control scenarios as our own.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { waitFor } from "../support/wait.ts";
import { tempDir } from "../support/fs.ts";
import { readPrompts } from "../run/support.ts";
import { attemptsOf, auditLog, controlledPacket } from "./_agent_control_support.ts";

Deno.test("repeat until complete: repeat, a refused finish with its unmet items, then a verified finish", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_loop": `verify:
  files_exist: [handoff.md]
simulate:
  attempts:
    - writes: [{path: handoff.md, text: "unit A"}]
      agent_control:
        - {action: progress, cursor: P1, unit: A, summary: "unit A in progress"}
        - {action: repeat, reason: "P1 unit A is complete; next is unit B"}
    - writes: [{path: handoff.md, text: "unit B"}]
      agent_control: [{action: finish, reason: "all done"}]
    - writes: [{path: done.txt, text: "done"}]
      agent_control: [{action: finish, reason: "the objective is complete"}]`,
      "02_next": "verify:\n  files_exist: [never.txt]",
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /iteration 2 of 5 \(repeat\)/);
  assert.match(r.stdout, /iteration 3 of 5 \(finish refused: completion_verify did not pass\)/);
  assert.match(r.stdout, /agent finished the sequence at prompt 01: completion_verify passed/);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]!.status, "completed");
  assert.equal(prompts["02"], undefined, "finish closes the sequence: prompt 02 never ran");
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.iteration, a.directive?.action]), [[1, "repeat"], [2, "finish"], [
    3,
    "finish",
  ]]);
  const log = await auditLog(pkt);
  const finals = log.filter((e) => e.command === "agent_directive" && e.outcome !== "received");
  assert.deepEqual(finals.map((e) => [e.author, e.params.action, e.outcome]), [
    ["agent:01#1", "repeat", "applied"],
    ["agent:01#2", "finish", "rejected"],
    ["agent:01#3", "finish", "applied"],
  ]);
  assert.match(finals[1]!.reason!, /completion_verify did not pass: files_exist#1/);
  assert.ok(log.some((e) => e.command === "agent_progress" && e.outcome === "accepted" && e.params.cursor === "P1"));
  // The refused finish's unmet items reached the next iteration's session.
  const events = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`);
  const sent = events.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message_sent");
  assert.match(sent[2].data.content, /This is iteration 3 of at most 5 for prompt 01/);
  assert.match(sent[2].data.content, /Your previous `finish` was refused[\s\S]*files_exist#1/);
});

Deno.test("refused directives (wrong token, run, prompt or iteration, no reason, a second terminal) are audited and change nothing", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
      events:
        - agent_control: {action: blocked, reason: forged, token: not-the-token}
        - wait_ms: 2
        - agent_control: {action: blocked, reason: stale, iteration: 7}
        - wait_ms: 2
        - agent_control: {action: blocked, reason: "another run", run_id: 20261130T000000Z-OTHER1}
        - wait_ms: 2
        - agent_control: {action: blocked, reason: "another prompt", prompt_id: "09"}
        - wait_ms: 2
        - agent_control: {action: finish}
        - wait_ms: 2
        - agent_control: {action: continue}
        - wait_ms: 2
        - agent_control: {action: blocked, reason: too late}`,
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
  const log = await auditLog(pkt);
  const runId = log[0]!.run_id;
  const rejected = log.filter((e) => e.outcome === "rejected").map((e) => [e.author, e.params.action, e.reason]);
  assert.deepEqual(rejected, [
    ["agent:01#1", "blocked", "the token does not match this invocation"],
    ["agent:01#1", "blocked", "iteration 7 is not the live iteration 1"],
    ["agent:01#1", "blocked", `run 20261130T000000Z-OTHER1 is not the live run ${runId}`],
    ["agent:01#1", "blocked", "prompt 09 is not the live prompt 01"],
    ["agent:01#1", "finish", "finish needs a reason"],
    ["agent:01#1", "blocked", "a terminal directive (continue) was already accepted in this iteration; the first wins"],
  ]);
  const applied = log.filter((e) => e.outcome === "applied").map((e) => e.params.action);
  assert.deepEqual(applied, ["continue"]);
  assert.deepEqual((await attemptsOf(pkt, "01")).map((a) => a.directive?.action), ["continue"]);
});

Deno.test("blocked stops the run non-zero with the agent's reason; the prompt is not completed", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
      agent_control: [{action: blocked, reason: "missing deployment credentials"}]`,
      "02_b": "verify:\n  files_exist: [a.txt]",
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /prompt 01 blocked: missing deployment credentials/);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "failed");
  assert.equal(p.result!.failure_class, "agent_blocked");
  assert.equal((await readPrompts(pkt))["02"], undefined);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.doesNotMatch(progress, /01:completed/);
});

Deno.test("the iteration cap stops non-zero and leaves the prompt resumable", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt, text: "1"}]
    - writes: [{path: a.txt, text: "2"}]`,
    },
    { maxIterations: 2 },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /iteration limit reached: prompt iteration 2 of 2/);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.result!.failure_class, "agent_control_iteration_limit");
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.iteration, a.directive?.action, a.directive?.default]), [
    [1, "repeat", true],
    [2, "repeat", true],
  ]);
  const plan = await runCli(["plan", pkt, "--remaining", "--json"]);
  assert.match(plan.stdout, /"01"/, "the capped prompt is selected again by --remaining");
});

Deno.test("a failed provider turn is never a controlled iteration, even when the contract passes", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
      agent_control: [{action: finish, reason: "says it is done"}]
      error: {kind: provider_capacity, message: "overloaded"}
    - agent_control: [{action: continue}]`,
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.mode, a.status, a.directive?.action ?? null]), [
    ["run", "failed", null],
    ["retry", "completed", "continue"],
  ]);
  const log = await auditLog(pkt);
  const finish = log.find((e) => e.params.action === "finish" && e.outcome === "rejected");
  assert.equal(finish?.reason, "the provider turn failed; the iteration does not count");
});

Deno.test("a passing completion_verify ends a normal run before any session; naming a prompt still runs it", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a":
        "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]\n      agent_control: [{action: continue}]",
    },
    { defaultAction: null, maxIterations: null, completion: ["packet:prompt_runner_packet.md"] },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /completion_verify already passes/);
  const state = await Deno.readTextFile(`${pkt}/.prompt_runner/state.json`).catch(() => "{}");
  assert.deepEqual(JSON.parse(state).prompts ?? {}, {}, "no prompt ran");
  assert.doesNotMatch(r.stdout, /Starting simulated session/);
  const named = await runCli(["run", pkt, "1"]);
  assert.equal(named.code, 0, named.stdout + named.stderr);
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
});

Deno.test("the agent's prompt_runner on PATH runs this program: repeat then finish through the shim", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt, text: "1"}]
      agent_control: [{via: cli, action: repeat, reason: "one more pass"}]
    - writes: [{path: done.txt}]
      agent_control: [{via: cli, action: finish, reason: "complete"}]`,
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const finals = (await auditLog(pkt)).filter((e) => e.outcome === "applied");
  assert.deepEqual(finals.map((e) => [e.author, e.params.action, e.params.reason]), [
    ["agent:01#1", "repeat", "one more pass"],
    ["agent:01#2", "finish", "complete"],
  ]);
});

Deno.test("agent-owned completion: an incomplete iteration starts a fresh session with diagnostics, not a failure", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt, b.txt]
recovery:
  repair: {enabled: false}
simulate:
  attempts:
    - writes: [{path: a.txt}]
    - writes: [{path: b.txt}]`,
    },
    "execution: {completion: agent_owned, incomplete: repeat}\n",
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /prompt 01: incomplete \(files_exist#2\); a fresh session continues/);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "completed");
  assert.deepEqual(p.attempts.map((a) => [a.mode, a.status, (a as { decision?: string }).decision]), [
    ["run", "verification_failed", "agent_owned_repeat"],
    ["run", "completed", "complete"],
  ]);
  const events = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`);
  const sent = events.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message_sent");
  assert.match(sent[1].data.content, /Unmet checks\n- files_exist#2/);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.doesNotMatch(progress, /01:failed/, "not a failure between sessions");
});

Deno.test("agent-owned completion: stale passing files never complete an unrecorded prompt under --remaining", async () => {
  for (const owned of [true, false]) {
    await using dir = await tempDir();
    const pkt = await controlledPacket(
      dir.path,
      {
        "01_a": "verify:\n  files_exist: [stale.txt]\nsimulate:\n  attempts:\n    - messages: [hi]",
      },
      owned ? "execution: {completion: agent_owned, incomplete: repeat}\n" : "",
    );
    await Deno.writeTextFile(`${pkt}/app/stale.txt`, "x");
    for (const args of [["add", "stale.txt"], ["commit", "-qm", "stale file"]]) {
      const git = await new Deno.Command("git", { args: ["-C", `${pkt}/app`, ...args] }).output();
      assert.equal(git.code, 0, new TextDecoder().decode(git.stderr));
    }
    const r = await runCli(["run", pkt, "--remaining"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const p = (await readPrompts(pkt))["01"]!;
    // Verifier-owned: the pre-flight completes it without a session; agent-owned: a session must run.
    assert.equal(p.result!.source, owned ? "session" : "preflight_verify");
    assert.equal(p.attempts.length, owned ? 1 : 0);
  }
});

Deno.test("live: the cursor shows in status while the provider runs; steering works in iterations and keeps its budget", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
recovery:
  max_steers: 1
simulate:
  attempts:
    - events:
        - agent_control: {action: progress, cursor: P7, unit: C, summary: "runtime ownership"}
        - wait_ms: 60000
    - events:
        - agent_control: {action: progress, cursor: P8, summary: "second pass"}
        - wait_ms: 60000
  steer:
    - writes: [{path: a.txt}]
      agent_control: [{action: repeat, reason: "unit C done; next unit D"}]`,
    },
  );
  const run = spawnCli(["run", pkt]);
  try {
    const snap = async () => parseJsonOut(await runCli(["control", "status", pkt, "--json"]));
    const cursor = (s: Record<string, unknown>) =>
      ((s.agent_control as Record<string, unknown> | null)?.progress as Record<string, unknown> | null)?.cursor;
    await waitFor(async () => cursor(await snap()) === "P7", { what: "progress P7 in the snapshot" });
    const human = await runCli(["status", pkt]);
    assert.match(human.stdout, /iteration\s+1 of 5/);
    assert.match(human.stdout, /cursor\s+P7 · unit C — runtime ownership/);
    const steer = await runCli(["control", "steer", pkt, "--", "wrap up"]);
    assert.equal(steer.code, 0, steer.stderr);
    await waitFor(async () => cursor(await snap()) === "P8", { what: "iteration 2's progress", timeoutMs: 30_000 });
    const second = await runCli(["control", "steer", pkt, "--wait", "--", "again"]);
    assert.equal(second.code, 1, "the prompt's steer budget spans its iterations");
    const stop = await runCli(["stop", pkt]);
    assert.equal(stop.code, 0, stop.stderr);
  } finally {
    await run.output();
  }
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/control/log.jsonl`);
  const entries = log.trim().split("\n").map((l) => JSON.parse(l));
  const steers = entries.filter((e) => e.command === "steer").map((e) => e.outcome);
  assert.ok(steers.includes("applied") && steers.includes("rejected"), JSON.stringify(steers));
  const applied = (await auditLog(pkt)).filter((e) => e.outcome === "applied").map((e) => [e.author, e.params.action]);
  assert.deepEqual(applied, [["agent:01#1", "repeat"]]);
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.iteration, a.status]), [[1, "completed"], [2, "interrupted"]]);
});

Deno.test("a kill mid-iteration recovers like any other attempt: the resumed attempt keeps its iteration", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt, text: "1"}]
      agent_control: [{action: repeat, reason: "pass one"}]
    - events:
        - agent_control: {action: progress, cursor: P2, summary: "second pass"}
        - wait_ms: 60000
  resume:
    - writes: [{path: done.txt}]
      agent_control: [{action: finish, reason: "complete after the crash"}]`,
    },
  );
  const run = spawnCli(["run", pkt]);
  try {
    await waitFor(async () => {
      const s = parseJsonOut(await runCli(["control", "status", pkt, "--json"]));
      const p = (s.agent_control as Record<string, unknown> | null)?.progress as Record<string, unknown> | null;
      return p?.cursor === "P2";
    }, { what: "iteration 2 running" });
  } finally {
    run.kill("SIGKILL");
    await run.output();
  }
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.iteration, a.mode, a.status, a.directive?.action ?? null]), [
    [1, "run", "completed", "repeat"],
    [2, "run", "interrupted", null],
    [2, "resume", "completed", "finish"],
  ]);
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
});

Deno.test("a directive given before the contract failed is discarded; the repaired iteration must choose again", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_a": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - agent_control: [{action: blocked, reason: "premature"}]
    - writes: [{path: a.txt}]
      agent_control: [{action: continue}]`,
    },
  );
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => [a.iteration, a.mode, a.status, a.directive?.action ?? null]), [
    [1, "run", "verification_failed", null],
    [1, "repair", "completed", "continue"],
  ]);
  const log = await auditLog(pkt);
  const blocked = log.filter((e) => e.params.action === "blocked").map((e) => [e.outcome, e.reason]);
  assert.deepEqual(blocked, [["received", "held until the iteration is verified"], [
    "rejected",
    "the iteration did not pass its contract",
  ]]);
});

Deno.test("--runtime-store memory|noop is refused for a packet under agent control: directives need the store", async () => {
  await using dir = await tempDir();
  const pkt = await controlledPacket(
    dir.path,
    {
      "01_loop": `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt, text: "a"}]
      agent_control: [{action: repeat, reason: "again"}]`,
    },
  );
  for (const store of ["memory", "noop"]) {
    const r = await runCli(["run", pkt, "--runtime-store", store]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`--runtime-store ${store} conflicts with agent_control in \\S+prompt_runner_packet\\.md`),
    );
    await assert.rejects(() => Deno.stat(`${pkt}/app/a.txt`), "no session ran");
  }
});
