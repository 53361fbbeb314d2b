/**
 * A request file dropped under a name that was already decided — a duplicate in the same run, or a replay in a later
 * run after its receipt was pruned — is refused on the record under its own key, never applied without a log entry of
 * its own (docs/control-protocol.md, Intake).
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, testPlane } from "./_harness.ts";

const NAME = "20261130T120701.000001Z-4242-000001-abcd.json";

Deno.test("a request file replayed under a decided name (receipt present) is refused on the record", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, paths } = await testPlane(store);
  await dropRaw(store, NAME, body("set_view", { diff: "full" }));
  plane.boundary();
  await dropRaw(store, NAME, body("set_view", { log_mode: "bogus" }, { author: "mallory" }));
  plane.boundary();
  await plane.close("completed", null);
  const log = (await lines(paths.log)).filter((e) => e.request === NAME);
  assert.equal(log.length, 2, JSON.stringify(log));
  assert.equal(log[1]!.outcome, "rejected");
  assert.equal(log[1]!.author, "mallory");
});

Deno.test("a request file replayed in a later run after its receipt was pruned is not applied off the record", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const first = await testPlane(store);
  await dropRaw(store, NAME, body("set_view", { diff: "full" }, { run_id: null }));
  first.plane.boundary();
  await first.plane.close("completed", null);
  await Deno.remove(`${first.paths.outcomes}/${NAME}`); // as the 7-day receipt pruning does
  const second = await testPlane(store, { runId: "20261130T130000Z-AAAAAA" });
  await dropRaw(store, NAME, body("set_view", { log_mode: "studio" }, { run_id: null, author: "mallory" }));
  second.plane.boundary();
  await second.plane.close("completed", null);
  assert.equal(second.hooks.views.length, 0, "the replay changed the view with no log entry of its own");
  const log = (await lines(second.paths.log)).filter((e) => e.request === NAME);
  assert.equal(log.length, 2, JSON.stringify(log));
  assert.equal(log[1]!.outcome, "rejected");
  assert.equal(log[1]!.run_id, "20261130T130000Z-AAAAAA");
});
