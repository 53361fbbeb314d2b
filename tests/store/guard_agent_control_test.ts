/**
 * The store guard and agent control (src/store/guard.ts, docs/agent-control.md §2): a run's `agent-control/` holds the
 * runner's entries — `bin/`, the per-invocation directories and their `<dir>.closed` markers — and a link or special
 * file planted there is still refused by name before anything reads the store.
 */
import assert from "node:assert/strict";
import { assertStoreIntact } from "../../src/store/guard.ts";
import { tempDir } from "../support/fs.ts";

async function storeWithAgentControl(root: string): Promise<string> {
  const base = `${root}/.prompt_runner/runs/20261201T120000Z-ABCDEF/agent-control`;
  await Deno.mkdir(`${base}/bin`, { recursive: true });
  await Deno.mkdir(`${base}/01-i1-a1`);
  await Deno.writeTextFile(`${base}/bin/prompt_runner`, "#!/bin/sh\n");
  await Deno.writeTextFile(`${base}/01-i1-a1.closed`, "2026-12-01T12:00:00Z\n");
  return base;
}

Deno.test("store guard: an agent-control directory with closed markers opens; a planted link or FIFO is refused", async () => {
  await using t = await tempDir();
  const base = await storeWithAgentControl(t.path);
  assertStoreIntact(`${t.path}/.prompt_runner`);
  await Deno.symlink(`${t.path}/elsewhere`, `${base}/01-i2-a2.closed`);
  assert.throws(() => assertStoreIntact(`${t.path}/.prompt_runner`), /01-i2-a2\.closed/);
  await Deno.remove(`${base}/01-i2-a2.closed`);
  const fifo = await new Deno.Command("mkfifo", { args: [`${base}/pipe`] }).output();
  assert.equal(fifo.code, 0);
  assert.throws(() => assertStoreIntact(`${t.path}/.prompt_runner`), /agent-control\/pipe/);
});
