import assert from "node:assert/strict";
import { blockedBy, type Selection, selectPrompts } from "../../src/packet/select.ts";
import { loadPacket } from "../../src/packet/load.ts";
import type { ProgressMap } from "../../src/store/progress.ts";
import { NotFoundError, UsageError } from "../../src/errors.ts";
import { tempDir } from "../support/fs.ts";
import { promptText, writePacket } from "./_packet.ts";

const sel = (s: Partial<Selection> = {}): Selection => ({
  ids: [],
  phase: null,
  remaining: false,
  from: null,
  through: null,
  ...s,
});

async function demo(path: string) {
  await writePacket(path, "name: demo\n", {
    "01_a.prompt.md": promptText("phase: 1\n"),
    "02_b.prompt.md": promptText("phase: 2\ndepends_on: [4]\n"),
    "03_c.prompt.md": promptText("phase: 2\n"),
    "04_d.prompt.md": promptText("phase: 3\n"),
  });
  return await loadPacket(path, { env: {} });
}

const ids = (ps: { id: string }[]) => ps.map((p) => p.id);
const progress = (entries: [string, "completed" | "failed"][]): ProgressMap =>
  new Map(entries.map(([id, status]) => [id, { status, at: "2026-11-30T12:00:00.000Z", suffix: null }]));

Deno.test("selectPrompts() selects everything by default, ordered by depends_on", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.deepEqual(ids(selectPrompts(p, sel(), new Map())), ["01", "03", "04", "02"]);
});

Deno.test("selectPrompts() keeps explicit ids in the given order, normalising them", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.deepEqual(ids(selectPrompts(p, sel({ ids: ["3", "001", "03"] }), new Map())), ["03", "01"]);
});

Deno.test("selectPrompts() reorders explicit ids only along edges between selected ids", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.deepEqual(ids(selectPrompts(p, sel({ ids: ["2", "1", "4"] }), new Map())), ["01", "04", "02"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ ids: ["2", "1"] }), new Map())), ["02", "01"]);
});

Deno.test("selectPrompts() rejects an unknown id with the known ids (exit 4)", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.throws(
    () => selectPrompts(p, sel({ ids: ["1", "12"] }), new Map()),
    (e: unknown) =>
      e instanceof NotFoundError && e.code === "unknown_prompt" && e.exit === 4 &&
      e.message === "unknown prompt 12; known: 01, 02, 03, 04",
  );
});

Deno.test("selectPrompts() --phase selects that phase; ids take precedence over it", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.deepEqual(ids(selectPrompts(p, sel({ phase: 2 }), new Map())), ["02", "03"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ phase: 2, ids: ["4"] }), new Map())), ["04"]);
});

Deno.test("selectPrompts() --remaining skips completed prompts, keeping failed and earlier gaps", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  const prog = progress([["01", "failed"], ["02", "completed"], ["04", "completed"], ["01", "failed"]]);
  assert.deepEqual(ids(selectPrompts(p, sel({ remaining: true }), prog)), ["01", "03"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ remaining: true }), new Map())), ["01", "03", "04", "02"]);
});

Deno.test("selectPrompts() --from/--through filter by packet position, inclusive", async () => {
  await using t = await tempDir();
  const p = await demo(t.path);
  assert.deepEqual(ids(selectPrompts(p, sel({ from: "2", through: "3" }), new Map())), ["02", "03"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ from: "3" }), new Map())), ["03", "04"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ through: "1" }), new Map())), ["01"]);
  assert.deepEqual(ids(selectPrompts(p, sel({ phase: 2, through: "2" }), new Map())), ["02"]);
  assert.throws(() => selectPrompts(p, sel({ from: "9" }), new Map()), NotFoundError);
  assert.throws(() => selectPrompts(p, sel({ from: "3", through: "2" }), new Map()), UsageError);
});

Deno.test("blockedBy() lists dependencies that are not completed", () => {
  const prompt = { id: "05", dependsOn: ["01", "02", "03"] };
  assert.deepEqual(blockedBy(prompt, new Set(["02"])), ["01", "03"]);
  assert.deepEqual(blockedBy(prompt, ["01", "02", "03"]), []);
});
