/**
 * Crash resume (docs/reference/runner.md §4, attempt mode `resume`): `run --remaining` resumes a run whose prompt's last attempt
 * was interrupted or left running by a dead runner, and continues the same provider session with the continuation
 * prompt (the simulated lane plays the `resume` step).
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { history, makePacket, promptFile, readPrompts, readSnapshot } from "./support.ts";
import { waitFor } from "../support/wait.ts";

const CONTINUE = "Continue the task from where you stopped.";

// The first attempt runs long and writes nothing; only the `resume` step writes the file the contract needs.
const SCRIPT = "verify:\n  files_exist: [done.txt]\nsimulate:\n  attempts:\n    - delay_ms: 300\n" +
  "      messages: [one, two, three, four, five, six, seven, eight, nine, ten]\n" +
  "  resume:\n    - messages: [picking up]\n      writes: [{path: done.txt}]";

interface Attempt {
  run_id: string;
  attempt: number;
  mode: string;
  status: string;
  session_id: string | null;
  log_file: string | null;
  streams: { kind: string }[];
}

async function attemptsOf(pkt: string, id: string): Promise<Attempt[]> {
  return ((await readPrompts(pkt))[id]?.attempts ?? []) as unknown as Attempt[];
}

async function eventsOf(pkt: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`);
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

async function checkResumed(pkt: string, runId: string, firstStatus: string): Promise<void> {
  const attempts = await attemptsOf(pkt, "01");
  assert.deepEqual(attempts.map((a) => `${a.mode}:${a.status}`), [`run:${firstStatus}`, "resume:completed"]);
  assert.ok(attempts.every((a) => a.run_id === runId), "same run id");
  assert.deepEqual(attempts.map((a) => a.attempt), [1, 2], "attempt numbering continues");
  const [first, second] = attempts as [Attempt, Attempt];
  assert.equal(first.session_id, "simulated-01-1");
  assert.equal(second.session_id, first.session_id, "the same provider session continues");
  assert.deepEqual(second.streams.map((s) => s.kind), ["resume"]);
  const events = (await eventsOf(pkt)).filter((e) => e.run_id === runId && e.attempt === 2);
  const started = events.find((e) => e.type === "prompt_started");
  assert.equal((started?.data as { mode: string }).mode, "resume");
  const sent = events.find((e) => e.type === "message_sent");
  assert.equal(sent?.hidden, true);
  assert.equal((sent?.data as { content: string }).content, CONTINUE);
  assert.equal(sent?.stream, "resume");
  assert.equal(sent?.session_id, first.session_id);
  const log = await Deno.readTextFile(`${pkt}/.prompt_runner/${second.log_file}`);
  assert.match(log, /^Run: \S+ attempt 2 \(resume\)$/m);
  assert.match(log, /^SESSION_RESUME action=started reason=interrupted$/m);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress, /^01:completed:/m);
}

Deno.test("kill -9 mid-stream, then run --remaining continues the session in attempt mode resume", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", SCRIPT) });
  const child = spawnCli(["run", pkt]);
  const snap = await waitFor(async () => {
    const s = await readSnapshot(pkt);
    if (s?.session_live !== true) return null;
    // The session id is recorded as soon as the stream reports it, not only when the stream ends.
    return (await attemptsOf(pkt, "01"))[0]?.session_id ? s : null;
  });
  child.kill("SIGKILL");
  await child.output();
  assert.deepEqual(history((await readPrompts(pkt))["01"]), ["run:running"], "the dead runner left it running");

  const resumed = await runCli(["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  await checkResumed(pkt, snap.run_id as string, "interrupted");
  const attempts = await attemptsOf(pkt, "01");
  assert.equal((attempts[0] as Attempt & { decision?: string }).decision, "resume");
});

Deno.test("SIGINT, then run --remaining resumes the interrupted attempt's session", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", SCRIPT) });
  const child = spawnCli(["run", pkt]);
  const snap = await waitFor(async () => {
    const s = await readSnapshot(pkt);
    return s?.session_live === true && s.session_id ? s : null;
  });
  child.kill("SIGINT");
  assert.equal((await child.output()).code, 130);
  const resumed = await runCli(["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  await checkResumed(pkt, snap.run_id as string, "interrupted");
});

Deno.test("a new run (not a resume) starts an interrupted prompt afresh in mode run", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", SCRIPT) });
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true);
  child.kill("SIGKILL");
  await child.output();
  const fresh = await runCli(["run", pkt, "--remaining", "--new-run"]);
  // Without the resume step the first attempt writes nothing: the contract fails and repair follows.
  const attempts = await attemptsOf(pkt, "01");
  assert.equal(attempts[1]?.mode, "run", fresh.stderr);
  assert.notEqual(attempts[1]?.run_id, attempts[0]?.run_id);
});
