import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir, writeFiles } from "../support/fs.ts";
import { treeDigest, workspaceFixture } from "../workspace/fixture.ts";

async function prepared(root: string, opts: Parameters<typeof workspaceFixture>[1] = {}) {
  const f = await workspaceFixture(root, opts);
  const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  return f;
}

Deno.test("a workspace is addressed by id, manifest positional and --workspace, all resolving into the clone", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  for (const args of [["op-ws"], [f.manifest], ["--workspace", "op-ws"], ["--workspace", f.manifest]]) {
    const r = await runCli(["plan", ...args, "--json"], { env: f.env });
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.equal(parseJsonOut(r).store_root, f.store, args.join(" "));
  }
  const human = await runCli(["plan", "op-ws"], { env: f.env });
  assert.match(human.stdout, new RegExp(`^Plan for op-ws \\(${f.clone}/packets/op\\)$`, "m"));
});

Deno.test("discovery: the author's checkout, the clone and the manifest dir find the workspace; elsewhere is packet mode", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  for (const cwd of [f.author, `${f.author}/packets`, f.clone, `${dir.path}/ops`]) {
    const r = await runCli(["plan", "--json"], { env: f.env, cwd });
    assert.equal(r.code, 0, `${cwd}: ${r.stderr}`);
    assert.equal(parseJsonOut(r).store_root, f.store, cwd);
  }
  await Deno.mkdir(`${dir.path}/elsewhere`);
  const none = await runCli(["plan"], { env: f.env, cwd: `${dir.path}/elsewhere` });
  assert.equal(none.code, 4);
  assert.match(none.stderr, /no packet here/);
});

Deno.test("discovery with several related workspaces is a usage error listing their ids", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  await writeFiles(dir.path, {
    "ops/second.yml": (await Deno.readTextFile(f.manifest)).replace("id: op-ws", "id: second"),
  });
  const prep = await runCli(["workspace", "prepare", `${dir.path}/ops/second.yml`], { env: f.env });
  assert.equal(prep.code, 0, prep.stderr);
  const r = await runCli(["plan"], { env: f.env, cwd: f.author });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /several workspaces: op-ws, second/);
  const named = await runCli(["plan", "second", "--json"], { env: f.env, cwd: f.author });
  assert.equal(named.code, 0, named.stderr);
  assert.match(String(parseJsonOut(named).store_root), /workspaces\/second\/packet$/);
});

Deno.test("a registered workspace whose clones are gone is not prepared: exit 4 with the prepare hint", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  await Deno.remove(f.clone, { recursive: true });
  const r = await runCli(["status", "op-ws"], { env: f.env });
  assert.equal(r.code, 4);
  assert.match(r.stderr, /workspace "op-ws" is not prepared/);
  assert.ok(r.stderr.includes(`run: prompt_runner workspace prepare ${f.manifest}`), r.stderr);
  const unknown = await runCli(["status", "--workspace", "nope"], { env: f.env });
  assert.equal(unknown.code, 4);
  assert.match(unknown.stderr, /unknown workspace "nope"/);
});

