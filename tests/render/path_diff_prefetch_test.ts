import assert from "node:assert/strict";
import { gitPathDiff, PathDiffPrefetch } from "../../src/render/git_diff.ts";
import { initRepo, tempDir } from "../support/fs.ts";

/** A repo whose one commit holds `a.txt`. */
function repo(dir: string): Promise<void> {
  return initRepo(dir, { "a.txt": "one\ntwo\n" });
}

Deno.test("path diff prefetch: the async diff equals the synchronous one and is handed out once", async () => {
  await using dir = await tempDir();
  await repo(dir.path);
  await Deno.writeTextFile(`${dir.path}/a.txt`, "one\nTWO\n");
  await Deno.writeTextFile(`${dir.path}/new.txt`, "fresh\n");
  const pre = new PathDiffPrefetch(dir.path);
  assert.equal(pre.get("a.txt"), null, "nothing before a prefetch");
  await pre.prefetch(["a.txt", "new.txt"]);
  const sync = gitPathDiff(dir.path);
  assert.deepEqual(pre.get("a.txt"), sync("a.txt"));
  assert.deepEqual(pre.get("new.txt"), ["+ fresh"]);
  assert.equal(pre.get("a.txt"), null, "consumed: a later event computes the current state again");
});

Deno.test("path diff prefetch: concurrent prefetches of one path share one computation; the loop stays free", async () => {
  await using dir = await tempDir();
  await repo(dir.path);
  await Deno.writeTextFile(`${dir.path}/a.txt`, "changed\n");
  const pre = new PathDiffPrefetch(dir.path);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const a = pre.prefetch(["a.txt"]);
  const b = pre.prefetch(["a.txt"]);
  assert.equal(pre.inFlight, 1, "one git computation in flight for the path");
  await Promise.all([a, b]);
  clearInterval(timer);
  assert.ok(ticks > 0, "timers ran while git was running");
  assert.equal(pre.inFlight, 0);
  assert.ok((pre.get("a.txt") ?? []).includes("+ changed"));
});
