import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { createScratchRepo, setupExample } from "../../examples/setup.ts";
import { commitCount, history, makePacket, promptFile, readPrompts, readSnapshot } from "../run/support.ts";
import { waitFor } from "../support/wait.ts";
import { REQUEST_SCHEMA, writeRequest } from "../../src/control/request.ts";

Deno.test("run executes the recovery packet to exactly the attempt histories of docs/reference/runner.md §12", async () => {
  await using dir = await tempDir();
  const pkt = await setupExample("recovery", dir.path);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  const prompts = await readPrompts(pkt);
  const expected: Record<string, string[]> = {
    "01": ["run:failed", "retry:completed"],
    "02": ["run:verification_failed", "repair:completed"],
    "03": ["run:completed"],
    "04": ["run:failed", "retry:completed"],
    "05": ["run:failed", "retry:failed", "retry:completed"],
    "06": ["run:completed"],
    "07": ["run:failed", "retry:failed", "repair:completed"],
    "08": ["run:failed", "retry:completed"],
    "09": ["run:completed"],
  };
  for (const [id, h] of Object.entries(expected)) {
    assert.deepEqual(history(prompts[id]), h, `prompt ${id}`);
    assert.equal(prompts[id]?.status, "completed", `prompt ${id}`);
    assert.equal(prompts[id]?.result?.steered, false);
  }
  // In-attempt session resumes are streams, never attempts.
  assert.deepEqual(prompts["03"]?.attempts[0]?.streams.map((s) => s.kind), ["initial", "resume"]);
  assert.deepEqual(prompts["09"]?.attempts[0]?.streams.map((s) => s.kind), ["initial", "resume"]);
  for (const f of ["capacity.txt", "hello.txt", "hello.meta.txt", "protocol.txt", "auth.txt", "model.txt"]) {
    await Deno.stat(`${pkt}/app/${f}`);
  }
  assert.equal(await commitCount(`${pkt}/app`), 1 + 9, "one commit per completed prompt");
  assert.match(r.stdout, /Retrying prompt 01 after provider_capacity \(attempt 2, in 0\.0s\)…/);
  assert.match(r.stdout, /Repairing prompt 02 \(repair 1 of 2\)…/);
  assert.match(r.stdout, /Provider reported an error, but the contract passes\./);
  assert.match(r.stdout, /✓ Prompt 09 completed/);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress, /^01:failed:\S+Z\n01:completed:\S+Z:[0-9a-f]{40}\n/);
  const log = await Deno.readTextFile(
    `${pkt}/.prompt_runner/logs/${
      [...Deno.readDirSync(`${pkt}/.prompt_runner/logs`)].map((e) => e.name).find((n) =>
        n.startsWith("prompt-03-") && n.endsWith(".log")
      )
    }`,
  );
  assert.match(log, /^Session: provider=simulated model=simulated-demo tools=n\/a cwd=\S+\/app\n/);
  assert.match(log, /\nRun: \d{8}T\d{6}Z-[A-Z2-7]{6} attempt 1 \(run\)\n\n/);
  assert.match(log, /SESSION_RESUME action=started reason=protocol_error/);
  const msg = await new Deno.Command("git", { args: ["log", "-1", "--format=%B"], cwd: `${pkt}/app`, stdout: "piped" })
    .output();
  assert.match(
    new TextDecoder().decode(msg.stdout),
    /feat: timeout resume\n\nPrompt-Runner-Run: \S+\nPrompt-Runner-Prompt: 09/,
  );
});

Deno.test("run fails terminal classes and local_deterministic overrides after one attempt; --keep-going summarises", async () => {
  await using dir = await tempDir();
  const err = (kind: string, extra = "") =>
    `verify:\n  files_exist: [x${kind}.txt]\nsimulate:\n  attempts:\n    - error: {kind: ${kind}, message: "${kind} happened"${extra}}`;
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", err("approval_denied")),
    "02_b.prompt.md": promptFile("2", err("guardrail_blocked")),
    "03_c.prompt.md": promptFile("3", err("user_cancelled")),
    "04_d.prompt.md": promptFile("4", err("provider_capacity", ", recovery: {local_deterministic: true}")),
    "05_e.prompt.md": promptFile(
      "5",
      "verify:\n  files_exist: [ok.txt]\nsimulate:\n  attempts:\n    - writes: [{path: ok.txt}]",
    ),
  });
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1);
  const prompts = await readPrompts(pkt);
  for (const id of ["01", "02", "03", "04"]) {
    assert.deepEqual(history(prompts[id]), ["run:failed"], id);
    assert.equal(prompts[id]?.status, "failed");
  }
  assert.equal(prompts["01"]?.result?.failure_class, "approval_denied");
  assert.equal(prompts["04"]?.result?.failure_class, "provider_capacity");
  assert.equal(prompts["05"]?.status, "completed");
  assert.match(
    r.stderr,
    /4 selected prompt\(s\) failed; all others were attempted:\n {2}01: approval_denied happened\n/,
  );
  assert.match(r.stderr, /error: run failed: 4 selected prompt\(s\) failed\n$/);
});

