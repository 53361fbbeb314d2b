/**
 * docs/bench.md documents every benchmark case: each `scripts/bench/<case>.ts` (not `_`-prefixed) has a row in the
 * case table, with what it checks before a figure is kept, and the table names no case that does not exist.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The case names of the case table's first column (a cell may name several: `steer_codex`, `steer_claude`). */
function documentedCases(markdown: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^\| Case\s+\| What it measures/.test(l));
  assert.ok(start >= 0, "docs/bench.md has no case table (| Case | What it measures | …)");
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith("`")) continue;
    for (const m of cells[1]!.matchAll(/`([a-z_]+)`/g)) out.set(m[1]!, cells.slice(2, -1));
  }
  return out;
}

Deno.test("docs/bench.md has a row for every bench case, saying what it measures and checks, and no other", async () => {
  const cases: string[] = [];
  for await (const e of Deno.readDir(`${ROOT}scripts/bench`)) {
    if (e.isFile && e.name.endsWith(".ts") && !e.name.startsWith("_")) cases.push(e.name.slice(0, -3));
  }
  assert.ok(cases.length >= 10, `only ${cases.length} cases found`);
  const rows = documentedCases(await Deno.readTextFile(`${ROOT}docs/bench.md`));
  for (const c of cases.sort()) {
    const row = rows.get(c);
    assert.ok(row, `docs/bench.md has no row for the case "${c}"`);
    assert.ok(
      row.length >= 2 && row[0] !== "" && row[1] !== "",
      `the row of "${c}" says nothing about what it measures or checks`,
    );
  }
  assert.deepEqual([...rows.keys()].filter((r) => !cases.includes(r)), [], "rows for cases that do not exist");
});
