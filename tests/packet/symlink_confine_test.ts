/**
 * Packet files stay inside the packet (docs/reference/packet.md §1): a prompt file, the prompt directory or the
 * manifest whose real path leaves the packet — a link, a chain of links, a linked directory — is refused at load
 * naming the file, the link, its target and what was expected; links that stay inside load. `checklist sync` never
 * writes through a checklist linked outside. The shipped example and fixture packets still load.
 */
import assert from "node:assert/strict";
import { inspectPacket, loadPacket } from "../../src/packet/load.ts";
import { PacketError } from "../../src/errors.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempDir, writeFiles } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const NO_ENV = { env: {} };

async function loadError(dir: string): Promise<PacketError> {
  try {
    await loadPacket(dir, NO_ENV);
  } catch (e) {
    if (e instanceof PacketError) return e;
    throw e;
  }
  throw new Error("loaded without error");
}

/** A secret outside the packet, and a packet at `<root>/pkt` with one ordinary prompt. */
async function setup(root: string): Promise<{ pkt: string; secret: string }> {
  const secret = `${root}/outside/id_rsa.prompt.md`;
  await writeFiles(root, { "outside/id_rsa.prompt.md": "-----BEGIN PRIVATE KEY-----\nsecret\n" });
  const pkt = await writePacket(`${root}/pkt`, "name: links\n", { "01_a.prompt.md": promptText("id: 1\n") });
  return { pkt, secret };
}

Deno.test("a prompt file linked outside the packet is refused, naming the file, the link target and the rule", async () => {
  await using t = await tempDir();
  const { pkt, secret } = await setup(t.path);
  await Deno.symlink(secret, `${pkt}/prompts/02_key.prompt.md`);
  const e = await loadError(pkt);
  assert.equal(e.code, "outside_packet");
  assert.equal(e.file, "prompts/02_key.prompt.md");
  assert.match(e.message, /^prompts\/02_key\.prompt\.md: resolves to \S+\/outside\/id_rsa\.prompt\.md/);
  assert.match(e.message, new RegExp(`through the symlink ${pkt}/prompts/02_key\\.prompt\\.md -> ${secret}\\)`));
  assert.match(e.message, /outside the packet .*; expected a file inside the packet/);
  assert.doesNotMatch(e.message, /secret|PRIVATE/, "the file is never read");
  // packet lint lists it as an error; run refuses with exit 3 before anything starts.
  const found = await inspectPacket(pkt, NO_ENV);
  assert.deepEqual(found.findings.filter((f) => f.severity === "error").map((f) => f.kind), ["outside_packet"]);
  const run = await runCli(["run", pkt]);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, /prompts\/02_key\.prompt\.md: resolves to/);
});

Deno.test("a chain of links is followed to its end: leaving the packet is refused, staying inside loads", async () => {
  await using t = await tempDir();
  const { pkt, secret } = await setup(t.path);
  await Deno.symlink(secret, `${pkt}/hop2`);
  await Deno.symlink(`${pkt}/hop2`, `${pkt}/hop1`);
  await Deno.symlink("../hop1", `${pkt}/prompts/02_chain.prompt.md`);
  const e = await loadError(pkt);
  assert.match(e.message, /prompts\/02_chain\.prompt\.md: resolves to \S+\/outside\/id_rsa\.prompt\.md/);
  assert.match(e.message, /-> \.\.\/hop1\)/);
  await Deno.remove(`${pkt}/hop2`);
  await writeFiles(pkt, { "shared/02.md": promptText("id: 2\n") });
  await Deno.symlink(`${pkt}/shared/02.md`, `${pkt}/hop2`);
  const p = await loadPacket(pkt, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.id), ["01", "02"]);
});

Deno.test("a linked prompt directory: outside the packet refused, inside loads; a link inside the packet loads", async () => {
  await using t = await tempDir();
  const { pkt } = await setup(t.path);
  await writeFiles(t.path, { "elsewhere/01_x.prompt.md": promptText("id: 1\n") });
  await Deno.rename(`${pkt}/prompts`, `${pkt}/real_prompts`);
  await Deno.symlink(`${t.path}/elsewhere`, `${pkt}/prompts`);
  const e = await loadError(pkt);
  assert.equal(e.file, "prompts/01_x.prompt.md");
  assert.match(e.message, new RegExp(`through the symlink ${pkt}/prompts -> ${t.path}/elsewhere\\)`));
  await Deno.remove(`${pkt}/prompts`);
  await Deno.symlink("real_prompts", `${pkt}/prompts`);
  await writeFiles(pkt, { "shared/03.md": promptText("id: 3\n") });
  await Deno.symlink("../shared/03.md", `${pkt}/real_prompts/03_c.prompt.md`);
  const p = await loadPacket(pkt, NO_ENV);
  assert.deepEqual(p.prompts.map((q) => q.id), ["01", "03"]);
});

Deno.test("a manifest linked outside the packet is refused; one linked inside loads", async () => {
  await using t = await tempDir();
  const { pkt } = await setup(t.path);
  const manifest = await Deno.readTextFile(`${pkt}/prompt_runner_packet.md`);
  await writeFiles(t.path, { "outside/manifest.md": manifest });
  await Deno.remove(`${pkt}/prompt_runner_packet.md`);
  await Deno.symlink(`${t.path}/outside/manifest.md`, `${pkt}/prompt_runner_packet.md`);
  const e = await loadError(pkt);
  assert.equal(e.code, "outside_packet");
  assert.match(e.message, /^prompt_runner_packet\.md: resolves to \S+\/outside\/manifest\.md/);
  await Deno.remove(`${pkt}/prompt_runner_packet.md`);
  await writeFiles(pkt, { "meta/manifest.md": manifest });
  await Deno.symlink("meta/manifest.md", `${pkt}/prompt_runner_packet.md`);
  assert.equal((await loadPacket(pkt, NO_ENV)).name, "links");
});

Deno.test("checklist sync never writes through a checklist linked outside the packet", async () => {
  await using t = await tempDir();
  const { pkt } = await setup(t.path);
  await writeFiles(t.path, { "outside/bashrc": "mine\n" });
  await Deno.symlink(`${t.path}/outside/bashrc`, `${pkt}/prompts/01_a.prompt.checklist.md`);
  const r = await runCli(["checklist", "sync", pkt]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /prompts\/01_a\.prompt\.checklist\.md: resolves to \S+\/outside\/bashrc/);
  assert.equal(await Deno.readTextFile(`${t.path}/outside/bashrc`), "mine\n");
  // A dangling link out of the packet would create a file there: refused too.
  await Deno.remove(`${pkt}/prompts/01_a.prompt.checklist.md`);
  await Deno.symlink(`${t.path}/outside/new_file`, `${pkt}/prompts/01_a.prompt.checklist.md`);
  assert.equal((await runCli(["checklist", "sync", pkt])).code, 3);
  await assert.rejects(() => Deno.stat(`${t.path}/outside/new_file`));
});

Deno.test("the shipped examples and the fixture packets (sdk-style, recovery) still load", async () => {
  for (
    const dir of [
      "examples/demo",
      "examples/recovery",
      "tests/fixtures/sdk_recovery",
      "tests/fixtures/packets/sdk_multi_repo",
    ]
  ) {
    const p = await loadPacket(`${ROOT}/${dir}`, NO_ENV);
    assert.ok(p.prompts.length > 0, dir);
  }
});
