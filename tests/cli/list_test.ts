import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, treeSnapshot, writePacket } from "../packet/_packet.ts";

async function demo(root: string): Promise<string> {
  return await writePacket(root, 'name: demo\nrepos: {app: {path: ./app, default: true}}\nphases: {"1": Setup}\n', {
    "01_create_hello.prompt.md": promptText("phase: 1\nsp: 2\n", "# Create hello\n"),
    "02_write_guide.prompt.md": promptText("phase: 1\n", "# Write guide\n"),
    "03_multi.prompt.md": promptText("phase: 2\n", "# Multi\n"),
    "04_pending.prompt.md": promptText("phase: 2\n", "# Pending\n"),
  }, {
    ".prompt_runner/progress.log": [
      "01:completed:2026-11-30T12:05:04.019Z:9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
      "02:failed:2026-11-30T12:05:05.000Z",
      "03:completed:2026-11-30T12:05:06.000Z:app=4e1d00a,lib=77a0aa1",
      "09:completed:2026-11-30T12:05:07.000Z:no_session",
      // A rerun of 01 that changed nothing: 01 still stands on its commit.
      "01:completed:2026-11-30T13:00:00.000Z:no_changes",
      "",
    ].join("\n"),
  });
}

Deno.test("list prints prompts by phase with markers, suffixes and a total", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const r = await runCli(["list", t.path]);
  assert.equal(r.stderr, "");
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    [
      // The packet is named as every command names it: by its directory (docs/status.md).
      `${t.path.slice(t.path.lastIndexOf("/") + 1)} (${t.path}/app)`,
      "Phase 1: Setup",
      "  [x] 01  Create hello  (2 SP) [app]  9f3c2a17 · rerun: no_changes",
      "  [!] 02  Write guide   (1 SP) [app]",
      "Phase 2",
      "  [x] 03  Multi         (1 SP) [app]  2 repos",
      "  [ ] 04  Pending       (1 SP) [app]",
      "  [x] 09  (missing)",
      "2/4 completed",
      "",
    ].join("\n"),
  );
});

Deno.test("list --json reports status, commit suffix and file per prompt", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const r = await runCli(["list", "--json"], { cwd: t.path });
  assert.equal(r.code, 0);
  const doc = parseJsonOut(r);
  assert.equal(doc.packet, "demo");
  const prompts = doc.prompts as Record<string, unknown>[];
  assert.deepEqual(prompts[0], {
    id: "01",
    name: "Create hello",
    phase: 1,
    sp: 2,
    targets: ["app"],
    status: "completed",
    commit: "9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
    suffix: "no_changes",
    file: "prompts/01_create_hello.prompt.md",
  });
  assert.deepEqual(prompts.map((p) => p.commit), [
    "9f3c2a17d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9",
    null,
    "app=4e1d00a,lib=77a0aa1",
    null,
  ]);
  assert.deepEqual(prompts.map((p) => p.status), ["completed", "failed", "completed", "pending"]);
});

Deno.test("list fails with exit 1 on a malformed progress.log and exit 4 outside a packet", async () => {
  await using t = await tempDir();
  await demo(t.path);
  await Deno.writeTextFile(`${t.path}/.prompt_runner/progress.log`, "garbage\n");
  const bad = await runCli(["list", t.path, "--json"]);
  assert.equal(bad.code, 1);
  assert.equal((parseJsonOut(bad).error as Record<string, unknown>).code, "progress_store_invalid");
  assert.match(bad.stderr, /^error: .*progress\.log line 1 is malformed/);
  const none = await runCli(["list"], { cwd: `${t.path}/prompts` });
  assert.equal(none.code, 4);
  assert.match(none.stderr, /no packet here: .*prompts has no prompt_runner_packet\.md/);
});

Deno.test("list writes nothing to disk", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const before = await treeSnapshot(t.path);
  assert.equal((await runCli(["list", t.path])).code, 0);
  assert.deepEqual(await treeSnapshot(t.path), before);
});

Deno.test("list --color always paints completed green and failed red; never paints JSON", async () => {
  await using t = await tempDir();
  await demo(t.path);
  const r = await runCli(["list", t.path, "--color", "always"]);
  assert.ok(r.stdout.includes("  \x1b[32m[x]\x1b[0m 01  Create hello"), r.stdout);
  assert.ok(r.stdout.includes("  \x1b[31m[!]\x1b[0m 02  Write guide"), r.stdout);
  const j = await runCli(["list", t.path, "--color", "always", "--json"]);
  assert.ok(!j.stdout.includes("\x1b["));
});