Deno.test("run fails a prompt whose verification still fails after two repairs (fail-fast stops the run)", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [never.txt]"),
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [later.txt]"),
  });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), [
    "run:verification_failed",
    "repair:verification_failed",
    "repair:verification_failed",
  ]);
  assert.equal(prompts["01"]?.status, "verification_failed");
  assert.equal(prompts["02"], undefined, "later prompts are untouched");
  assert.match(r.stdout, /Verification failed for prompt 01/);
  assert.match(r.stderr, /error: verification failed: file_exists never\.txt: /);
  assert.match(r.stderr.trimEnd().split("\n").at(-1)!, /^error: run failed: /);
});

Deno.test("run halts on a verifier fault with the docs/reference/contract.md §8 block and no repair spent", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  commands:\n    - {exec: definitely-not-a-command-xyz, timeout_ms: 5000}",
    ),
  });
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), ["run:verifier_fault"]);
  assert.equal(prompts["01"]?.status, "verifier_fault");
  assert.match(r.stderr, /error: the verifier could not run for prompt 01\n {2}verifier_fault /);
  assert.match(r.stderr, /This is an infrastructure fault, not a failed check; no repair was attempted\./);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`).catch(() => "");
  assert.equal(progress, "", "progress is not marked failed");
});

Deno.test("run --remaining completes a prompt whose contract already passes without a session", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [README.md]"),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]",
    ),
  });
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /✓ Prompt 01 already satisfies its contract; no session was started/);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), []);
  assert.equal(prompts["01"]?.result?.source, "preflight_verify");
  assert.equal(prompts["01"]?.result?.session_ran, false);
  assert.deepEqual(prompts["01"]?.result?.commit, { status: "skip", reason: "no_session" });
  assert.deepEqual(history(prompts["02"]), ["run:completed"]);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress, /^01:completed:\S+:no_session$/m);
  const verifications = await Deno.readTextFile(`${pkt}/.prompt_runner/verifications.jsonl`);
  assert.match(verifications, /"source":"preflight"/);
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 0);
  assert.equal(again.stdout, "Nothing to run: every selected prompt is already completed.\n");
});

Deno.test("run blocks the dependants of a failed prompt", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - error: {kind: approval_denied}",
    ),
    "02_b.prompt.md": promptFile("2", "depends_on: ['01']\nverify:\n  files_exist: [README.md]"),
    "03_c.prompt.md": promptFile("3", "verify:\n  files_exist: [README.md]"),
  });
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["02"]?.status, "blocked_by_dependency");
  assert.deepEqual(prompts["02"]?.blocked_by, ["01"]);
  assert.equal(prompts["03"]?.status, "completed");
  assert.match(r.stderr, / {2}02: blocked by 01\n/);
});

Deno.test("run --no-commit, --committer noop and --dry-run leave the repo's history alone", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
  });
  const dry = await runCli(["run", pkt, "--dry-run"]);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^\[dry run\] Prompt 01: Prompt 1\n/);
  assert.match(dry.stdout, /files_exist: a\.txt/);
  await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner`), "dry-run writes no store root");
  const r = await runCli(["run", pkt, "--no-commit"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(await commitCount(`${pkt}/app`), 1);
  assert.match(await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`), /^01:completed:\S+:no_commit$/m);
  // --no-commit left a.txt uncommitted: a later run takes it as the user's only when told to.
  const noop = await runCli(["run", pkt, "--committer", "noop", "--new-run", "--allow-dirty"]);
  assert.equal(noop.code, 0, noop.stderr);
  assert.match(await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`), /^01:completed:\S+:noop$/m);
  assert.equal(await commitCount(`${pkt}/app`), 1);
});

