/**
 * src/util/yaml_subset.ts reads a packet's front matter without js-yaml, so it must never read anything differently:
 * whatever it reads is exactly js-yaml's result with the core schema (src/util/yaml.ts), and js-yaml accepts it. Held on
 * generated documents in every style it reads and many it does not (flow over lines, trailing commas, block scalars,
 * comments, quoting, the scalars js-yaml types), on hostile edits of them, and on every front matter in the
 * repository; it must also read the common packets itself, or the cold-start gain would be gone unnoticed.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { NOT_SUBSET, readYamlSubset } from "../../src/util/yaml_subset.ts";
import { parseYaml } from "../../src/util/yaml.ts";
import { splitFrontMatter } from "../../src/packet/front_matter_split.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** js-yaml's answer: the value, or the error it throws. */
function jsYaml(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: parseYaml(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** The property: the subset reader declines, or gives exactly what js-yaml gives. Returns whether it read. */
function agrees(text: string): boolean {
  const mine = readYamlSubset(text);
  if (mine === NOT_SUBSET) return false;
  const theirs = jsYaml(text);
  if (!theirs.ok) assert.fail(`read ${JSON.stringify(text)} that js-yaml refuses: ${theirs.error}`);
  assert.deepStrictEqual(mine, theirs.value, `different reading of ${JSON.stringify(text)}`);
  return true;
}

const TRICKY = [
  "",
  "a",
  "hello world",
  "true",
  "True",
  "TRUE",
  "false",
  "yes",
  "no",
  "on",
  "null",
  "Null",
  "~",
  "0",
  "-0",
  "01",
  "007",
  "1",
  "-12",
  "+1",
  "1.5",
  "-0.0",
  "1.50",
  ".5",
  "1.",
  "1e3",
  "1_000",
  "0x1F",
  "0o17",
  "0b11",
  ".inf",
  "-.Inf",
  ".NaN",
  "123456789012345678",
  "2001-12-14",
  "a: b",
  "a:b",
  "a:",
  "a #b",
  "a#b",
  "#a",
  "- a",
  "-a",
  "-",
  "[a]",
  "{a}",
  "a, b",
  "a,b",
  "it's",
  'say "hi"',
  " lead",
  "trail ",
  "x\ny",
  "x\n",
  "\n",
  "tab\there",
  "back\\slash",
  "ü",
  "😀",
  "\u00a0nbsp",
  "\u2028",
  "@a",
  "`a",
  "%a",
  "&a",
  "*a",
  "!a",
  "|",
  ">",
  "?a",
  ":a",
  "<<",
  "__proto__",
  "http://x/y",
  "C:\\dir",
  "a  b",
  "\x01",
  "'",
  '"',
  "...",
  "---",
];
const KEYS = [
  "a",
  "b_c",
  "id",
  "phase",
  "x.y",
  "x/y",
  "k-1",
  "1",
  "2",
  "0",
  "01",
  "-1",
  "true",
  "null",
  "~",
  "__proto__",
  "a b",
  "a:b",
  "ü",
  "",
];

type Node = unknown;
const scalar = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, min: -100, max: 100 }),
  fc.boolean(),
  fc.constant(null),
);
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("map"), tie("seq")),
  map: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 5 })), tie("tree")), {
    maxLength: 4,
  }),
  seq: fc.array(tie("tree"), { maxLength: 4 }).map((items) => ({ seq: items })),
}));

/** Random choices for one rendering (each node draws from it in turn). */
type Pick = (n: number) => number;

function scalarText(v: unknown, pick: Pick, inFlow: boolean): string {
  if (v === null) return ["null", "~", "", "Null"][pick(4)]!;
  if (typeof v === "boolean" || typeof v === "number") return String(v);
  const s = v as string;
  switch (pick(inFlow ? 3 : 4)) {
    case 0:
      return s; // plain, whatever it is
    case 1:
      return JSON.stringify(s);
    case 2:
      return `'${s.replaceAll("'", "''")}'`;
    default:
      return s.includes("\n") || pick(2)
        ? `|${pick(2) ? "-" : ""}` + "\n" + s.split("\n").map((l) => `@@${l}`).join("\n")
        : s;
  }
}

function keyText(k: string, pick: Pick): string {
  return pick(3) === 0 ? JSON.stringify(k) : k;
}

function isMapNode(v: Node): v is [string, Node][] {
  return Array.isArray(v);
}

function isSeqNode(v: Node): v is { seq: Node[] } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "seq" in v;
}

