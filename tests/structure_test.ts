/**
 * The folder layering of docs/architecture.md ("Layers"), held from the sources: every import between folders of
 * `src/` (static, `import type`, dynamic `import("…")`) goes down the layers or along an allowed same-layer edge,
 * the folders form a DAG, and no two files of `src/` import each other in a cycle.
 */
import assert from "node:assert/strict";
import {
  checkStructure,
  importsOf,
  type LayerRules,
  parseImports,
  readSources,
  type Violation,
} from "./support/import_graph.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The layers, top to bottom, as docs/architecture.md states them. Root files sit with util/ at the bottom. */
const RULES: LayerRules = {
  layers: [
    ["cli"],
    ["run", "control", "workspace"],
    ["lanes", "render", "contract", "packet"],
    ["store"],
    ["events", "util", "errors.ts", "version.ts"],
  ],
  sameLayer: [
    ["run", "control"],
    ["workspace", "control"],
    ["contract", "packet"],
    ["lanes", "packet"],
    ["util", "errors.ts"],
  ],
};

function messages(vs: Violation[]): string {
  return vs.map((v) => `  [${v.rule}] ${v.message}`).join("\n");
}

Deno.test("src/ follows the documented layers: no upward edge, no folder cycle, no file cycle", async () => {
  const refs = importsOf(await readSources(ROOT));
  assert.ok(refs.length > 300, `expected the whole import graph, read ${refs.length} imports`);
  const violations = checkStructure(refs, RULES);
  assert.equal(violations.length, 0, `structure violations:\n${messages(violations)}`);
});

Deno.test("docs/architecture.md states the layers and same-layer edges this test enforces", async () => {
  const doc = await Deno.readTextFile(`${ROOT}/docs/architecture.md`);
  const section = doc.split(/^## /m).find((s) => s.startsWith("Layers"));
  assert.ok(section, "docs/architecture.md has a ## Layers section");
  const line = RULES.layers.map((l) => l.filter((f) => !f.endsWith(".ts")).join(" | ")).join(" → ");
  assert.ok(section.includes(line), `the Layers section states: ${line}`);
  for (const [a, b] of RULES.sameLayer) {
    assert.ok(section.includes(`\`${a} → ${b}\``), `the Layers section lists the same-layer edge \`${a} → ${b}\``);
  }
});

/** A synthetic source map: path → imported paths (relative specifiers are built from them). */
function synthetic(files: Record<string, string[]>): Map<string, string> {
  const rel = (from: string, to: string) => {
    const a = from.split("/").slice(0, -1);
    const b = to.split("/");
    let i = 0;
    while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
    return (a.length === i ? "./" : "../".repeat(a.length - i)) + b.slice(i).join("/");
  };
  return new Map(
    Object.entries(files).map(([p, deps]) => [p, deps.map((d) => `import { x } from "${rel(p, d)}";`).join("\n")]),
  );
}

Deno.test("the checker flags a planted upward edge, naming the file and the import", () => {
  const files = synthetic({
    "src/cli/a.ts": ["src/run/b.ts"],
    "src/run/b.ts": ["src/util/c.ts"],
    "src/render/sinks.ts": ["src/cli/frame.ts"],
    "src/cli/frame.ts": [],
    "src/util/c.ts": [],
  });
  const vs = checkStructure(importsOf(files), RULES);
  assert.equal(vs.length, 1, messages(vs));
  assert.equal(vs[0]!.rule, "upward");
  assert.match(vs[0]!.message, /render -> cli .*src\/render\/sinks\.ts:1 imports "\.\.\/cli\/frame\.ts"/);
});

Deno.test("the checker flags a same-layer edge that is not allowed, and the folder cycle it closes", () => {
  const files = synthetic({
    "src/control/rollup.ts": ["src/run/progress.ts"],
    "src/run/progress.ts": ["src/control/store.ts"],
    "src/control/store.ts": [],
  });
  const vs = checkStructure(importsOf(files), RULES);
  assert.deepEqual(vs.map((v) => v.rule).sort(), ["folder_cycle", "same_layer"], messages(vs));
  const cycle = vs.find((v) => v.rule === "folder_cycle")!;
  assert.match(cycle.message, /control -> run -> control/);
  assert.match(cycle.message, /src\/control\/rollup\.ts:1 imports "\.\.\/run\/progress\.ts"/);
  assert.match(cycle.message, /src\/run\/progress\.ts:1 imports "\.\.\/control\/store\.ts"/);
});

Deno.test("the checker flags a folder cycle even when each edge alone is allowed by a looser rule set", () => {
  const loose: LayerRules = { layers: [["a", "b"]], sameLayer: [["a", "b"], ["b", "a"]] };
  const vs = checkStructure(
    importsOf(synthetic({ "src/a/x.ts": ["src/b/y.ts"], "src/b/y.ts": ["src/a/z.ts"] })),
    loose,
  );
  assert.deepEqual(vs.map((v) => v.rule), ["folder_cycle"], messages(vs));
});

Deno.test("the checker flags a file cycle inside one folder, through a dynamic import too", () => {
  const files = new Map([
    ["src/cli/registry.ts", `export const load = () => import("./run.ts");`],
    ["src/cli/run.ts", `import { start } from "./start.ts";`],
    ["src/cli/start.ts", `import type { Entry } from "./registry.ts";`],
  ]);
  const vs = checkStructure(importsOf(files), RULES);
  assert.equal(vs.length, 1, messages(vs));
  assert.equal(vs[0]!.rule, "file_cycle");
  assert.match(
    vs[0]!.message,
    /src\/cli\/registry\.ts -> src\/cli\/run\.ts -> src\/cli\/start\.ts -> src\/cli\/registry\.ts/,
  );
  assert.match(vs[0]!.message, /src\/cli\/registry\.ts:1 imports "\.\/run\.ts" \(dynamic\)/);
});

Deno.test("the checker flags a folder that is in no layer", () => {
  const vs = checkStructure(importsOf(synthetic({ "src/extra/a.ts": ["src/util/b.ts"], "src/util/b.ts": [] })), RULES);
  assert.deepEqual(vs.map((v) => v.rule), ["unknown_folder"], messages(vs));
  assert.match(vs[0]!.message, /src\/extra/);
});

Deno.test("parseImports() reads static, type, re-export, bare and dynamic imports, and skips comments and npm", () => {
  const src = [
    `import { a } from "./a.ts";`,
    `import type { B } from "../b/b.ts";`,
    `import {`,
    `  type C,`,
    `  type D,`,
    `} from "./cd.ts";`,
    `export { e } from "./e.ts";`,
    `export type { F } from "./f.ts";`,
    `import "./side.ts";`,
    `const g = await import("./g.ts");`,
    `// import { no } from "./commented.ts";`,
    `/* import("./block.ts") */`,
    `import { diff } from "diff";`,
    `const s = "from \\"./not_an_import.ts\\"";`,
  ].join("\n");
  const refs = parseImports("src/x/m.ts", src);
  assert.deepEqual(
    refs.map((r) => [r.to, r.kind, r.line]),
    [
      ["src/x/a.ts", "value", 1],
      ["src/b/b.ts", "type", 2],
      ["src/x/cd.ts", "type", 6],
      ["src/x/e.ts", "value", 7],
      ["src/x/f.ts", "type", 8],
      ["src/x/side.ts", "value", 9],
      ["src/x/g.ts", "dynamic", 10],
    ],
  );
});
