/**
 * End-to-end steering over an input transport (docs/lanes.md, "Transports"; docs/reference/control-plane.md §8.2):
 * the real CLI against its loopback fake, with the lane's input transport selected by the packet. A default steer
 * during a long tool call leaves the tool running to its end and the next model request carries the guidance; an
 * `--interrupt` steer stops the tool (no process of it survives) and the guidance arrives in the same session. Each
 * run completes and leaves no stray process. Registered per lane and transport (claude `stream_json` here; codex
 * `app_server` registers the same cases).
 */
import assert from "node:assert/strict";
import {
  control,
  controlLog,
  describeRun,
  e2eSkipReason,
  events,
  killPids,
  type LaneName,
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
import { waitFor } from "../support/wait.ts";
import type { CliResult } from "../support/cli.ts";

/** A sleep argument no other process has: the tool process is found (and must be gone) by it. */
function uniqueSleep(base: number): string {
  return `${base}.${Math.floor(Math.random() * 1e6)}`;
}

/** Register the steer cases for `lane` over the input transport its `manifest` selects. */
export function defineSteerTransportSuite(lane: LaneName, transport: string, manifest: Record<string, unknown>): void {
  const skip = e2eSkipReason(lane);
  if (skip) console.error(`SKIPPED: ${skip}`);
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({
      name: `e2e ${lane} ${transport}: ${name}`,
      ignore: skip !== null,
      sanitizeOps: false,
      sanitizeResources: false,
      fn,
    });

  test("a default steer during a long tool call keeps the tool and reaches the next model request", async () => {
    // Long enough that the steer lands inside the tool even when `control steer` starts slowly on a loaded machine.
    const sleepArg = uniqueSleep(20);
    const steerMark = marker("STEER");
    await using s = await scenario(lane, { body: `Run the long command. [[e2e:bash sleep ${sleepArg}]]`, manifest });
    const run = spawnRun(s);
    let steer: CliResult | null = null;
    try {
      await waitForEvent(s, "tool_call_started");
      await waitFor(() => processesMatching(`sleep ${sleepArg}`).length > 0, {
        what: "the sleep process",
        timeoutMs: 30_000,
      });
      steer = await control(s, ["steer", s.packet, "--wait", "--json", "--", `Operator ${steerMark}: mind the tabs.`]);
    } finally {
      const r = await run.finish();
      assert.equal(r.code, 0, describeRun(s, r));
    }
    assert.ok(steer, "the steer was sent");
    assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
    const j = JSON.parse(steer.stdout) as Record<string, unknown>;
    assert.deepEqual([j.delivered, j.delivery], [true, "in_turn"]);
    const evs = events(s);
    const completed = evs.findIndex((e) => e.type === "tool_call_completed");
    const failed = evs.filter((e) => e.type === "tool_call_failed");
    assert.ok(completed >= 0 && failed.length === 0, "the tool ran to its end");
    assert.ok(!evs.some((e) => e.type === "run_cancelled"), "the turn was not interrupted");
    const reqs = modelRequests(s);
    const guided = reqs.find((q) => JSON.stringify(q.body).includes(steerMark));
    assert.ok(guided, "a model request carries the guidance");
    assert.equal(requestSession(s, guided), requestSession(s, reqs[0]!), "same provider session");
    const toolResult = lane === "claude" ? "tool_result" : "function_call_output";
    assert.ok(JSON.stringify(guided.body).includes(toolResult), "after the tool's result");
    const p = prompt01(s);
    assert.equal(p.result.status, "completed");
    assert.equal(p.result.steer_count, 1);
    assert.deepEqual((p.attempts[0]?.streams as { kind: string }[]).map((x) => x.kind), ["initial"]);
    const applied = controlLog(s).find((e) => e.command === "steer" && e.outcome === "applied");
    assert.equal((applied?.params as Record<string, unknown> | undefined)?.delivery, "in_turn");
    assert.deepEqual(processesMatching(`sleep ${sleepArg}`), [], "no stray process");
  });

  test("an --interrupt steer stops the tool (no process of it survives) and continues the same session", async () => {
    const sleepArg = uniqueSleep(300);
    const steerMark = marker("STEER");
    await using s = await scenario(lane, {
      body: `Run the long command. [[e2e:bash sleep ${sleepArg}]]`,
      verify: { files_exist: ["steered.txt"] },
      manifest,
    });
    const run = spawnRun(s);
    let steer: CliResult | null = null;
    try {
      await waitForEvent(s, "tool_call_started");
      await waitFor(() => processesMatching(`sleep ${sleepArg}`).length > 0, {
        what: "the sleep process",
        timeoutMs: 30_000,
      });
      steer = await control(s, [
        "steer",
        s.packet,
        "--interrupt",
        "--wait",
        "--",
        `Operator ${steerMark}: stop that. [[e2e:write steered.txt steered]]`,
      ]);
    } finally {
      const r = await run.finish();
      assert.equal(r.code, 0, describeRun(s, r));
    }
    assert.ok(steer, "the steer was sent");
    assert.equal(steer.code, 0, `control steer: ${steer.stdout}${steer.stderr}`);
    assert.match(steer.stdout, /\ndelivered \(interrupt_in_process\)\n$/);
    const left = processesMatching(`sleep ${sleepArg}`);
    killPids(left.map((x) => x.pid));
    assert.deepEqual(left, [], "the tool's process did not survive");
    const reqs = modelRequests(s);
    const guided = reqs.find((q) => latestUserText(s, q).includes(steerMark));
    assert.ok(guided, "the guidance is the latest user message of a model request");
    assert.equal(requestSession(s, guided), requestSession(s, reqs[0]!), "same provider session");
    assert.equal(await Deno.readTextFile(`${s.repo}/steered.txt`), "steered\n");
    const p = prompt01(s);
    assert.equal(p.result.status, "completed");
    assert.deepEqual((p.attempts[0]?.streams as { kind: string }[]).map((x) => x.kind), ["initial"], "no resume");
    const iv = Deno.readTextFileSync(`${s.store}/interventions/01.jsonl`).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(iv.map((r) => [r.delivery, r.interrupt]), [["interrupt_in_process", true]]);
  });
}
