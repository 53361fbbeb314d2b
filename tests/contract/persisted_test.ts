/**
 * Persisted amendments and a prompt loaded before them (a live run): the runner folds exactly the write-backs it
 * has not loaded, lists them, and follows nothing else (src/contract/persisted.ts).
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeDemoPacket } from "../control/_harness.ts";
import { amend, relax } from "../../src/control/mod.ts";
import { enforcedContract } from "../../src/contract/enforced.ts";
import { fingerprintChain } from "../../src/contract/persisted.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { packetFingerprint } from "../../src/packet/fingerprint.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import type { Prompt } from "../../src/packet/types.ts";

async function prompt1(dir: string): Promise<Prompt> {
  return (await loadPacket(dir)).prompts.find((p) => p.id === "01")!;
}

Deno.test("a prompt loaded before a persisted amendment folds it once; a fresh load has it from the file", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  const stale = await prompt1(dir);
  const fp0 = await packetFingerprint(await loadPacket(dir));
  const rec = await amend(dir, "1", { clause: "files_exist", entries: ["lib/new.ts"], reason: "r", persist: true });
  const live = await enforcedContract(stale, store);
  assert.deepEqual(live.contract.files_exist, ["README.md", "lib/new.ts"], "the live run enforces the write-back");
  assert.deepEqual(live.amendments.map((a) => a.id), [rec.id]);
  const fresh = await enforcedContract(await prompt1(dir), store);
  assert.deepEqual(fresh.contract.files_exist, ["README.md", "lib/new.ts"], "applied exactly once");
  assert.deepEqual(fresh.amendments.map((a) => a.id), [rec.id]);
  // Two write-backs in a row: the stale prompt folds both, in order.
  const drop = await relax(dir, "1", { clause: "contains", reason: "r", confirm: true, persist: true });
  const both = await enforcedContract(stale, store);
  assert.equal(both.contract.contains, undefined);
  assert.deepEqual(both.amendments.map((a) => a.id), [rec.id, drop.id]);
  // The recorded fingerprints chain the run's packet to the current one.
  const fp2 = await packetFingerprint(await loadPacket(dir));
  assert.deepEqual((await fingerprintChain(store, fp0, fp2))?.map((r) => r.id), [rec.id, drop.id]);
  assert.equal(await fingerprintChain(store, fp2, fp0), null);
});

Deno.test("a prompt file changed by hand is not followed by a live run, and breaks the fingerprint chain", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const store = storeRootForPacket(dir);
  const stale = await prompt1(dir);
  const fp0 = await packetFingerprint(await loadPacket(dir));
  await amend(dir, "1", { clause: "files_exist", entries: ["lib/new.ts"], reason: "r", persist: true });
  const file = `${dir}/prompts/01_first.prompt.md`;
  await Deno.writeTextFile(file, (await Deno.readTextFile(file)).replace("- README.md", "- OTHER.md"));
  const live = await enforcedContract(stale, store);
  assert.deepEqual(live.contract.files_exist, ["README.md"], "the run enforces what it loaded");
  assert.deepEqual(live.amendments, [], "and lists only what it enforces");
  assert.equal(await fingerprintChain(store, fp0, await packetFingerprint(await loadPacket(dir))), null);
});
