/** A control request is never written through a planted link (docs/store.md): `requests/` or `.tmp/` as a link. */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { REQUEST_SCHEMA, type RequestBody, writeRequest } from "../../src/control/request.ts";
import { StoreIntegrityError } from "../../src/util/safe_fs.ts";

const BODY: RequestBody = {
  schema: REQUEST_SCHEMA,
  command: "steer",
  params: { text: "hi" },
  run_id: null,
  author: "ada",
  issued_at: "2026-12-01T00:00:00.000Z",
};

for (const dirName of ["requests", ".tmp"]) {
  Deno.test(`writeRequest refuses control/${dirName} as a link by name and writes nothing through it`, async () => {
    await using dir = await tempDir();
    const outside = `${dir.path}/outside`;
    await Deno.mkdir(outside);
    const control = `${dir.path}/store/control`;
    await Deno.mkdir(`${control}/requests`, { recursive: true });
    await Deno.mkdir(`${control}/.tmp`, { recursive: true });
    const planted = `${control}/${dirName}`;
    await Deno.remove(planted);
    await Deno.symlink(outside, planted);
    await assert.rejects(
      writeRequest(`${dir.path}/store`, BODY),
      (e) => e instanceof StoreIntegrityError && e.message.includes(planted),
    );
    assert.deepEqual([...Deno.readDirSync(outside)], [], "nothing written outside");
  });
}
