import assert from "node:assert/strict";
import { commitPrompt } from "../../src/run/commit.ts";
import { isPacketLocalStore, storeRelIn } from "../../src/run/commit_records.ts";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";

const STORE = "pkt/.prompt_runner";

/** A committed repo holding a packet with a packet-local store root (its `.gitignore` of `*` included). */
async function repoWithStore(root: string): Promise<{ repo: string; store: string }> {
  const repo = `${root}/repo`;
  await initRepo(repo, { "README.md": "# r\n", "pkt/prompt_runner_packet.md": "---\nname: p\n---\n" });
  const store = `${repo}/${STORE}`;
  await writeFiles(store, {
    ".gitignore": "*\n",
    "state.json": "{}\n",
    "control/log.jsonl": '{"key":"k"}\n',
    "interventions/01.jsonl": '{"text":"steer one"}\n',
    "amendments/01.jsonl": '{"id":"am-1"}\n',
    "interventions/02.jsonl": '{"text":"steer two"}\n',
  });
  return { repo, store };
}

async function filesOf(repo: string, rev = "HEAD"): Promise<string[]> {
  return (await git(repo, "show", "--name-only", "--format=", rev)).split("\n").filter(Boolean).sort();
}

const say = () => {};

Deno.test("a prompt's commit carries its intervention and amendment records, force-added, and nothing else of the store", async () => {
  await using tmp = await tempDir();
  const { repo, store } = await repoWithStore(tmp.path);
  await Deno.writeTextFile(`${repo}/work.txt`, "work\n");
  const out = await commitPrompt([{ name: "app", path: repo }], "feat: 01\n", say, {
    storeRoot: store,
    promptId: "01",
    carry: true,
  });
  assert.equal(out.ok, true, out.error ?? "");
  assert.deepEqual(await filesOf(repo), [
    `${STORE}/amendments/01.jsonl`,
    `${STORE}/interventions/01.jsonl`,
    "work.txt",
  ]);
  // The committed records are the store's bytes.
  assert.equal(await git(repo, "show", `HEAD:${STORE}/interventions/01.jsonl`), '{"text":"steer one"}');
});

Deno.test("records committed earlier and appended to later never ride with another prompt's commit", async () => {
  await using tmp = await tempDir();
  const { repo, store } = await repoWithStore(tmp.path);
  await Deno.writeTextFile(`${repo}/work.txt`, "work\n");
  await commitPrompt([{ name: "app", path: repo }], "feat: 01\n", say, {
    storeRoot: store,
    promptId: "01",
    carry: true,
  });
  // Prompt 01 is amended after its commit (a tracked record now modified); prompt 02 then commits its work.
  await Deno.writeTextFile(`${store}/amendments/01.jsonl`, '{"id":"am-2"}\n', { append: true });
  await Deno.writeTextFile(`${repo}/second.txt`, "two\n");
  const two = await commitPrompt([{ name: "app", path: repo }], "feat: 02\n", say, {
    storeRoot: store,
    promptId: "02",
    carry: true,
  });
  assert.equal(two.ok, true, two.error ?? "");
  assert.deepEqual(await filesOf(repo), [`${STORE}/interventions/02.jsonl`, "second.txt"]);
  // Store-only changes are not work: prompt 03 with nothing else changed commits nothing.
  const lines: string[] = [];
  const three = await commitPrompt([{ name: "app", path: repo }], "feat: 03\n", (l) => lines.push(l), {
    storeRoot: store,
    promptId: "03",
    carry: true,
  });
  assert.equal(three.suffix, "no_changes");
  assert.deepEqual(lines, ["No changes in app"]);
  assert.equal(await git(repo, "rev-list", "--count", "HEAD"), "3");
  // Without carry (a run that keeps no records with the work) the store is still never staged.
  await Deno.writeTextFile(`${repo}/third.txt`, "3\n");
  await commitPrompt([{ name: "app", path: repo }], "feat: 04\n", say, {
    storeRoot: store,
    promptId: "01",
    carry: false,
  });
  assert.deepEqual(await filesOf(repo), ["third.txt"]);
  // (git() trims, so the leading " " of " M" is gone.)
  assert.equal(await git(repo, "status", "--porcelain"), `M ${STORE}/amendments/01.jsonl`);
});

Deno.test("a store root outside the repo (a workspace state root) changes nothing", async () => {
  await using tmp = await tempDir();
  const { store } = await repoWithStore(tmp.path);
  const other = `${tmp.path}/other`;
  await initRepo(other);
  assert.equal(await storeRelIn(other, store), null);
  assert.equal(await storeRelIn(`${tmp.path}/repo`, store), STORE);
  assert.equal(await storeRelIn(store, store), null);
  await Deno.writeTextFile(`${other}/w.txt`, "w\n");
  const out = await commitPrompt([{ name: "o", path: other }], "feat\n", say, {
    storeRoot: store,
    promptId: "01",
    carry: true,
  });
  assert.equal(out.ok, true);
  assert.deepEqual(await filesOf(other), ["w.txt"]);
  assert.equal(await isPacketLocalStore(store, `${tmp.path}/repo/pkt`), true);
  assert.equal(await isPacketLocalStore(`${tmp.path}/state/x`, `${tmp.path}/repo/pkt`), false);
});
