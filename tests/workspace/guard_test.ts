import assert from "node:assert/strict";
import { assertNotInSource, canonicalPath, isInside, sourceHolding, sourceTrees } from "../../src/workspace/guard.ts";
import { PacketError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("isInside() matches the root itself and descendants, never siblings sharing a prefix", () => {
  assert.equal(isInside("/a/b", "/a/b"), true);
  assert.equal(isInside("/a/b/c", "/a/b/"), true);
  assert.equal(isInside("/a/bc", "/a/b"), false);
  assert.equal(isInside("/a", "/a/b"), false);
});

Deno.test("canonicalPath() resolves symlinks of the existing prefix and keeps the missing rest", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/real/sub`, { recursive: true });
  await Deno.symlink(`${dir.path}/real`, `${dir.path}/link`);
  assert.equal(canonicalPath(`${dir.path}/link/sub`), `${dir.path}/real/sub`);
  assert.equal(canonicalPath(`${dir.path}/link/not/yet/../there`), `${dir.path}/real/not/there`);
});

Deno.test("assertNotInSource() refuses a write through a symlink into a source tree and allows paths outside", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/author/app`, { recursive: true });
  await Deno.mkdir(`${dir.path}/state`, { recursive: true });
  await Deno.symlink(`${dir.path}/author/app`, `${dir.path}/state/sneaky`);
  const sources = sourceTrees([{ name: "app", source: `${dir.path}/author/app` }, { name: "docs", source: null }]);
  assert.deepEqual(sources, [{ repo: "app", path: `${dir.path}/author/app` }]);
  assert.equal(sourceHolding(`${dir.path}/state/packet`, sources), null);
  assertNotInSource(`${dir.path}/state/packet`, sources, "store root");
  assert.throws(
    () => assertNotInSource(`${dir.path}/state/sneaky/store`, sources, "store root"),
    (e: unknown) =>
      e instanceof PacketError && e.code === "workspace_write_into_source" && e.exit === 3 &&
      e.message.includes(`refusing store root ${dir.path}/author/app/store`) && e.message.includes(`"app"`),
  );
});