Deno.test("--packet inside the author's source maps to the clone; a path outside every clone is refused", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path, {
    files: {
      "packets/other/prompt_runner_packet.md": "---\nname: other\nprofile: simulated-default\n" +
        "repos:\n  app: {path: ../.., default: true}\n---\n",
      "packets/other/prompts/01_x.prompt.md": "---\nverify:\n  files_exist: [x.txt]\n---\n# X\n",
    },
  });
  const other = `${dir.path}/state/prompt_runner/workspaces/op-ws/packets/app--packets-other`;
  for (const p of [`${f.author}/packets/other`, `${f.clone}/packets/other`, "packets/other"]) {
    const r = await runCli(["plan", "--workspace", "op-ws", "--packet", p, "--json"], { env: f.env });
    assert.equal(r.code, 0, `${p}: ${r.stderr}`);
    assert.equal(parseJsonOut(r).store_root, other, p);
  }
  // A writing command creates the store root with store.json on first use; read-only ones do not.
  await assert.rejects(Deno.stat(other));
  const before = await treeDigest(f.author);
  const amend = await runCli(
    ["control", "amend", "--workspace", f.manifest, "--packet", "packets/other", "01", "--add-file", "README.md"]
      .concat(["--reason", "keep it", "--persist"]),
    { env: f.env },
  );
  assert.equal(amend.code, 0, amend.stderr);
  const store = JSON.parse(await Deno.readTextFile(`${other}/store.json`));
  assert.deepEqual(store, {
    schema: "prompt_runner.store/v1",
    kind: "workspace",
    packet_dir: `${f.clone}/packets/other`,
    workspace_id: "op-ws",
    manifest: f.manifest,
  });
  assert.equal(await Deno.readTextFile(`${other}/.gitignore`), "*\n");
  assert.match(await Deno.readTextFile(`${f.clone}/packets/other/prompts/01_x.prompt.md`), /README\.md/);
  assert.equal(await treeDigest(f.author), before, "the author's checkout is untouched");

  await Deno.mkdir(`${dir.path}/loose/pk`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/loose/pk/prompt_runner_packet.md`, "---\nname: loose\n---\n");
  const outside = await runCli(["plan", "--workspace", "op-ws", "--packet", `${dir.path}/loose/pk`], { env: f.env });
  assert.equal(outside.code, 2);
  assert.match(outside.stderr, /lies outside every clone of workspace "op-ws"/);
  const missing = await runCli(["plan", "--workspace", "op-ws", "--packet", "packets/none"], { env: f.env });
  assert.equal(missing.code, 4);
  assert.match(missing.stderr, /packet "packets\/none" is not in any clone of workspace "op-ws"/);
});

Deno.test("control amend by id without a packet binding is exit 2 with the explicit-form hint", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path, { bind: false });
  const r = await runCli(
    ["control", "contract", "op-ws", "01"],
    { env: f.env },
  );
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /workspace "op-ws" has no default packet binding/);
  assert.ok(r.stderr.includes(`--workspace ${f.manifest} --packet <path>`), r.stderr);
  const explicit = await runCli(
    ["control", "contract", "--workspace", f.manifest, "--packet", "packets/op", "01", "--json"],
    { env: f.env },
  );
  assert.equal(explicit.code, 0, explicit.stderr);
  assert.deepEqual(parseJsonOut(explicit).packet, { files_exist: ["hello.txt"] });
  // The explicit form created a store root; addressing by id still refuses rather than guessing a packet.
  const amend = await runCli(
    ["control", "amend", "--workspace", "op-ws", "--packet", "packets/op", "01", "--add-file", "README.md"]
      .concat(["--reason", "keep it"]),
    { env: f.env },
  );
  assert.equal(amend.code, 0, amend.stderr);
  const byId = await runCli(["control", "amend", "op-ws", "01", "--add-file", "x", "--reason", "r"], { env: f.env });
  assert.equal(byId.code, 2, byId.stderr);
  assert.match(byId.stderr, /has no default packet binding/);
  // Observing commands by id use the workspace's packet store root.
  const status = await runCli(["status", "op-ws", "--json"], { env: f.env });
  assert.equal(status.code, 0, status.stderr);
  assert.equal(parseJsonOut(status).packet_dir, `${f.clone}/packets/op`);
});

Deno.test("a runtime root inside the author's checkout is refused before anything is written there", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  await Deno.writeTextFile(
    f.manifest,
    (await Deno.readTextFile(f.manifest)) + `operator:\n  runtime_root: ${f.author}/.ops-state\n`,
  );
  const before = await treeDigest(f.author);
  const r = await runCli(["control", "view", "op-ws", "--tool-output", "full"], { env: f.env });
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /refusing store root .*\.ops-state\/packet: it lies inside the source checkout of repository "app"/,
  );
  assert.equal(await treeDigest(f.author), before);
});

Deno.test("workspace prepare refuses a workspace root inside the author's checkout (exit 3), writing nothing there", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path, { manifestExtra: "operator:\n  workspace_root: WS\n" });
  await Deno.writeTextFile(f.manifest, (await Deno.readTextFile(f.manifest)).replace("WS", `${f.author}/ws`));
  const before = await treeDigest(f.author);
  const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /refusing workspace root .*\/author\/app\/ws: it lies inside the source checkout/);
  assert.equal(await treeDigest(f.author), before);
});

Deno.test("a packet repo that matches no workspace repository is refused with exit 3 naming it", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path, {
    files: {
      "packets/op/prompt_runner_packet.md": "---\nname: op\nprofile: simulated-default\nrepos:\n" +
        "  app: {path: ../.., default: true}\n  lib: {path: /nonexistent/lib}\n---\n",
    },
  });
  const r = await runCli(["plan", "op-ws"], { env: f.env });
  assert.equal(r.code, 3);
  assert.match(
    r.stderr,
    /repos\.lib: path "\/nonexistent\/lib" does not correspond to a repository of workspace "op-ws"/,
  );
});
