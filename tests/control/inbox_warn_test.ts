import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { body, dropRaw, lines, reqName, testPlane } from "./_harness.ts";

Deno.test("a request entry that fails part-way is reported once as a warning, then retried and applied", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  // Receipts cannot be written while `outcomes/` is a regular file: the entry stays claimed.
  await Deno.remove(paths.outcomes, { recursive: true });
  await Deno.writeTextFile(paths.outcomes, "not a directory");
  const name = await dropRaw(store, reqName(), body("set_view", { diff: "full" }));
  plane.boundary();
  plane.boundary();
  const warnings = hooks.notices.filter((n) => n.level === "warning");
  assert.equal(warnings.length, 1, JSON.stringify(hooks.notices));
  assert.match(warnings[0]!.text, new RegExp(`control request ${name.replaceAll(".", "\\.")} not processed`));
  assert.equal(hooks.views.length, 0, "not applied while its receipt cannot be written");
  await Deno.remove(paths.outcomes);
  await Deno.mkdir(paths.outcomes);
  plane.boundary();
  await plane.close("completed", null);
  assert.equal(hooks.views.length, 1, "applied once the receipt can be written");
  const log = await lines(paths.log);
  assert.equal(log.filter((e) => e.request === name).length, 1, "one log entry despite the retries");
});

Deno.test("an unreadable requests directory is reported once as a warning naming it", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const { plane, hooks, paths } = await testPlane(store);
  await Deno.remove(paths.requests, { recursive: true });
  await Deno.writeTextFile(paths.requests, "not a directory");
  plane.boundary();
  plane.boundary();
  await plane.close("completed", null);
  const warnings = hooks.notices.filter((n) => n.level === "warning" && n.text.includes(paths.requests));
  assert.equal(warnings.length, 1, JSON.stringify(hooks.notices));
  assert.match(warnings[0]!.text, /^control requests not read \(/);
});
