import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";

/** A source checkout (the author's), a bare "remote" it pushes to, and a manifest binding its packet. */
async function fixture(root: string) {
  const author = `${root}/author/app`;
  await initRepo(author, {
    "README.md": "# app\n",
    "packets/op/prompt_runner_packet.md":
      "---\nname: op\nprofile: simulated-default\nrepos:\n  app: {path: ../.., default: true}\n---\n",
    "packets/op/prompts/01_hello.prompt.md": "---\nverify:\n  files_exist: [hello.txt]\n---\n# Hello\n",
  });
  const remote = `${root}/remote/app.git`;
  await git(root, "clone", "-q", "--bare", author, remote);
  const manifest = `${root}/ops/workspace.yml`;
  await writeFiles(root, {
    "ops/workspace.yml": `schema: prompt_runner.workspace/v1
id: op-ws
repositories:
  app:
    remote: ${remote}
    source: ../author/app
packet:
  repo: app
  path: packets/op
`,
  });
  const env = { HOME: `${root}/home`, XDG_DATA_HOME: `${root}/data`, XDG_STATE_HOME: `${root}/state` };
  return { author, remote, manifest, env };
}

async function treeDigest(dir: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [
      "-c",
      "find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum; git status --porcelain",
    ],
    cwd: dir,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("workspace prepare clones independently, records lock and registry, and leaves the author's checkout untouched", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  const before = await treeDigest(f.author);
  const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^cloned app at [0-9a-f]{8} \(main\)$/m);
  assert.match(r.stdout, /Workspace op-ws is prepared\./);

  const clone = `${dir.path}/data/prompt_runner/workspaces/op-ws/repos/app`;
  assert.equal(await git(clone, "remote", "get-url", "origin"), f.remote);
  assert.ok((await Deno.lstat(`${clone}/.git`)).isDirectory, "not a linked worktree");
  await assert.rejects(Deno.stat(`${clone}/.git/objects/info/alternates`));
  const lock = JSON.parse(
    await Deno.readTextFile(`${dir.path}/data/prompt_runner/workspaces/op-ws/workspace.lock.json`),
  );
  assert.equal(lock.schema, "prompt_runner.workspace.lock/v1");
  assert.equal(lock.repositories.app.independent, true);
  assert.equal(lock.repositories.app.commit, await git(clone, "rev-parse", "HEAD"));
  const store = JSON.parse(
    await Deno.readTextFile(`${dir.path}/state/prompt_runner/workspaces/op-ws/packet/store.json`),
  );
  assert.deepEqual([store.kind, store.workspace_id, store.packet_dir], ["workspace", "op-ws", `${clone}/packets/op`]);
  assert.equal((await Deno.stat(`${dir.path}/state/prompt_runner/workspaces/op-ws`)).mode! & 0o777, 0o700);

  const again = await runCli(["workspace", "prepare", "op-ws"], { env: f.env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^app already at [0-9a-f]{8}$/m);
  assert.equal(await treeDigest(f.author), before);

  const list = await runCli(["workspace", "list", "--json"], { env: f.env });
  assert.equal(list.code, 0, list.stderr);
  const rows = parseJsonOut(list).workspaces as { id: string; prepared: boolean; state: string }[];
  assert.deepEqual(rows.map((w) => [w.id, w.prepared, w.state]), [["op-ws", true, "not_started"]]);
});

Deno.test("workspace prepare fast-forwards from the remote and refuses a dirty clone, listing its paths", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  await writeFiles(f.author, { "NEW.md": "new\n" });
  await git(f.author, "add", "-A");
  await git(f.author, "commit", "-q", "-m", "new");
  await git(f.author, "push", "-q", f.remote, "main");
  const up = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(up.code, 0, up.stderr);
  assert.match(up.stdout, /^updated app [0-9a-f]{8} → [0-9a-f]{8}$/m);

  const clone = `${dir.path}/data/prompt_runner/workspaces/op-ws/repos/app`;
  await writeFiles(clone, { "scratch.txt": "work in progress\n" });
  const dirty = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(dirty.code, 1);
  assert.match(dirty.stderr, /clone app has uncommitted changes; prepare never discards work/);
  assert.match(dirty.stderr, /scratch\.txt/);
  assert.equal(await Deno.readTextFile(`${clone}/scratch.txt`), "work in progress\n");
});

Deno.test("workspace prepare refuses an invalid manifest with exit 3 naming the key", async () => {
  await using dir = await tempDir();
  const f = await fixture(dir.path);
  await Deno.writeTextFile(f.manifest, (await Deno.readTextFile(f.manifest)) + "surprise: true\n");
  const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(r.code, 3);
  assert.match(r.stderr, /workspace\.yml: surprise: unknown key/);
});
