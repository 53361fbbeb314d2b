/**
 * Steering by transport, black-box through the CLI on the simulated lane (docs/reference/control-plane.md §8.2): a
 * default steer on a `stream_json` session is written into the running turn (the tool runs to its end, one stream, no
 * resume); `--interrupt` stops the tool inside the session; on `exec` an `--interrupt` steer interrupts and resumes.
 * Each delivery is on the record: the control log, the intervention record and the `steer_delivered` event; `--wait`
 * reports `delivered` with how.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli, spawnCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "../run/support.ts";
import { waitFor } from "../support/wait.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

type Json = Record<string, unknown>;

async function lines(path: string): Promise<Json[]> {
  return parseJsonLines<Json>(await Deno.readTextFile(path).catch(() => ""));
}

/** The run's canonical events, in order (type plus the data the checks read). */
async function events(pkt: string): Promise<Json[]> {
  return await lines(`${pkt}/.prompt_runner/control/events.jsonl`);
}

/** Start a run and wait until its running tool has started (the event is on disk). */
async function runUntilTool(pkt: string): Promise<Deno.ChildProcess> {
  const child = spawnCli(["run", pkt]);
  await waitFor(async () => (await events(pkt)).some((e) => e.type === "tool_call_started"), { timeoutMs: 60_000 });
  return child;
}

function packetWith(transport: string | null, toolMs: number): Record<string, string> {
  return {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [done.txt]
simulate:
${transport ? `  transport: ${transport}\n` : ""}  attempts:
    - tools: [{name: Bash, delay_ms: ${toolMs}, writes: [{path: tool.out, text: ran}]}]
      messages: ["finished the main work"]
  steer:
    writes: [{path: done.txt, text: steered}]
    messages: ["acting on the guidance"]`,
    ),
  };
}

Deno.test("stream_json: a default steer goes into the running turn; the tool is not cancelled and no resume follows", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, packetWith("stream_json", 2500));
  const child = await runUntilTool(pkt);
  const w = await runCli(["control", "steer", pkt, "--wait", "--json", "--", "use", "tabs"]);
  assert.equal(w.code, 0, w.stderr);
  const j = parseJsonOut(w);
  assert.deepEqual([j.outcome, j.delivered, j.delivery], ["applied", true, "in_turn"]);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));

  const evs = await events(pkt);
  const types = evs.map((e) => e.type);
  const guidance = evs.findIndex((e) =>
    e.type === "message_sent" && String((e.data as Json).content).includes("use tabs")
  );
  assert.ok(guidance > 0, "the guidance reached the session as a user message");
  assert.ok(types.indexOf("tool_call_completed") < guidance, "the tool ended on its own before the guidance");
  assert.ok(!types.includes("tool_call_failed") && !types.includes("run_cancelled"));
  assert.equal(await Deno.readTextFile(`${pkt}/app/tool.out`), "ran");
  const delivered = evs.filter((e) => e.type === "steer_delivered").map((e) => (e.data as Json).delivery);
  assert.deepEqual(delivered, ["in_turn"]);

  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "completed");
  assert.deepEqual(p.attempts[0]!.streams.map((s) => s.kind), ["initial"], "no resume stream");
  assert.equal(p.result?.steer_count, 1);
  assert.deepEqual(p.result?.steer_deliveries, { in_turn: 1 }, "the result says how the steer was delivered");
  const iv = await lines(`${pkt}/.prompt_runner/interventions/01.jsonl`);
  assert.deepEqual(iv.map((r) => [r.delivery, r.interrupted, r.text]), [["in_turn", false, "use tabs"]]);
  const log = (await lines(`${pkt}/.prompt_runner/control/log.jsonl`)).filter((e) => e.command === "steer");
  assert.deepEqual(log.map((e) => [e.outcome, (e.params as Json).delivery ?? null]), [
    ["accepted", null],
    ["applied", "in_turn"],
  ]);
});

Deno.test("stream_json: --interrupt stops the running tool inside the session, which continues with the guidance", async () => {
  await using dir = await tempDir();
  // The tool would run for ten minutes: only the interrupt lets the run end.
  const pkt = await makePacket(dir.path, packetWith("stream_json", 600_000));
  const child = await runUntilTool(pkt);
  const w = await runCli(["control", "steer", pkt, "--interrupt", "--wait", "--", "stop", "and", "finish"]);
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stdout, /\ndelivered \(interrupt_in_process\)\n$/);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));

  const evs = await events(pkt);
  const types = evs.map((e) => e.type);
  assert.ok(types.includes("tool_call_failed"), "the tool was stopped");
  assert.ok(!types.includes("run_cancelled"), "the session was not cancelled");
  await assert.rejects(Deno.stat(`${pkt}/app/tool.out`), Deno.errors.NotFound);
  const p = (await readPrompts(pkt))["01"]!;
  assert.equal(p.status, "completed");
  assert.deepEqual(p.attempts[0]!.streams.map((s) => s.kind), ["initial"], "the same session, no resume");
  const iv = await lines(`${pkt}/.prompt_runner/interventions/01.jsonl`);
  assert.deepEqual(iv.map((r) => [r.delivery, r.interrupted, r.interrupt]), [["interrupt_in_process", true, true]]);
});

Deno.test("exec: an --interrupt steer interrupts the process and resumes the session (interrupt_and_resume)", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, packetWith(null, 600_000));
  const child = await runUntilTool(pkt);
  const w = await runCli(["control", "steer", pkt, "--interrupt", "--wait", "--", "stop", "now"]);
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stdout, /\ndelivered \(interrupt_and_resume\)\n$/);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const p = (await readPrompts(pkt))["01"]!;
  assert.deepEqual(p.attempts[0]!.streams.map((s) => s.kind), ["initial", "steer"]);
  assert.deepEqual(p.result?.steer_deliveries, { interrupt_and_resume: 1 });
  const iv = await lines(`${pkt}/.prompt_runner/interventions/01.jsonl`);
  assert.deepEqual(iv.map((r) => [r.delivery, r.interrupted, r.interrupt]), [["interrupt_and_resume", true, true]]);
});
