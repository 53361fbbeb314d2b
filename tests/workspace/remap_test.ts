import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { parseWorkspaceManifest } from "../../src/workspace/manifest.ts";
import { workspacePaths } from "../../src/workspace/paths.ts";
import { buildRepoRemap } from "../../src/workspace/resolve.ts";
import { PacketError } from "../../src/errors.ts";
import { tempDir, writeFiles } from "../support/fs.ts";

async function layout(root: string, packetRepos: string, body: string) {
  const manifest = parseWorkspaceManifest(
    `schema: prompt_runner.workspace/v1
id: ws
repositories:
  app: {remote: x, source: ${root}/author/app}
  docs: {remote: y, source: ${root}/author/docs-site}
operator: {workspace_root: ${root}/ws, runtime_root: ${root}/rt}
`,
    `${root}/ops/workspace.yml`,
  );
  const paths = workspacePaths(manifest, (n) => (n === "HOME" ? `${root}/home` : undefined));
  const files = {
    "packets/op/prompt_runner_packet.md": `---\nname: op\nprofile: simulated-default\nrepos:\n${packetRepos}---\n`,
    "packets/op/prompts/01_a.prompt.md": `---\ntargets: [app]\nappend_system_prompt: "Stay in ${root}/author/app."\n` +
      `adapter_opts: {env: {DOCS: ${root}/author/docs-site}}\n---\n${body}`,
    "README.md": "app\n",
  };
  await writeFiles(`${root}/author/app`, files);
  await writeFiles(`${root}/ws/repos/app`, files);
  await writeFiles(`${root}/ws/repos/docs`, { "README.md": "docs\n" });
  await writeFiles(`${root}/author/docs-site`, { "README.md": "docs\n" });
  const dir = `${root}/ws/repos/app/packets/op`;
  return { manifest, paths, dir, remap: buildRepoRemap(manifest, paths, { repo: "app", rel: "packets/op", dir }) };
}

Deno.test("loadPacket() with a workspace remap refuses a repo matching no workspace repository (exit 3)", async () => {
  await using d = await tempDir();
  const root = d.path;
  const { dir, remap } = await layout(
    root,
    `  app: {path: ../.., default: true}\n  docs2: {path: /home/ada/elsewhere}\n`,
    "x\n",
  );
  // docs2 has an author-machine path outside every source and no workspace repository of that name.
  await assert.rejects(
    loadPacket(dir, { repoRemap: remap }),
    (e: unknown) => e instanceof PacketError && e.code === "workspace_repo_unmapped" && /repos\.docs2/.test(e.message),
  );
});

Deno.test("buildRepoRemap() maps source paths, relative author paths and names, and rewrites bodies and options", async () => {
  await using d = await tempDir();
  const root = d.path;
  const body =
    `Edit ${root}/author/app/lib/a.ex and ${root}/author/docs-site/README.md, not ${root}/author/application.\n` +
    `Also /home/ada/docs.\n`;
  const { dir, remap } = await layout(
    root,
    `  app: {path: ../.., default: true}\n  docs: {path: /home/ada/docs}\n  sub: ${root}/author/app/sub\n` +
      `  site: {path: ../../../docs-site}\n`,
    body,
  );
  const packet = await loadPacket(dir, { repoRemap: remap });
  const byName = Object.fromEntries(packet.repos.map((r) => [r.name, r.path]));
  assert.deepEqual(byName, {
    app: `${root}/ws/repos/app`,
    docs: `${root}/ws/repos/docs`,
    site: `${root}/ws/repos/docs`,
    sub: `${root}/ws/repos/app/sub`,
  });
  assert.equal(packet.prompts[0]!.cwd, `${root}/ws/repos/app`);
  assert.equal(
    packet.prompts[0]!.body.trim(),
    `Edit ${root}/ws/repos/app/lib/a.ex and ${root}/ws/repos/docs/README.md, not ${root}/author/application.\n` +
      `Also ${root}/ws/repos/docs.`,
  );
  const options = packet.prompts[0]!.options;
  assert.equal(options.append_system_prompt, `Stay in ${root}/ws/repos/app.`);
  assert.deepEqual(options.provider_opts.adapter_opts, { env: { DOCS: `${root}/ws/repos/docs` } });
  // Without the remap the same packet keeps its own paths.
  const plain = await loadPacket(dir);
  assert.equal(plain.repos.find((r) => r.name === "docs")!.path, "/home/ada/docs");
});
