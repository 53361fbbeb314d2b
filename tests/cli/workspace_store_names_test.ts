/**
 * Store roots of packets other than the bound one (docs/reference/workspace.md §3): two packets whose paths differ
 * only in where a `/` or a `-` stands (`x/a-b`, `x-a/b`) never share a store root, so one's progress is never read as
 * the other's; a store an earlier release named `<repo>--<path with / → ->` is still found by its own packet.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

const PACKET = "---\nname: p\nprofile: simulated-default\nrepos:\n  app: {path: ../../.., default: true}\n---\n";
const PROMPT =
  "---\nverify:\n  files_exist: [x.txt]\nsimulate:\n  attempts:\n    - {writes: [{path: x.txt, text: x}]}\n---\n# X\n";

async function prepared(root: string) {
  const f = await workspaceFixture(root, {
    files: {
      "x/a-b/prompt_runner_packet.md": PACKET,
      "x/a-b/prompts/01_x.prompt.md": PROMPT,
      "x-a/b/prompt_runner_packet.md": PACKET,
      "x-a/b/prompts/01_x.prompt.md": PROMPT,
    },
  });
  const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
  assert.equal(r.code, 0, r.stderr);
  return f;
}

async function storeRoot(f: { env: Record<string, string> }, packet: string): Promise<string> {
  const r = await runCli(["plan", "--workspace", "op-ws", "--packet", packet, "--json"], { env: f.env });
  assert.equal(r.code, 0, `${packet}: ${r.stderr}`);
  return String(parseJsonOut(r).store_root);
}

Deno.test("packets x/a-b and x-a/b of one clone get distinct store roots; a completed run of one is not the other's", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  const one = await storeRoot(f, "x/a-b");
  const two = await storeRoot(f, "x-a/b");
  assert.notEqual(one, two);
  const packets = `${dir.path}/state/prompt_runner/workspaces/op-ws/packets`;
  assert.equal(one, `${packets}/app--x-a%2Db`);
  assert.equal(two, `${packets}/app--x%2Da-b`);
  // A run of the first leaves the second not started.
  const run = await runCli(["run", "--workspace", "op-ws", "--packet", "x/a-b"], { env: f.env });
  assert.equal(run.code, 0, run.stderr);
  const status = await runCli(["status", "--workspace", "op-ws", "--packet", "x-a/b", "--json"], { env: f.env });
  assert.equal(parseJsonOut(status).state, "not_started", status.stdout);
});

Deno.test("a store under the legacy name is kept by the packet its store.json names, and by no other", async () => {
  await using dir = await tempDir();
  const f = await prepared(dir.path);
  const packets = `${dir.path}/state/prompt_runner/workspaces/op-ws/packets`;
  const legacy = `${packets}/app--x-a-b`;
  await Deno.mkdir(legacy, { recursive: true, mode: 0o700 });
  await Deno.chmod(legacy, 0o700);
  await Deno.writeTextFile(
    `${legacy}/store.json`,
    JSON.stringify({ schema: "prompt_runner.store/v1", kind: "workspace", packet_dir: `${f.clone}/x/a-b` }),
  );
  assert.equal(await storeRoot(f, "x/a-b"), legacy);
  assert.equal(await storeRoot(f, "x-a/b"), `${packets}/app--x%2Da-b`);
});
