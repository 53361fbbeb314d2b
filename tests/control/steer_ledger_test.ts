/** The one steer ledger (docs/reference/control-plane.md §8.3): reservations, queue, counts, per-prompt budgets, rebuild at open. */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { SteerLedger } from "../../src/control/steer_ledger.ts";
import type { AcceptedSteer } from "../../src/control/plane_types.ts";
import { checkSteerText, MAX_STEER_BYTES } from "../../src/control/mod.ts";
import { body, dropRaw, lines, readJson, reqName, RUN_ID, testPlane } from "./_harness.ts";

const steer = (request: string): AcceptedSteer => ({ request, author: "ada", text: request, accepted_at: "t" });

Deno.test("SteerLedger: a reservation holds a slot from acceptance until delivered or rejected, counted once", () => {
  const ledger = new SteerLedger((id) => (id === "02" ? 1 : 3));
  const [a, b, c] = [steer("a"), steer("b"), steer("c")];
  ledger.reserve(a);
  ledger.reserve(b);
  assert.equal(ledger.used("01"), 2);
  assert.equal(ledger.pending, 2);
  assert.deepEqual(ledger.take(), [a, b]);
  assert.deepEqual(ledger.queued, [], "taken steers leave the queue");
  assert.equal(ledger.used("01"), 2, "…but keep their slots while in flight");
  ledger.reserve(c);
  assert.deepEqual(ledger.queued, [c]);
  assert.equal(ledger.delivered("01", a), 1);
  assert.equal(ledger.delivered("01", b), 2);
  assert.equal(ledger.count("01"), 2);
  assert.equal(ledger.used("01"), 3, "two delivered plus c reserved");
  ledger.rejected(c);
  assert.deepEqual(ledger.queued, [], "a rejected steer never reaches a later delivery");
  assert.equal(ledger.pending, 0);
  assert.equal(ledger.used("01"), 2);
  assert.equal(ledger.count("02"), 0);
  assert.equal(ledger.max("01"), 3);
  assert.equal(ledger.max("02"), 1);
  assert.deepEqual(ledger.reservations(), []);
});

Deno.test("checkSteerText(): the one validator trims and names the code, the log reason and the API message", () => {
  assert.deepEqual(checkSteerText("  hi \n"), { ok: true, text: "hi" });
  for (const blank of ["", "  \n ", 42, undefined]) {
    assert.deepEqual(checkSteerText(blank), {
      ok: false,
      code: "empty_steer",
      reason: "steer has no text",
      message: "steer text is empty",
    });
  }
  assert.equal(checkSteerText("é".repeat(MAX_STEER_BYTES / 2)).ok, true);
  const long = checkSteerText("é".repeat(MAX_STEER_BYTES / 2 + 1));
  assert.equal(!long.ok && long.code, "steer_too_long");
  assert.equal(!long.ok && long.reason, "steer text exceeds 8192 bytes");
});

Deno.test("the plane's ledger applies a prompt's own budget and counts deliveries once (events, snapshot, ledger)", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store, { maxSteers: 3, maxSteersFor: (id) => (id === "02" ? 1 : 3) });
  try {
    plane.transition({ prompt_id: "02", attempt: 1, stage: "session", session_live: true });
    const one = await dropRaw(store, reqName(), body("steer", { text: "one" }));
    const two = await dropRaw(store, reqName(), body("steer", { text: "two" }));
    plane.boundary();
    const by = new Map((await lines(paths.log)).map((e) => [e.request, e]));
    assert.equal(by.get(one)!.outcome, "accepted");
    assert.equal(
      by.get(two)!.reason,
      "steer budget spent (1/1 for this prompt); raise recovery.max_steers to allow more",
    );
    assert.deepEqual(plane.steers.queued.map((s) => s.text), ["one"]);
    const batch = plane.steers.take();
    plane.steersDelivered(batch, {
      delivery: "interrupt_and_resume",
      prompt_id: "02",
      attempt: 1,
      lane: "simulated",
      session_id: "s",
      interrupted: true,
    });
    assert.equal(plane.steers.count("02"), 1);
    assert.equal(plane.steers.pending, 0);
    await plane.settled();
    const snap = await readJson(paths.snapshot);
    assert.deepEqual([snap.steer_count, snap.steers_pending], [1, 0]);
    // Prompt 01 has its own count and the packet budget.
    plane.transition({ prompt_id: "01", attempt: 1 });
    await plane.sync(); // a new prompt is coalesced (docs/reference/control-plane.md §4.4): the boundary writes it
    assert.equal((await readJson(paths.snapshot)).steer_count, 0);
    const three = await dropRaw(store, reqName(), body("steer", { text: "three" }));
    plane.boundary();
    assert.equal((await lines(paths.log)).find((e) => e.request === three)!.outcome, "accepted");
    assert.deepEqual(plane.steers.queued.map((s) => s.text), ["three"]);
    assert.deepEqual(hooks.accepted.map((s) => s.text), ["one", "three"], "the hook is told of each acceptance");
  } finally {
    await plane.close("completed", null);
  }
});

Deno.test("a runner that died without closing: the next plane of the run id rebuilds the ledger once", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const dead = await testPlane(store);
  dead.plane.transition({ prompt_id: "01", attempt: 1 });
  await dropRaw(store, reqName(), body("steer", { text: "a" }));
  await dropRaw(store, reqName(), body("steer", { text: "b" }));
  dead.plane.boundary();
  const info = {
    delivery: "interrupt_and_resume" as const,
    prompt_id: "01",
    attempt: 1,
    lane: "simulated",
    session_id: null,
    interrupted: false,
  };
  const [a] = dead.plane.steers.take();
  dead.plane.steersDelivered([a!], info);
  await dead.plane.sync();
  // No close: "b" stays accepted in the log, its slot died with the runner.
  const next = await testPlane(store, { resumed: true });
  try {
    assert.equal(next.plane.steers.count("01"), 1, "rebuilt from interventions/, not doubled");
    assert.equal(next.plane.steers.pending, 0, "a dead runner's reservations are not carried over");
    next.plane.transition({ prompt_id: "01", attempt: 2 });
    await next.plane.sync(); // a new attempt is coalesced (docs/reference/control-plane.md §4.4)
    assert.equal((await readJson(next.paths.snapshot)).steer_count, 1);
    const other = await testPlane(`${tmp.path}/other`, { runId: "20260101T000000Z-AAAAAA" });
    assert.equal(other.plane.steers.count("01"), 0);
    await other.plane.close("completed", null);
    const entries = await lines(next.paths.log);
    assert.deepEqual(
      entries.filter((e) => e.run_id === RUN_ID && e.outcome === "rejected").map((e) => e.reason),
      ["runner stopped before the steer was delivered"],
    );
  } finally {
    await next.plane.close("completed", null);
  }
});
