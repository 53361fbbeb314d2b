/**
 * Prompts whose resolved options are equal share one deeply frozen object (src/packet/options_intern.ts): a
 * 10,000-prompt packet held 10,000 identical copies (docs/bench.md `scale`, peak RSS). A prompt with options of its
 * own keeps them, and nothing can change a shared value for every prompt through one of them.
 */
import assert from "node:assert/strict";
import { loadPacket } from "../../src/packet/load.ts";
import { OptionsInterner } from "../../src/packet/options_intern.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

Deno.test("loadPacket: equal resolved options are one frozen object; a prompt's own options stay its own", async () => {
  await using dir = await tempDir();
  const prompts: Record<string, string> = {};
  for (let i = 1; i <= 30; i++) {
    const own = i === 7 ? "timeout: 90000\n" : i === 9 ? "model: claude-opus-4\n" : "";
    prompts[`${String(i).padStart(2, "0")}_step.prompt.md`] = promptText(`id: ${i}\n${own}`, `# Step ${i}\n`);
  }
  await writePacket(dir.path, "name: shared\nprovider: simulated\n", prompts);
  const packet = await loadPacket(dir.path, { env: {} });
  const distinct = new Set(packet.prompts.map((p) => p.options));
  assert.equal(distinct.size, 3, "one shared value, and one for each prompt with options of its own");
  const byId = new Map(packet.prompts.map((p) => [p.id, p.options]));
  assert.equal(byId.get("01"), byId.get("30"));
  assert.notEqual(byId.get("07"), byId.get("01"));
  assert.equal(byId.get("07")!.timeout_ms, 90_000);
  assert.notEqual(byId.get("07")!.timeout_ms, byId.get("01")!.timeout_ms);
  assert.equal(byId.get("09")!.model, "claude-opus-4");
  const shared = byId.get("01")!;
  assert.ok(
    Object.isFrozen(shared) && Object.isFrozen(shared.recovery.retry) && Object.isFrozen(shared.view),
    "deeply frozen",
  );
  assert.throws(() => {
    (shared as { timeout_ms: number }).timeout_ms = 1;
  }, TypeError);
  assert.throws(() => {
    (shared.recovery.retry as { max_attempts: number }).max_attempts = 99;
  }, TypeError);
});

Deno.test("OptionsInterner: equal values shared; values whose JSON texts agree but differ are kept apart", () => {
  const o = new OptionsInterner<Record<string, unknown>>();
  const a = o.intern({ n: 1, list: ["x"], nested: { deep: true } });
  assert.equal(o.intern({ n: 1, list: ["x"], nested: { deep: true } }), a);
  assert.notEqual(o.intern({ n: 1, list: ["y"], nested: { deep: true } }), a);
  // JSON writes NaN, Infinity and null alike, and drops undefined: equality, not the text, decides.
  const inf = o.intern({ n: Infinity });
  assert.notEqual(o.intern({ n: null }), inf);
  assert.notEqual(o.intern({ n: NaN }), inf);
  assert.notEqual(o.intern({ n: 1, u: undefined, list: ["x"], nested: { deep: true } }), a);
  assert.equal(o.size, 6);
  assert.ok(Object.isFrozen(a.nested) && Object.isFrozen(a.list));
});
