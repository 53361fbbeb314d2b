/** Pending import receipts after a crash: completed when progress.log holds what they describe, else dropped. */
import assert from "node:assert/strict";
import { settlePendingReceipts } from "../../src/workspace/import_state.ts";
import { tempDir } from "../support/fs.ts";

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function pending(root: string, name: string, result: string): Promise<string> {
  await Deno.mkdir(`${root}/imports`, { recursive: true });
  const path = `${root}/imports/${name}.json.pending`;
  const doc = { result_sha256: await sha256(result), result_bytes: new TextEncoder().encode(result).length };
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return path;
}

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("a pending receipt whose progress was written is completed, even after a run appended to it", async () => {
  await using dir = await tempDir();
  const result = "01:completed:2026-08-10T02:00:00Z:no_session\n";
  const p = await pending(dir.path, "legacy-1", result);
  await Deno.writeTextFile(`${dir.path}/progress.log`, result + "02:completed:2026-08-11T02:00:00Z:abc1234\n");
  await settlePendingReceipts(dir.path);
  assert.equal(await exists(p), false);
  assert.equal(await exists(`${dir.path}/imports/legacy-1.json`), true);
});

Deno.test("a pending receipt whose progress was never written (or differs) is dropped", async () => {
  await using dir = await tempDir();
  const result = "01:completed:2026-08-10T02:00:00Z:no_session\n";
  const never = await pending(dir.path, "legacy-1", result);
  await settlePendingReceipts(dir.path);
  assert.equal(await exists(never), false);
  assert.equal(
    await exists(`${dir.path}/imports/legacy-1.json`),
    false,
    "no receipt for an import that did not happen",
  );

  const other = await pending(dir.path, "legacy-2", result);
  await Deno.writeTextFile(`${dir.path}/progress.log`, "01:completed:2026-09-01T00:00:00Z:abc1234\n");
  await settlePendingReceipts(dir.path);
  assert.equal(await exists(other), false);
  assert.equal(await exists(`${dir.path}/imports/legacy-2.json`), false);
});
