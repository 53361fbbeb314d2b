/**
 * A run's start-up checks are linear in the packet at a small cost per prompt (docs/bench.md, "Per-prompt cost"):
 * `runPermissionsFor()` lists the amendments directory once (only a prompt with an amendments file has it read) and
 * resolves each working directory once; `dirtyRepos()` resolves each repo once. Counted through the test's own seam
 * over `Deno`; an amended prompt's added command still counts.
 */
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { loadPacket } from "../../src/packet/mod.ts";
import { runPermissionsFor } from "../../src/run/run_permissions.ts";
import { dirtyRepos } from "../../src/run/dirty.ts";

/** File-system calls of `runPermissionsFor()` over a generated packet of `count` prompts; also its `--allow-run` list. */
async function callsOf(count: number, amend?: (store: string, thirdId: string) => Promise<void>) {
  await using dir = await tempDir();
  await writeScalePacket(dir.path, count);
  const store = `${dir.path}/.prompt_runner`;
  await Deno.mkdir(`${store}/amendments`, { recursive: true });
  const packet = await loadPacket(dir.path);
  await amend?.(store, packet.prompts[2]!.id);
  const calls = { realpath: 0, lstat: 0 };
  const realPathSync = Deno.realPathSync;
  const lstatSync = Deno.lstatSync;
  Deno.realPathSync = (p) => (calls.realpath++, realPathSync(p));
  Deno.lstatSync = (p) => (calls.lstat++, lstatSync(p));
  try {
    const perms = await runPermissionsFor(packet, packet.prompts, store);
    return { ...calls, run: perms.run };
  } finally {
    Deno.realPathSync = realPathSync;
    Deno.lstatSync = lstatSync;
  }
}

Deno.test("runPermissionsFor(): a further prompt without amendments costs no realpath and no lstat", async () => {
  const four = await callsOf(4);
  const eight = await callsOf(8);
  assert.equal(eight.realpath, four.realpath, `realpaths: 4 prompts ${four.realpath}, 8 prompts ${eight.realpath}`);
  assert.equal(eight.lstat, four.lstat, `lstats: 4 prompts ${four.lstat}, 8 prompts ${eight.lstat}`);
});

Deno.test("runPermissionsFor(): an amended prompt's file is read, and the command it adds is on the list", async () => {
  const record = {
    id: "am-1",
    at: "2026-01-01T00:00:00.000Z",
    prompt: "",
    operation: "add",
    clause: "commands",
    entries: [{ exec: "amended-tool", args: [], timeout_ms: 1000 }],
  };
  const amended = await callsOf(4, async (store, id) => {
    await Deno.writeTextFile(`${store}/amendments/${id}.jsonl`, JSON.stringify({ ...record, prompt: id }) + "\n");
  });
  const plain = await callsOf(4);
  assert.ok(amended.run.includes("amended-tool"), JSON.stringify(amended.run));
  assert.ok(!plain.run.includes("amended-tool"));
  assert.ok(amended.lstat > plain.lstat, "the amended prompt's file was checked and read");
});

Deno.test("dirtyRepos(): a further prompt of the same repo costs no realpath", async () => {
  const realpaths = async (count: number) => {
    await using dir = await tempDir();
    await writeScalePacket(dir.path, count);
    const packet = await loadPacket(dir.path);
    let calls = 0;
    const realPathSync = Deno.realPathSync;
    Deno.realPathSync = (p) => (calls++, realPathSync(p));
    try {
      assert.deepEqual(await dirtyRepos(packet, packet.prompts, `${dir.path}/.prompt_runner`, false), []);
    } finally {
      Deno.realPathSync = realPathSync;
    }
    return calls;
  };
  const four = await realpaths(4);
  const eight = await realpaths(8);
  assert.equal(eight, four, `realpaths: 4 prompts ${four}, 8 prompts ${eight}`);
});
