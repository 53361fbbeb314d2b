import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { CAPABILITIES, SDK_COMPAT, VERSION } from "../../src/version.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

Deno.test("capabilities prints the installed list, one per line; --json adds the schema, version and sdk_compat", async () => {
  const human = await runCli(["capabilities"]);
  assert.equal(human.code, 0, human.stderr);
  assert.deepEqual(human.stdout.trimEnd().split("\n"), [...CAPABILITIES]);
  const json = await runCli(["capabilities", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(parseJsonOut(json), {
    schema: "prompt_runner.capabilities/v1",
    version: VERSION,
    sdk_compat: "0.13.0",
    capabilities: [...CAPABILITIES],
  });
  const extra = await runCli(["capabilities", "all"]);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /capabilities takes no arguments/);
});

Deno.test("version --json declares sdk_compat, the sdk release whose semantics are implemented", async () => {
  const r = await runCli(["--version", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.equal(doc.sdk_compat, SDK_COMPAT);
  assert.deepEqual(doc.capabilities, [...CAPABILITIES]);
});

Deno.test("workspace prepare fails closed on an unmet requires, naming it, and materialises nothing", async () => {
  await using dir = await tempDir();
  for (
    const [requires, re] of [
      ['requires:\n  prompt_runner: ">= 0.14.0"\n', /requires\.prompt_runner: ">= 0\.14\.0" is not met/],
      [
        "requires:\n  capabilities: [verifier.argv, teleport.v2]\n",
        /requires\.capabilities: not installed: teleport\.v2/,
      ],
    ] as const
  ) {
    const f = await workspaceFixture(`${dir.path}/${requires.length}`, { manifestExtra: requires });
    const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, re);
    assert.ok(r.stderr.includes(f.manifest), "the error names the manifest");
    assert.equal(await Deno.stat(f.clone).then(() => true, () => false), false, "no clone was made");
  }
});

Deno.test("the sdk guide's full manifest loads through the CLI: a command naming it reaches 'not prepared'", async () => {
  await using dir = await tempDir();
  const manifest = new URL("../fixtures/workspace/sdk_v1_full.yml", import.meta.url).pathname;
  const env = { HOME: dir.path, XDG_DATA_HOME: `${dir.path}/data`, XDG_STATE_HOME: `${dir.path}/state` };
  const r = await runCli(["plan", "--workspace", manifest, "--json"], { env });
  assert.equal(r.code, 4, r.stderr + r.stdout);
  assert.match(r.stdout + r.stderr, /workspace "nightly-ops" is not prepared/);
});
