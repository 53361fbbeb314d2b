import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import {
  body,
  dropRaw,
  lines,
  names,
  reqName,
  RUN_ID,
  startLivePlane,
  testPlane,
  writeDemoPacket,
} from "./_harness.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { runCli } from "../support/cli.ts";
import { STALE_REASON } from "../../src/control/stale.ts";

Deno.test("a sweep racing a runner that starts: every request gets exactly one final outcome", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const first = await testPlane(store);
  await first.plane.close("completed", null);
  const script = new URL("./_sweep.ts", import.meta.url).pathname;
  const all: string[] = [];
  for (let round = 0; round < 3; round++) {
    const batch: string[] = [];
    for (let i = 0; i < 150; i++) batch.push(await dropRaw(store, reqName(), body("set_view", { diff: "full" })));
    all.push(...batch);
    const sweep = new Deno.Command(Deno.execPath(), { args: ["run", "-A", "--quiet", script, store] }).output();
    const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: ["run"] });
    const { plane } = await testPlane(store);
    plane.boundary();
    const out = await sweep;
    assert.equal(out.code, 0);
    plane.boundary(); // anything the sweep left claimed-and-released or unclaimed
    await plane.close("completed", null);
    await lease.release();
  }
  const p = storePaths(store);
  const log = await lines(p.log);
  for (const name of all) {
    const finals = log.filter((e) => e.request === name && (e.outcome === "applied" || e.outcome === "rejected"));
    assert.equal(finals.length, 1, `${name}: ${JSON.stringify(finals.map((e) => e.reason))}`);
  }
  assert.deepEqual(await names(p.requests), []);
  const outcomes = new Set(await names(p.outcomes));
  for (const name of all) assert.ok(outcomes.has(name), `${name} has a receipt`);
});

Deno.test("control steer after the run ended: refused (exit 4) and a request left behind gets its outcome", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const live = await startLivePlane(dir);
  await live.stop();
  const store = storeRootForPacket(dir);
  // Dropped just as the run ended: no runner will ever see it.
  const late = await dropRaw(store, reqName(), body("steer", { text: "too late" }));
  const r = await runCli(["control", "steer", dir, "--", "anyone", "there?"]);
  assert.equal(r.code, 4, r.stderr);
  const log = await lines(storePaths(store).log);
  const mine = log.filter((e) => e.request === late);
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.outcome, "rejected");
  assert.equal(mine[0]!.reason, STALE_REASON);
  assert.deepEqual(await names(storePaths(store).requests), []);
  const status = await runCli(["control", "log", dir, "--json"]);
  assert.equal(status.code, 0);
  assert.ok(status.stdout.includes(late));
});