Deno.test("run --json prints only JSON Lines envelopes and a final run_summary", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]\n      messages: [hi]",
    ),
  });
  const r = await runCli(["run", pkt, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  const last = lines.at(-1);
  assert.equal(last.type, "run_summary");
  assert.equal(last.status, "completed");
  assert.equal(last.prompts[0].id, "01");
  const envelopes = lines.slice(0, -1);
  const seqs = envelopes.map((e) => e.seq);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), "every envelope once, in seq order");
  const types = envelopes.map((e) => e.type);
  assert.equal(types[0], "run_opened");
  assert.equal(types.at(-1), "run_finished");
  for (
    const t of ["run_opened", "prompt_started", "message_sent", "run_started", "verification_finished", "run_finished"]
  ) {
    assert.ok(types.includes(t), t);
  }
});

Deno.test("run --json prints plane-recorded envelopes (view_changed from a second process) in seq order", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - delay_ms: 150\n" +
        "      messages: [one, two, three, four, five, six, seven, eight]\n      writes: [{path: a.txt}]",
    ),
  });
  const child = spawnCli(["run", pkt, "--json"]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  // The request is written from this (second) process at once, as `control view` writes it: a CLI's start-up on a
  // loaded machine could outlast the 1.2 s stream (the CLI itself is tested in tests/cli/control_view_steer_test.ts).
  const runId = String((await readSnapshot(pkt))?.run_id);
  await writeRequest(`${pkt}/.prompt_runner`, {
    schema: REQUEST_SCHEMA,
    command: "set_view",
    params: { log_mode: "verbose" },
    run_id: runId,
    author: "test",
    issued_at: new Date().toISOString(),
  });
  const out = await child.output();
  const dec = new TextDecoder();
  assert.equal(out.code, 0, dec.decode(out.stderr));
  const raw = dec.decode(out.stdout).trimEnd().split("\n");
  const lines = raw.map((l) => JSON.parse(l));
  assert.equal(lines.at(-1).type, "run_summary");
  const envelopes = lines.slice(0, -1);
  // Strictly increasing seq with no gaps, exactly in recording order.
  assert.deepEqual(envelopes.map((e) => e.seq), Array.from({ length: envelopes.length }, (_, i) => i + 1));
  assert.equal(envelopes[0].type, "run_opened");
  assert.equal(envelopes.at(-1).type, "run_finished");
  const changed = envelopes.findIndex((e) => e.type === "view_changed");
  assert.ok(changed > 0, "the view change is printed");
  assert.equal(envelopes[changed].data.view.log_mode, "verbose");
  assert.ok(changed < envelopes.findIndex((e) => e.type === "run_completed"), "printed as it was recorded");
  assert.ok(envelopes.some((e) => e.hidden === true && e.type === "message_sent"), "hidden envelopes included");
  // Byte-identical to the canonical stream.
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trimEnd().split("\n");
  assert.deepEqual(raw.slice(0, -1), events);
});

Deno.test("run refuses an unparseable state.json or progress.log with exit 1", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [README.md]") });
  await Deno.mkdir(`${pkt}/.prompt_runner`);
  await Deno.writeTextFile(`${pkt}/.prompt_runner/state.json`, "{oops");
  const bad = await runCli(["run", pkt, "--remaining"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /state\.json/);
  assert.match(bad.stderr, /move it aside/);
  await Deno.remove(`${pkt}/.prompt_runner/state.json`);
  await Deno.writeTextFile(`${pkt}/.prompt_runner/progress.log`, "this is not a progress line\n");
  const badProgress = await runCli(["run", pkt, "--remaining"]);
  assert.equal(badProgress.code, 1);
  assert.match(badProgress.stderr, /progress\.log/);
  assert.match(badProgress.stderr, /line 1/);
});

const SLOW = "verify:\n  files_exist: [slow.txt]\nsimulate:\n  attempts:\n    - delay_ms: 400\n" +
  "      messages: [one, two, three, four, five, six, seven, eight, nine, ten]\n      writes: [{path: slow.txt}]";

// The first attempt outlasts a second runner's start on a loaded machine (10 s).
const SLOW_10S = "verify:\n  files_exist: [slow.txt]\nsimulate:\n  attempts:\n    - delay_ms: 1000\n" +
  "      messages: [one, two, three, four, five, six, seven, eight, nine, ten]\n      writes: [{path: slow.txt}]\n" +
  "    - writes: [{path: slow.txt}]";

