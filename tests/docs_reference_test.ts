/** The reference docs state the code's own tables: clauses, failure classes, view settings, lint rule names. */
import assert from "node:assert/strict";
import { ROOT } from "./support/cli.ts";
import { CLAUSES } from "../src/contract/types.ts";
import { CLASS_TABLE } from "../src/run/classify.ts";
import { VIEW_VALUES } from "../src/events/types.ts";

async function reference(name: string): Promise<string> {
  return await Deno.readTextFile(`${ROOT}/docs/reference/${name}.md`);
}

/** The text of one numbered section (`## §N …` up to the next `## `). */
function section(markdown: string, n: string): string {
  const m = new RegExp(`^## §${n} [^\\n]*\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, "m").exec(markdown);
  assert.ok(m, `section §${n} exists`);
  return m[1]!;
}

/** Rows of the first markdown table in a text, as trimmed cells. */
function tableRows(text: string): string[][] {
  return text.split("\n").filter((l) => l.startsWith("|") && !/^\|\s*-/.test(l)).slice(1)
    .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}

Deno.test("docs/reference/contract.md §1 lists the twelve clauses in evaluation order", async () => {
  const rows = tableRows(section(await reference("contract"), "1"));
  assert.deepEqual(rows.map((r) => r[1]!.replaceAll("`", "")), [...CLAUSES]);
});

Deno.test("docs/reference/runner.md §5 states every failure class with its flags and suggested delay", async () => {
  const rows = tableRows(section(await reference("runner"), "5"));
  const documented = Object.fromEntries(rows.map((r) => [r[0]!.replaceAll("`", ""), r.slice(1)]));
  assert.deepEqual(Object.keys(documented).sort(), Object.keys(CLASS_TABLE).sort());
  for (const [cls, f] of Object.entries(CLASS_TABLE)) {
    const tick = (b: boolean) => (b ? "✓" : "");
    const delay = f.delay === null ? "" : `${f.delay} ms`;
    assert.deepEqual(documented[cls], [tick(f.retry), tick(f.repair), tick(f.resume), tick(f.local), delay], cls);
  }
});

Deno.test("docs/reference/control-plane.md §7 and docs/reference/events-and-rendering.md §6 give every view setting's values", async () => {
  for (const [doc, n] of [["control-plane", "7"], ["events-and-rendering", "6"]] as const) {
    const text = section(await reference(doc), n).replaceAll("\n", " ");
    for (const [key, values] of Object.entries(VIEW_VALUES)) {
      assert.ok(text.includes(`\`${key}\``), `${doc} §${n} names ${key}`);
      for (const v of values) assert.ok(text.includes(`\`${v}\``), `${doc} §${n} names ${key} value ${v}`);
    }
  }
});

Deno.test("every lint rule the reference docs name is one the code reports", async () => {
  const names = new Set<string>();
  for (const [doc, n] of [["contract", "11"], ["packet", "11"]] as const) {
    for (const m of section(await reference(doc), n).matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)) names.add(m[1]!);
  }
  assert.ok(names.size >= 25, `found ${names.size} rule names`);
  const sources: string[] = [];
  for (const dir of ["src/contract", "src/packet"]) {
    for await (const e of Deno.readDir(`${ROOT}/${dir}`)) {
      if (e.isFile && e.name.endsWith(".ts")) sources.push(await Deno.readTextFile(`${ROOT}/${dir}/${e.name}`));
    }
  }
  const code = sources.join("\n");
  const unknown = [...names].filter((n) => !code.includes(`"${n}"`));
  assert.deepEqual(unknown, [], "rule names in the docs that no code reports");
});
