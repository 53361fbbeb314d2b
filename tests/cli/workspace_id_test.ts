/**
 * A workspace id names one set of clones and one runtime root (docs/reference/workspace.md §1): a second manifest
 * declaring the id of a workspace registered from another, still present, manifest is refused by prepare and plan
 * (exit 3 naming both files and the key), and takes nothing over; a manifest moved to a new path keeps its workspace.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

Deno.test("prepare and plan refuse a second manifest with the id of a registered workspace; a moved manifest is fine", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const registry = `${dir.path}/data/prompt_runner/workspace-references/op-ws.json`;
  const entry = await Deno.readTextFile(registry);

  // A copy with another ref (and so another branch checked out in the shared clone) is refused.
  const copy = `${dir.path}/ops/copy.yml`;
  const text = await Deno.readTextFile(f.manifest);
  await Deno.writeTextFile(copy, text.replace("    source:", "    ref: other\n    source:"));
  const r = await runCli(["workspace", "prepare", copy, "--json"], { env: f.env });
  assert.equal(r.code, 3, r.stdout + r.stderr);
  const message = (parseJsonOut(r).error as { message: string }).message;
  assert.equal(
    message,
    `${copy}: id: "op-ws" is the id of the workspace registered from ${f.manifest}; expected an id no other manifest ` +
      "uses (a workspace id names one set of clones and one runtime root)",
  );
  assert.equal(await Deno.readTextFile(registry), entry, "the registry entry still names the first manifest");
  const plan = await runCli(["workspace", "plan", copy, "--json"], { env: f.env });
  assert.equal(plan.code, 1, plan.stdout);
  assert.deepEqual(parseJsonOut(plan).refusals, [message]);

  // Moving the manifest (the old path gone) keeps the workspace and re-points the registry.
  await Deno.remove(copy);
  const moved = `${dir.path}/ops/moved.yml`;
  await Deno.rename(f.manifest, moved);
  const again = await runCli(["workspace", "prepare", moved], { env: f.env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(await Deno.readTextFile(registry)).manifest, moved);
});