function flow(v: Node, pick: Pick): string {
  const sep = () => [", ", ",", ",\n  ", " ,", ",\n"][pick(5)]!;
  const trailing = () => (pick(4) === 0 ? "," : "");
  if (isMapNode(v)) return `{${v.map(([k, x]) => `${keyText(k, pick)}: ${flow(x, pick)}`).join(sep())}${trailing()}}`;
  if (isSeqNode(v)) return `[${v.seq.map((x) => flow(x, pick)).join(sep())}${trailing()}]`;
  return scalarText(v, pick, true);
}

/** Lines of a node as the value after `key:` or `-`, at `indent` (block scalars marked with `@@` per content line). */
function block(v: Node, indent: number, pick: Pick, step: number): { inline: string; lines: string[] } {
  const pad = " ".repeat(indent);
  const comment = () => (pick(6) === 0 ? " # note" : "");
  if ((isMapNode(v) || isSeqNode(v)) && pick(4) === 0) return { inline: flow(v, pick) + comment(), lines: [] };
  if (isMapNode(v)) {
    if (v.length === 0) return { inline: "{}", lines: [] };
    const lines: string[] = [];
    for (const [k, x] of v) {
      const sub = block(x, indent + step, pick, step);
      lines.push(`${pad}${keyText(k, pick)}:${sub.inline === "" ? "" : " " + sub.inline}`, ...sub.lines);
      if (pick(8) === 0) lines.push(pick(2) ? "" : `${pad}# between`);
    }
    return { inline: comment().trim(), lines };
  }
  if (isSeqNode(v)) {
    if (v.seq.length === 0) return { inline: "[]", lines: [] };
    // A sequence under a key may sit at the key's own indentation.
    const at = pick(3) === 0 ? Math.max(0, indent - step) : indent;
    const lines: string[] = [];
    for (const x of v.seq) {
      const compact = isMapNode(x) && x.length > 0 && pick(2) === 0 ? block(x, at + 2, pick, step) : null;
      if (compact && compact.lines.length > 0) {
        // `- key: value` with the rest of the mapping under the first key.
        lines.push(`${" ".repeat(at)}- ${compact.lines[0]!.trimStart()}`, ...compact.lines.slice(1));
      } else {
        const sub = block(x, at + step, pick, step);
        lines.push(`${" ".repeat(at)}-${sub.inline === "" ? "" : " " + sub.inline}`, ...sub.lines);
      }
    }
    return { inline: "", lines };
  }
  const text = scalarText(v, pick, false);
  const [first, ...more] = text.split("\n");
  return {
    inline: first! + (more.length ? "" : comment()),
    lines: more.map((l) => (l.startsWith("@@") ? pad + l.slice(2) : l)),
  };
}

function render(top: [string, Node][], seed: number[]): string {
  let i = 0;
  const pick: Pick = (n) => seed[i++ % seed.length]! % n;
  const step = 1 + pick(4);
  return block(top.length ? top : [["a", null]], 0, pick, step).lines.join("\n") + "\n";
}

const doc = fc.tuple(
  fc.array(fc.tuple(fc.constantFrom(...KEYS.slice(0, 7)), tree), { minLength: 1, maxLength: 5 }),
  fc.array(fc.nat(1000), { minLength: 1, maxLength: 64 }),
).map(([top, seed]) => render(top, seed));

const HOSTILE = [
  " ",
  "  ",
  "\t",
  "\r",
  "#",
  ":",
  ": ",
  "-",
  "- ",
  ",",
  "[",
  "]",
  "{",
  "}",
  '"',
  "'",
  "|",
  ">",
  "&",
  "*",
  "!",
  "?",
  "%",
  "\n",
  "\n  ",
  "\\",
  "---\n",
  "\u00a0",
  "\ufeff",
  "\x00",
];
const edited = fc.tuple(doc, fc.nat(), fc.constantFrom(...HOSTILE), fc.nat(4)).map(([text, at, piece, how]) => {
  const p = at % (text.length + 1);
  if (how === 0) return text.slice(0, p) + text.slice(p + 1); // drop one character
  if (how === 1) return text.slice(0, p) + piece + text.slice(p + 1); // replace one
  return text.slice(0, p) + piece + text.slice(p); // insert
});

Deno.test("whatever the subset reader reads of generated documents, js-yaml reads the same", () => {
  let read = 0;
  fc.assert(fc.property(doc, (text) => void (agrees(text) && read++)), { numRuns: 4000 });
  // Not a vacuous property: a good share of the generated documents are read, not declined.
  assert.ok(read > 800, `only ${read} of 4000 documents read`);
});

Deno.test("hostile edits of generated documents: read exactly as js-yaml reads them, or declined", () => {
  let read = 0;
  fc.assert(fc.property(edited, (text) => void (agrees(text) && read++)), { numRuns: 6000 });
  assert.ok(read > 500, `only ${read} of 6000 edited documents read`);
});