Deno.test("a second runner is refused with exit 5; kill -9 leaves a resumable run that --remaining finishes", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", SLOW_10S),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]",
    ),
  });
  const first = spawnCli(["run", pkt]);
  const snap = await waitFor(async () => {
    const s = await readSnapshot(pkt);
    return s?.session_live === true ? s : null;
  });
  const second = await runCli(["run", pkt]);
  assert.equal(second.code, 5);
  assert.match(
    second.stderr,
    // Named by its target (the directory `pkt`), as status and control status name it (docs/status.md).
    /^error: pkt is already being run by pid \d+ on \S+ \(run \S+, since \d\d:\d\d:\d\dZ\)/,
  );
  first.kill("SIGKILL");
  await first.output();
  const resumed = await runCli(["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]?.status, "completed");
  assert.equal(prompts["02"]?.status, "completed");
  // Same run id: the killed run was resumed, and attempt numbering continued.
  assert.ok(prompts["01"]!.attempts.every((a) => a.run_id === snap.run_id));
  assert.deepEqual(prompts["01"]!.attempts.map((a) => a.attempt), [1, 2]);
  // The dead runner's attempt is closed as interrupted (crash resume itself: tests/run/crash_resume_test.ts).
  assert.equal(history(prompts["01"])[0], "run:interrupted");
  const run = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${snap.run_id}/run.json`));
  assert.equal(run.state, "completed");
  assert.equal(run.resumed_at.length, 1);
});

Deno.test("SIGINT interrupts the provider and closes the run failed with reason interrupted", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", SLOW) });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  child.kill("SIGINT");
  const out = await child.output();
  assert.equal(out.code, 130, "an interrupted run exits 130");
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["01"]?.status, "interrupted");
  assert.deepEqual(history(prompts["01"]), ["run:interrupted"]);
  assert.match(new TextDecoder().decode(out.stderr), /error: run failed: interrupted\n$/);
  const snap = await readSnapshot(pkt);
  assert.equal(snap?.status, "failed");
  assert.equal(snap?.reason, "interrupted");
  await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/run.pid`), "the lease is released");
});

