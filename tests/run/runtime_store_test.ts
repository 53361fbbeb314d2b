/**
 * `--runtime-store memory|noop` (docs/reference/runner.md §1, docs/reference/cli.md §3.1): a run that writes no store root at all — no control
 * directory, lease, logs, progress or state — and still verifies, recovers within its budgets, and commits.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { writesStoreRoot } from "../../src/run/runner.ts";
import { commitCount, makePacket, promptFile } from "./support.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

function packetPrompts(): Record<string, string> {
  return {
    // Capacity on the first attempt, then success: the retry budget lives in memory.
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - error: {kind: provider_capacity}\n" +
        "    - writes: [{path: a.txt, text: a}]",
    ),
    "02_b.prompt.md": promptFile(
      "2",
      "depends_on: [1]\nverify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt, text: b}]",
    ),
  };
}

for (const store of ["memory", "noop"] as const) {
  Deno.test(`run --runtime-store ${store} writes no store root and still verifies, retries and commits`, async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, packetPrompts());
    const before = await commitCount(`${pkt}/app`);
    const r = await runCli(["run", pkt, "--runtime-store", store]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await exists(`${pkt}/.prompt_runner`), false, "no store root");
    assert.match(
      r.stdout,
      /^Retrying prompt 01 after provider_capacity \(attempt 2, in 0\.0s\)… — simulated failure$/m,
    );
    assert.match(r.stdout, /^✓ Prompt 01 completed$/m);
    assert.match(r.stdout, /^✓ Prompt 02 completed$/m);
    assert.doesNotMatch(r.stdout, /^Log:/m, "no log file is announced");
    assert.equal(await commitCount(`${pkt}/app`), before + 2, "each completed prompt commits");
  });
}

Deno.test("run --runtime-store memory --json prints a complete stream and a summary without a store root", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, packetPrompts());
  const r = await runCli(["run", pkt, "--runtime-store", "memory", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  const summary = lines.at(-1);
  assert.equal(summary.type, "run_summary");
  assert.equal(summary.status, "completed");
  assert.equal(summary.store_root, null);
  assert.deepEqual(summary.prompts.map((p: { id: string; attempts: number }) => [p.id, p.attempts]), [
    ["01", 2],
    ["02", 1],
  ]);
  const envelopes = lines.slice(0, -1);
  assert.deepEqual(envelopes.map((e) => e.seq), Array.from({ length: envelopes.length }, (_, i) => i + 1));
  assert.equal(envelopes[0].type, "run_opened");
  assert.equal(envelopes.at(-1).type, "run_finished");
  assert.equal(envelopes.at(-1).data.status, "completed");
  assert.equal(await exists(`${pkt}/.prompt_runner`), false);
});

Deno.test("a failing prompt under --runtime-store noop fails the run and still writes nothing", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [never.txt]\nrecovery:\n  repair:\n    enabled: false"),
  });
  const r = await runCli(["run", pkt, "--runtime-store", "noop"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^error: run failed: /m);
  assert.equal(await exists(`${pkt}/.prompt_runner`), false);
});

Deno.test("--runtime-store rejects unknown values (exit 2); writesStoreRoot() is true only for file", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, packetPrompts());
  const r = await runCli(["run", pkt, "--runtime-store", "disk"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--runtime-store does not take "disk"; allowed: file, memory, noop/);
  assert.equal(writesStoreRoot(undefined), true);
  assert.equal(writesStoreRoot("file"), true);
  assert.equal(writesStoreRoot("memory"), false);
  assert.equal(writesStoreRoot("noop"), false);
});