Deno.test("hand-picked documents at the edges of the subset", () => {
  const cases: [string, unknown][] = [
    ["# only a comment\n", null],
    ["a: 1\n", { a: 1 }],
    ["phases:\n  1: One\n  2: Two\n", { phases: { 1: "One", 2: "Two" } }],
    ["a:\n- x\n- y\nb: 2\n", { a: ["x", "y"], b: 2 }],
    ["a:\n  - k: 1\n    j: [2, 3]\n  - z\n", { a: [{ k: 1, j: [2, 3] }, "z"] }],
    ['a: [\n  {p: x, t: "y"},\n]\n', { a: [{ p: "x", t: "y" }] }],
    ["a: |\n  line 1\n    more\n\n  end\nb: x\n", { a: "line 1\n  more\n\nend\n", b: "x" }],
    ["a: |-\n  kept\n\n", { a: "kept" }],
    ["a: 'it''s'  # c\n", { a: "it's" }],
    ['a: "tab\\there \\u00e9"\n', { a: "tab\there é" }],
    ["url: http://x/y#frag\n", { url: "http://x/y#frag" }],
  ];
  for (const [text, want] of cases) {
    assert.deepStrictEqual(readYamlSubset(text), want, text);
    assert.ok(agrees(text));
  }
  for (
    const text of [
      "a: &x 1\n",
      "a: *x\n",
      "a: !!str 1\n",
      "? a\n: b\n",
      "a: >\n  folded\n",
      "a: 1\na: 2\n",
      "__proto__: 1\n",
      "a: b\n  c\n",
      'a: "two\n  lines"\n',
      "a: 0x10\n",
      "a: 1e3\n",
      "a: -0\n",
      "true: 1\n",
      "a:\tb\n",
      "a: b\r\n",
      "- top level list\n",
      "  a: indented top\n",
    ]
  ) assert.equal(readYamlSubset(text), NOT_SUBSET, text);
});

Deno.test("nesting too deep for the stack is declined, not thrown", () => {
  assert.equal(readYamlSubset(`a: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`), NOT_SUBSET);
  // Nesting a packet could have is read.
  assert.deepEqual(readYamlSubset(`a: ${"[".repeat(50)}1${"]".repeat(50)}\n`), {
    a: JSON.parse(`${"[".repeat(50)}1${"]".repeat(50)}`),
  });
});

async function frontMatters(dir: string, out: Map<string, string>): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && ![".git", ".tools", "node_modules"].includes(e.name)) await frontMatters(path, out);
    else if (e.isFile && e.name.endsWith(".md")) {
      try {
        const { yaml } = splitFrontMatter(await Deno.readTextFile(path));
        if (yaml !== null) out.set(path.slice(ROOT.length), yaml);
      } catch { /* a fixture whose front matter is not closed */ }
    }
  }
}

Deno.test("every front matter in the repository: read as js-yaml reads it; the example packets read in full", async () => {
  const all = new Map<string, string>();
  for (const d of ["examples", "tests/fixtures", "docs"]) await frontMatters(`${ROOT}${d}`, all);
  const declined: string[] = [];
  for (const [file, yaml] of all) if (!agrees(yaml)) declined.push(file);
  assert.ok(all.size > 40, `only ${all.size} front matters found`);
  // Only the fixtures that are broken on purpose reach js-yaml.
  assert.deepStrictEqual(declined.sort(), [
    "tests/fixtures/packets/broken_manifest_yaml/prompt_runner_packet.md",
    "tests/fixtures/packets/broken_prompt_yaml/prompts/02_broken.prompt.md",
  ]);
});

Deno.test("hostile edits of the repository's own front matters: read exactly as js-yaml reads them, or declined", async () => {
  const all = new Map<string, string>();
  for (const d of ["examples", "tests/fixtures"]) await frontMatters(`${ROOT}${d}`, all);
  const texts = [...all.values()];
  const edit = fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE), fc.nat(2));
  const edits = fc.tuple(fc.constantFrom(...texts), fc.array(edit, { minLength: 1, maxLength: 3 })).map(
    ([text, list]) =>
      list.reduce((t, [at, piece, how]) => {
        const p = at % (t.length + 1);
        return how === 0
          ? t.slice(0, p) + t.slice(p + 1)
          : how === 1
          ? t.slice(0, p) + piece + t.slice(p + 1)
          : t.slice(0, p) + piece + t.slice(p);
      }, text),
  );
  let read = 0;
  fc.assert(fc.property(edits, (text) => void (agrees(text) && read++)), { numRuns: 4000 });
  assert.ok(read > 400, `only ${read} of 4000 edited front matters read`);
});