Deno.test("run --new-run starts fresh budgets and supersedes a resumable run", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [never.txt]\nrecovery:\n  repair: {enabled: false}"),
  });
  const a = await runCli(["run", pkt]);
  assert.equal(a.code, 1);
  const firstRun = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`)).run_id;
  const b = await runCli(["run", pkt, "--remaining", "--new-run"]);
  assert.equal(b.code, 1);
  const secondRun = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`)).run_id;
  assert.notEqual(secondRun, firstRun);
  const old = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${firstRun}/run.json`));
  assert.equal(old.state, "superseded");
  const prompts = await readPrompts(pkt);
  assert.deepEqual(prompts["01"]!.attempts.map((x) => `${x.run_id === firstRun ? "A" : "B"}${x.attempt}`), [
    "A1",
    "B1",
  ]);
});

Deno.test("a steered prompt completes with steered: true, and a steer dictating content does not satisfy contains", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  contains:
    - {path: notes.txt, text: "magic"}
simulate:
  attempts:
    - delay_ms: 300
      writes: [{path: notes.txt, text: "plain\\n"}]
      messages: [one, two, three, four, five, six, seven, eight, nine, ten]
    - label: repair
      writes: [{path: notes.txt, text: "magic\\n"}]
  steer:
    messages: ["Adjusting as asked."]`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  const steer = await runCli(["control", "steer", pkt, "--", "write", "magic", "into", "notes.txt"]);
  assert.equal(steer.code, 0, steer.stderr);
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const prompts = await readPrompts(pkt);
  const p = prompts["01"]!;
  // The steer text mentions "magic", yet the contract judged only the workspace: attempt 1 failed verification.
  assert.deepEqual(history(p), ["run:verification_failed", "repair:completed"]);
  assert.deepEqual(p.attempts[0]!.streams.map((s) => s.kind), ["initial", "steer"]);
  assert.equal(p.result?.steered, true);
  assert.equal(p.result?.steer_count, 1);
  assert.equal(p.result?.interventions_file, "interventions/01.jsonl");
  const interventions = (await Deno.readTextFile(`${pkt}/.prompt_runner/interventions/01.jsonl`)).trim().split("\n");
  assert.equal(interventions.length, 1);
  const rec = JSON.parse(interventions[0]!);
  assert.equal(rec.text, "write magic into notes.txt");
  assert.equal(rec.delivery, "interrupt_and_resume");
  assert.equal(rec.interrupted, true);
  assert.match(stdout, /↳ steer accepted: write magic into notes\.txt/);
  // The end-of-run summary marks the steered prompt (docs/run-summary.md).
  assert.match(stdout, /\n {2}01 Prompt 1 +run → repair +completed +[0-9a-f]{8} +\S+ +steered ×1\n$/);
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  const resumeSent = events.find((e) => e.type === "message_sent" && e.stream === "steer");
  assert.match(
    resumeSent.data.content,
    /^Guidance from the operator, received while you were working:\n\nwrite magic into notes\.txt\n\n/,
  );
  assert.ok(events.some((e) => e.type === "run_cancelled" && e.data.reason === "interrupted_for_steer"));
  assert.ok(events.some((e) => e.type === "steer_delivered"));
  const msg = await new Deno.Command("git", { args: ["log", "-1", "--format=%B"], cwd: `${pkt}/app`, stdout: "piped" })
    .output();
  assert.match(new TextDecoder().decode(msg.stdout), /Prompt-Runner-Steered: 1 \(interventions\/01\.jsonl\)/);
  const logFile = (p.attempts[0] as unknown as { log_file: string }).log_file;
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/${logFile}`);
  assert.match(log, /STEER action=interrupt provider=simulated count=1/);
  assert.match(log, /STEER action=resume provider=simulated count=1/);
});

Deno.test("a view change is applied while the provider is silent inside a long tool call", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [t.txt]
simulate:
  attempts:
    - tools:
        - {name: Bash, input: {command: "sleep 2"}, output: "slept", delay_ms: 2500, writes: [{path: t.txt}]}`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => ((await readSnapshot(pkt))?.tool_count as number) >= 1);
  const view = await runCli(["control", "view", pkt, "--log-mode", "verbose"]);
  assert.equal(view.code, 0, view.stderr);
  // The change is recorded while the tool is still running, long before the stream ends.
  await waitFor(async () => {
    const text = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`).catch(() => "");
    return text.includes('"view_changed"') && !text.includes('"tool_call_completed"');
  }, { timeoutMs: 2000, what: "view_changed recorded while the tool still runs" });
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const stdout = new TextDecoder().decode(out.stdout);
  assert.match(stdout, /\[tool_call_completed\] name=Bash/, "the rest of the stream renders in the new mode");
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  const changed = events.find((e) => e.type === "view_changed");
  const completed = events.find((e) => e.type === "tool_call_completed");
  assert.ok(changed.seq < completed.seq);
});

Deno.test("a steer on a session that cannot be resumed restarts with the original prompt and the steer", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [r.txt]
simulate:
  session: {resumable: false}
  attempts:
    - delay_ms: 300
      messages: [one, two, three, four, five, six, seven, eight]
  steer:
    writes: [{path: r.txt}]`,
    ),
  });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  const steer = await runCli(["control", "steer", pkt, "--", "use", "r.txt"]);
  assert.equal(steer.code, 0, steer.stderr);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const p = (await readPrompts(pkt))["01"]!;
  assert.deepEqual(p.attempts[0]!.streams.map((s) => s.kind), ["initial", "steer", "restart_with_steer"]);
  assert.equal(p.result?.steered, true);
  const rec = JSON.parse((await Deno.readTextFile(`${pkt}/.prompt_runner/interventions/01.jsonl`)).trim());
  assert.equal(rec.delivery, "restart_with_steer");
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  const sent = events.find((e) => e.type === "message_sent" && e.stream === "restart_with_steer");
  assert.match(
    sent.data.content,
    /^# Prompt 1\n[\s\S]*\n\n## Operator guidance\n\nuse r\.txt\n\nTake this guidance into account/,
  );
});

Deno.test("run refuses to start when preflight finds a missing repo (exit 1, one line per problem)", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [x.txt]") });
  await Deno.remove(`${pkt}/app`, { recursive: true });
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^error: preflight failed\n {2}repo app: \S+\/app does not exist \(repo paths are relative to the packet directory; create it \(mkdir -p \S+\/app, then git init\) or fix the path\)\n/,
  );
  await assert.rejects(() => Deno.stat(`${pkt}/.prompt_runner/state.json`), "nothing ran");
});

