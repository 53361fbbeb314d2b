/** Reading claimed request entries (src/control/claim.ts): exact bytes per entry, whatever was read before. */
import assert from "node:assert/strict";
import { Claimer } from "../../src/control/claim.ts";
import { ensureControlDirs } from "../../src/store/layout.ts";
import { storePaths } from "../../src/store/paths.ts";
import { MAX_REQUEST_BYTES } from "../../src/control/request.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("claimed entries read back exactly, a short one after a long one and the first unchanged by the later reads", async () => {
  await using dir = await tempDir();
  ensureControlDirs(dir.path);
  const p = storePaths(dir.path);
  const claimer = new Claimer(p, "runner-test");
  const sizes = [MAX_REQUEST_BYTES, 10, 0, 60_000, 1];
  const want = sizes.map((n) => Uint8Array.from({ length: n }, (_, i) => 32 + ((i * 7 + n) % 90)));
  const got = sizes.map((n, i) => {
    Deno.writeFileSync(`${p.requests}/r${i}.json`, want[i]!);
    const path = claimer.claim(`r${i}.json`);
    assert.ok(path !== null);
    const c = claimer.read(path);
    assert.equal(c.kind, "bytes", `entry of ${n} bytes`);
    return c.kind === "bytes" ? c.bytes : null;
  });
  // Kept until every entry was read: a result that were a view of one reused buffer would now hold later bytes.
  got.forEach((g, i) => assert.deepEqual(g, want[i], `entry of ${sizes[i]} bytes`));
  Deno.writeFileSync(`${p.requests}/big.json`, new Uint8Array(MAX_REQUEST_BYTES + 1));
  const big = claimer.read(claimer.claim("big.json")!);
  assert.deepEqual(big, { kind: "oversized", size: MAX_REQUEST_BYTES + 1 });
});
