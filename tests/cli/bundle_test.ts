import assert from "node:assert/strict";
import { setupExample } from "../../examples/setup.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { tempDir } from "../support/fs.ts";
import { bundleTaskArgs } from "../../scripts/bundle_args.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("the bundled single file runs the recovery demo with only run's declared permissions", async () => {
  await using dir = await tempDir();
  const bundle = `${dir.path}/prompt_runner.js`;
  const built = await new Deno.Command(Deno.execPath(), {
    args: await bundleTaskArgs(bundle),
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
  // One file (the single-artifact proof), with no static `node:` import: those are hoisted to the top of the file
  // and would load Deno's Node compatibility layer at every start of every command.
  const written = [];
  for await (const e of Deno.readDir(dir.path)) written.push(e.name);
  assert.deepEqual(written, ["prompt_runner.js"]);
  const code = await Deno.readTextFile(bundle);
  assert.doesNotMatch(code, /\bfrom\s*["']node:|\bimport\s*["']node:/);

  const packet = await setupExample("recovery", dir.path);
  const perms = denoFlagsFor(findCommand(["run"])!.entry.permissions);
  // Run from an unrelated directory with no config: the bundle must not need the source tree.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...perms, bundle, "run", packet, "--json"],
    cwd: dir.path,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const summary = stdout.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.type === "run_summary");
  assert.ok(summary, "run_summary line present");
  const state = JSON.parse(await Deno.readTextFile(`${packet}/.prompt_runner/state.json`));
  const statuses = Object.values(state.prompts as Record<string, { status: string }>).map((p) => p.status);
  assert.equal(statuses.length, 9);
  assert.ok(statuses.every((s) => s === "completed"), statuses.join(","));

  // Read-only commands of the same bundle are scoped too: `list` works with read+env only.
  const listPerms = denoFlagsFor(findCommand(["list"])!.entry.permissions);
  const list = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...listPerms, bundle, "list", packet, "--json"],
    cwd: dir.path,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(list.code, 0, new TextDecoder().decode(list.stderr));
  const listed = JSON.parse(new TextDecoder().decode(list.stdout));
  assert.equal(listed.prompts.length, 9);
});
