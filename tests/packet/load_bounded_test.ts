/**
 * The loader reads prompt files a bounded number at a time (src/packet/load.ts `PROMPT_READ_CONCURRENCY`): with
 * every file of a large packet in flight at once, all their texts and parse trees were alive together (docs/bench.md
 * `scale`, peak RSS). The result is the same as reading them one by one: prompts and findings in file order.
 */
import assert from "node:assert/strict";
import { inspectPacket, loadPacket, PROMPT_READ_CONCURRENCY } from "../../src/packet/load.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const NO_ENV = { env: {} };
const COUNT = PROMPT_READ_CONCURRENCY * 6 + 3;

/** Write a packet of {@link COUNT} prompts; the ids in `bad` get a non-numeric id. */
async function manyPrompts(root: string, bad: ReadonlySet<number> = new Set()): Promise<void> {
  const prompts: Record<string, string> = {};
  for (let i = 1; i <= COUNT; i++) {
    const n = String(i).padStart(3, "0");
    prompts[`${n}_step.prompt.md`] = promptText(bad.has(i) ? "id: x\n" : `id: ${i}\n`, `# Step ${n}\n`);
  }
  await writePacket(root, "name: many\n", prompts);
}

/** Run `fn` with `Deno.readTextFile` counted: the most calls ever in flight at once, and the prompt files read. */
async function countingReads<T>(fn: () => Promise<T>): Promise<{ value: T; maxInFlight: number; reads: number }> {
  const original = Deno.readTextFile;
  let inFlight = 0, maxInFlight = 0, reads = 0;
  Deno.readTextFile = async (path, opts) => {
    const counted = String(path).endsWith(".prompt.md");
    if (counted) {
      reads++;
      maxInFlight = Math.max(maxInFlight, ++inFlight);
    }
    try {
      return await original(path, opts);
    } finally {
      if (counted) inFlight--;
    }
  };
  try {
    return { value: await fn(), maxInFlight, reads };
  } finally {
    Deno.readTextFile = original;
  }
}

Deno.test("inspectPacket() never has more than PROMPT_READ_CONCURRENCY prompt files in flight, and reads each once", async () => {
  await using t = await tempDir();
  await manyPrompts(t.path);
  const { value: r, maxInFlight, reads } = await countingReads(() => inspectPacket(t.path, NO_ENV));
  assert.equal(reads, COUNT);
  assert.ok(maxInFlight >= 2, `reads overlap (most in flight: ${maxInFlight})`);
  assert.ok(maxInFlight <= PROMPT_READ_CONCURRENCY, `at most ${PROMPT_READ_CONCURRENCY} in flight, saw ${maxInFlight}`);
  assert.equal(r.packet?.prompts.length, COUNT);
});

Deno.test("bounded reading keeps file order: prompt ids, names and the first error are those of the earliest file", async () => {
  await using t = await tempDir();
  await manyPrompts(t.path);
  const p = await loadPacket(t.path, NO_ENV);
  assert.deepEqual(
    p.prompts.map((q) => q.name),
    Array.from({ length: COUNT }, (_, i) => `Step ${String(i + 1).padStart(3, "0")}`),
  );
  assert.deepEqual(p.prompts.map((q) => Number(q.id)), Array.from({ length: COUNT }, (_, i) => i + 1));

  await using u = await tempDir();
  await manyPrompts(u.path, new Set([COUNT - 1, PROMPT_READ_CONCURRENCY + 2, 5]));
  const r = await inspectPacket(u.path, NO_ENV);
  const files = r.findings.filter((f) => f.kind === "invalid_prompt_id").map((f) => f.file);
  const file = (i: number) => `prompts/${String(i).padStart(3, "0")}_step.prompt.md`;
  assert.deepEqual(files, [file(5), file(PROMPT_READ_CONCURRENCY + 2), file(COUNT - 1)]);
});
