/**
 * The store root itself (issue #11 item 2, docs/store.md), black-box through `run`: a root owned by another uid is
 * refused before anything is written in it; a 0775 root (an sdk-created store under umask 002) is tightened to 0700
 * with a warning and the run completes; a root that is itself a link is refused and its target left alone.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "./support.ts";
import { canaryDigest, makeCanary } from "./_store_plant.ts";

const SIMPLE = {
  "01_a.prompt.md": promptFile(
    "01",
    "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt, text: a}]",
  ),
};

async function listing(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test({
  name: "run refuses a store root owned by another uid and writes nothing in it",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, SIMPLE);
    const store = `${pkt}/.prompt_runner`;
    await Deno.mkdir(store, { mode: 0o700 });
    await Deno.chown(store, 65534, 65534);
    const r = await runCli(["run", pkt]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refusing store root ${store}: it is owned by uid 65534`));
    assert.deepEqual(await listing(store), [], "nothing was written in the foreign root");
    const st = await Deno.lstat(store);
    assert.deepEqual([st.uid, st.mode! & 0o7777], [65534, 0o700], "owner and mode untouched");
  },
});

Deno.test("run tightens a 0775 store root to 0700 with a warning naming it, and completes", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, SIMPLE);
  const store = `${pkt}/.prompt_runner`;
  await Deno.mkdir(store);
  await Deno.chmod(store, 0o775);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`^warning: store root ${store} had mode 0775; tightened to 0700$`, "m"));
  assert.equal((await Deno.lstat(store)).mode! & 0o7777, 0o700);
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /tightened/, "a 0700 root draws no warning");
});

Deno.test("run refuses a store root that is itself a link and leaves the link's target untouched", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, SIMPLE);
  const canary = `${dir.path}/canary`;
  await makeCanary(canary);
  const before = await canaryDigest(canary);
  await Deno.symlink(`${canary}/dir`, `${pkt}/.prompt_runner`);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, new RegExp(`refusing store path ${pkt}/\\.prompt_runner: it is a symbolic link`));
  assert.equal(await canaryDigest(canary), before);
});
