import assert from "node:assert/strict";
import { claudeLane } from "../../src/lanes/claude.ts";
import { codexLane } from "../../src/lanes/codex.ts";
import { whichExecutable } from "../../src/lanes/cli_lane.ts";
import { tempDir } from "../support/fs.ts";
import { testOptions } from "./_support.ts";

async function bin(dir: string, name: string, body: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, `#!/bin/bash\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test("probe() runs <bin> --version and reports the first line", async () => {
  await using dir = await tempDir();
  const path = await bin(
    dir.path,
    "claude",
    `[ "$1" = "--version" ] && echo "2.1.197 (Claude Code)" && exit 0; exit 9`,
  );
  const r = await claudeLane.probe(testOptions({ provider_opts: { claude_opts: { cli_path: path } } }));
  assert.deepEqual(r, {
    name: "claude",
    executable: path,
    path,
    version: "2.1.197 (Claude Code)",
    available: true,
    error: null,
  });
});

Deno.test("probe() of a missing executable names the install command", async () => {
  await using dir = await tempDir();
  const r = await codexLane.probe(testOptions({ provider_opts: { codex_opts: { cli_path: `${dir.path}/codex` } } }));
  assert.equal(r.available, false);
  assert.equal(r.path, null);
  assert.match(r.error ?? "", /was not found; install with: npm install -g @openai\/codex/);
});

Deno.test("probe() reports a failing --version", async () => {
  await using dir = await tempDir();
  const path = await bin(dir.path, "codex", `echo "broken install" >&2; exit 3`);
  const r = await codexLane.probe(testOptions({ provider_opts: { codex_opts: { cli_path: path } } }));
  assert.equal(r.available, false);
  assert.match(r.error ?? "", /exited with code 3: broken install/);
});

Deno.test("whichExecutable() searches PATH and skips non-executable files", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/a`);
  await Deno.mkdir(`${dir.path}/b`);
  await Deno.writeTextFile(`${dir.path}/a/tool`, "not executable");
  const exe = await bin(`${dir.path}/b`, "tool", "true");
  assert.equal(whichExecutable("tool", `${dir.path}/a:${dir.path}/b`), exe);
  assert.equal(whichExecutable("absent", `${dir.path}/a`), null);
});