Deno.test("a failing commit turns a passing prompt into commit_failed with progress failed", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
  });
  await Deno.writeTextFile(`${pkt}/app/.git/hooks/pre-commit`, "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n");
  await Deno.chmod(`${pkt}/app/.git/hooks/pre-commit`, 0o755);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "commit_failed");
  assert.deepEqual(history(p), ["run:completed"]);
  assert.match(r.stderr, /error: commit failed in app: hook says no/);
  assert.match(await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`), /^01:failed:\S+Z$/m);
});

Deno.test("a prompt targeting two repos commits in each and records the multi-repo progress suffix", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(
    dir.path,
    {
      "01_a.prompt.md": promptFile(
        "1",
        `targets: [app, lib]
verify:
  files_exist: ["app:a.txt", "lib:b.txt"]
simulate:
  attempts:
    - writes: [{path: a.txt}, {path: b.txt, repo: lib}]`,
      ),
    },
    "",
  );
  // Add repo lib to the manifest.
  const manifestPath = `${pkt}/prompt_runner_packet.md`;
  const text = await Deno.readTextFile(manifestPath);
  await Deno.writeTextFile(
    manifestPath,
    text.replace("    default: true\n", "    default: true\n  lib:\n    path: lib\n"),
  );
  await createScratchRepo(`${pkt}/lib`);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress, /^01:completed:\S+Z:app=[0-9a-f]{40},lib=[0-9a-f]{40}$/m);
  assert.equal(await commitCount(`${pkt}/app`), 2);
  assert.equal(await commitCount(`${pkt}/lib`), 2);
  assert.match(r.stdout, /Committed to app: [0-9a-f]{8}\nCommitted to lib: [0-9a-f]{8}\n/);
});

Deno.test("an amended contract governs the run and the result and commit record the amendment", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - writes: [{path: a.txt}]
    - writes: [{path: extra.txt}]`,
    ),
  });
  const amend = await runCli(["control", "amend", pkt, "1", "--add-file", "extra.txt", "--reason", "needs extra"]);
  assert.equal(amend.code, 0, amend.stderr);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  const p = (await readPrompts(pkt))["01"]!;
  // The enforced contract (with the amendment) failed the first attempt; the repair satisfied it.
  assert.deepEqual(history(p), ["run:verification_failed", "repair:completed"]);
  assert.equal(p.result?.amended, true);
  assert.equal(p.result?.amendments_file, "amendments/01.jsonl");
  assert.equal((p.result?.amendments as { phase: string }[])[0]?.phase, "pre_verify");
  const msg = await new Deno.Command("git", { args: ["log", "-1", "--format=%B"], cwd: `${pkt}/app`, stdout: "piped" })
    .output();
  assert.match(new TextDecoder().decode(msg.stdout), /Prompt-Runner-Amended: 1 \(pre_verify\)/);
});

Deno.test("pre-flight skips uncommitted evidence and changed_paths_only contracts; --verify-first / --no-verify-first", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [dirty.txt]"),
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [README.md]\n  changed_paths_only: [README.md]"),
    "03_c.prompt.md": promptFile("3", "verify:\n  files_exist: [README.md]"),
  });
  // Left by a crashed session that no recorded prompt claims: the user's, so the runs below need --allow-dirty.
  await Deno.writeTextFile(`${pkt}/app/dirty.txt`, "left by a crashed session\n");
  const r = await runCli(["run", pkt, "--remaining", "--allow-dirty"]);
  assert.equal(r.code, 0, r.stderr);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(history(prompts["01"]), ["run:completed"], "uncommitted evidence → a session runs");
  assert.deepEqual(history(prompts["02"]), ["run:completed"], "changed_paths_only skips pre-flight");
  assert.equal(prompts["03"]?.result?.source, "preflight_verify");
  const off = await runCli(["run", pkt, "3", "--no-verify-first", "--no-commit", "--allow-dirty"]);
  assert.equal(off.code, 0, off.stderr);
  assert.deepEqual(history((await readPrompts(pkt))["03"]), ["run:completed"]);
  const forced = await runCli(["run", pkt, "3", "--verify-first", "--no-commit", "--allow-dirty"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /✓ Prompt 03 already satisfies its contract; no session was started/);
});
