import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { RUN_ID, testPlane } from "./_harness.ts";
import { ControlError, log, outcome, steer } from "../../src/control/mod.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { dropSeam, steerParams } from "../../src/control/refusal.ts";
import { passwdName } from "../../src/util/os_user.ts";

Deno.test("passwdName(): the name of the line whose third field is the uid; comments and short lines skipped", () => {
  const text =
    "# root:x:0\nroot:x:0:0:root:/root:/bin/sh\nbroken\n:x:7:7::/:/bin/sh\nada:x:1000:1000::/home/ada:/bin/sh\n";
  assert.equal(passwdName(text, 0), "root");
  assert.equal(passwdName(text, 1000), "ada");
  assert.equal(passwdName(text, 7), null, "an empty name is no name");
  assert.equal(passwdName(text, 4242), null);
});

Deno.test("a run that ends between the running check and the request landing: request taken back, call refused, logged once", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const ref = { storeRoot: store, runId: RUN_ID };
  const { plane, paths } = await testPlane(store);
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  let dropped: string | null = null;
  // The runner dies (lease dropped, no close) right after the running check: nothing will ever take the request.
  dropSeam.afterDrop = async (request) => {
    dropped = request;
    await lease.release();
  };
  try {
    const e = await steer(ref, "just in time", { author: "ada" }).catch((x) => x);
    assert.ok(e instanceof ControlError, String(e));
    assert.equal(e.code, "run_not_running");
    assert.equal(e.exit, 4);
    assert.equal(e.details.request, dropped);
  } finally {
    dropSeam.afterDrop = null;
    await plane.close("failed", null);
  }
  assert.deepEqual([...Deno.readDirSync(paths.requests)], [], "nothing is left for a later run to answer");
  const entries = (await log(ref)).filter((x) => x.request === dropped);
  assert.deepEqual(entries.map((x) => [x.outcome, x.request, x.key, x.author]), [
    ["rejected", dropped, `${dropped}:rejected`, "ada"],
  ]);
  assert.equal(entries[0]!.reason, `run ${RUN_ID} ended (abandoned) before it took the request`);
  const o = await outcome(ref, dropped!);
  assert.deepEqual([o?.receipt.outcome, o?.receipt.reason, o?.entry.key], [
    "rejected",
    entries[0]!.reason,
    `${dropped}:rejected`,
  ]);
});

Deno.test("a request the runner took before it ended is not taken back (one outcome, from the runner)", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/s`;
  const ref = { storeRoot: store, runId: RUN_ID };
  const { plane } = await testPlane(store);
  const lease = await acquireLease(store, { runId: RUN_ID, packetDir: tmp.path, argv: [] });
  dropSeam.afterDrop = async () => {
    plane.boundary();
    await plane.close("completed", null);
    await lease.release();
  };
  try {
    const h = await steer(ref, "taken", { author: "ada" });
    assert.equal(h.runId, RUN_ID);
    const entries = (await log(ref)).filter((x) => x.request === h.request);
    assert.equal(entries[0]!.outcome, "accepted");
    assert.equal(entries.filter((x) => x.outcome === "rejected" || x.outcome === "applied").length, 1);
  } finally {
    dropSeam.afterDrop = null;
  }
});

Deno.test("a refused steer keeps its text as given, cut at 64 KiB with its size noted", () => {
  assert.deepEqual(steerParams("short"), { text: "short" });
  const big = "é".repeat(40000); // 80000 bytes
  const p = steerParams(big);
  assert.equal(p.truncated, true);
  assert.equal(p.text_bytes, 80000);
  assert.equal(new TextEncoder().encode(String(p.text)).length, 65536);
  assert.ok(big.startsWith(String(p.text)));
});
