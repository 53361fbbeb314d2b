/** The up-front integrity check covers `imports/` (workspace import-state receipts) like the other record folders. */
import assert from "node:assert/strict";
import { assertStoreIntact } from "../../src/store/guard.ts";
import { StoreIntegrityError } from "../../src/util/safe_fs.ts";
import { tempDir } from "../support/fs.ts";

Deno.test("a link planted in imports/ is refused naming it; regular receipts pass", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/store`;
  await Deno.mkdir(`${store}/imports`, { recursive: true });
  await Deno.writeTextFile(`${store}/imports/legacy-1-abc.json`, "{}");
  assertStoreIntact(store);
  await Deno.writeTextFile(`${dir.path}/elsewhere.json`, "{}");
  await Deno.symlink(`${dir.path}/elsewhere.json`, `${store}/imports/legacy-2-def.json`);
  assert.throws(
    () => assertStoreIntact(store),
    (e) => e instanceof StoreIntegrityError && e.message.includes(`${store}/imports/legacy-2-def.json`),
  );
});
