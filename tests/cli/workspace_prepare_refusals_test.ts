/**
 * `workspace prepare` of an existing clone whose manifest names a ref the remote does not have: a named refusal
 * (`workspace_clone_failed`, exit 1) naming the ref, the repository key and the manifest — not an internal error — and
 * the clone is left as it was.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { workspaceFixture } from "../workspace/fixture.ts";

Deno.test("prepare refuses a ref the remote lacks by name, naming the key and the manifest; the clone stays on its branch", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const text = await Deno.readTextFile(f.manifest);
  await Deno.writeTextFile(f.manifest, text.replace("    source:", "    ref: no-such-branch\n    source:"));
  const r = await runCli(["workspace", "prepare", f.manifest, "--json"], { env: f.env });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const error = parseJsonOut(r).error as { code: string; message: string };
  assert.equal(error.code, "workspace_clone_failed");
  assert.match(error.message, /^could not check out ref "no-such-branch" in clone app: /);
  assert.ok(
    error.message.endsWith(`; expected a branch, tag or commit of ${f.remote} (repositories.app.ref in ${f.manifest})`),
    error.message,
  );
  const branch = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["symbolic-ref", "--short", "HEAD"], cwd: f.clone, stdout: "piped" })
      .output())
      .stdout,
  ).trim();
  assert.equal(branch, "main");
});
