/** Every document reference in the code, the README and docs/ resolves to a file (and a section) in the repository. */
import assert from "node:assert/strict";
import { ROOT } from "./support/cli.ts";
import { checkDocRefs, checkNamedCode, type DocFile, sectionsOf } from "./support/doc_refs.ts";

/** Folders whose files are data a user writes (packets, recorded streams), not references of ours. */
const SKIP = ["tests/fixtures/packets", "tests/.tools", "tests/golden"];

async function collect(rel: string, out: DocFile[]): Promise<void> {
  if (SKIP.some((s) => rel === s || rel.startsWith(`${s}/`)) || rel.includes("/.prompt_runner")) return;
  const info = await Deno.stat(`${ROOT}/${rel}`);
  if (info.isFile) {
    if (rel.endsWith(".ts") || rel.endsWith(".md")) {
      out.push({ path: rel, text: await Deno.readTextFile(`${ROOT}/${rel}`) });
    }
    return;
  }
  for await (const e of Deno.readDir(`${ROOT}/${rel}`)) await collect(`${rel}/${e.name}`, out);
}

/** The repository's files the check reads. */
async function repoFiles(): Promise<DocFile[]> {
  const out: DocFile[] = [];
  for (const rel of ["src", "scripts", "tests", "docs", "main.ts", "README.md"]) await collect(rel, out);
  return out;
}

function existsInRepo(path: string): boolean {
  try {
    Deno.statSync(`${ROOT}/${path}`);
    return true;
  } catch {
    return false;
  }
}

Deno.test("every <path>.md § citation and docs/ path in src, scripts, tests, README and docs resolves", async () => {
  const files = await repoFiles();
  assert.ok(files.filter((f) => f.path.startsWith("src/")).length > 50, "the check reads the sources");
  const problems = checkDocRefs(files, existsInRepo);
  assert.deepEqual(problems, [], `unresolved document references:\n${problems.join("\n")}`);
});

Deno.test("each of the eight reference documents exists with numbered sections", async () => {
  for (const name of ["cli", "contract", "control-plane", "events-and-rendering", "packet", "providers", "runner"]) {
    const text = await Deno.readTextFile(`${ROOT}/docs/reference/${name}.md`);
    assert.ok(sectionsOf(text).size >= 5, `docs/reference/${name}.md has numbered sections`);
  }
  assert.ok(sectionsOf(await Deno.readTextFile(`${ROOT}/docs/reference/workspace.md`)).size >= 5);
});

// The planted documents below are built from pieces so that this file itself holds no bad reference.
const MD = ".md";
const S = "§";
const REF: DocFile = {
  path: `docs/reference/runner${MD}`,
  text: `# Runner\n\n## ${S}4 Attempts\n\n### ${S}4.1 Modes\n`,
};
const exists = (p: string) => ["docs/reference/runner.md", "docs/store.md", "src/run", "src/run/mod.ts"].includes(p);

function check(path: string, text: string): string[] {
  return checkDocRefs([REF, { path, text }], exists);
}

Deno.test("checkDocRefs() accepts resolvable citations, chains and wrapped citations", () => {
  const code = [
    `/** Attempts (docs/reference/runner${MD} ${S}4, ${S}4.1) and the lease (docs/store${MD}). */`,
    ` * as the modes say (docs/reference/runner${MD}`,
    ` * ${S}4.1): one more.`,
    `const x = 1; // see docs/reference/runner${MD} ${S}4–${S}4.1`,
    `const data = "docs/not_a_doc${MD}"; // a path inside a string literal is data`,
  ].join("\n");
  assert.deepEqual(check("src/run/x.ts", code), []);
  const prose = `See ${S}4.1 and [the store](../store${MD}), \`src/run/mod.ts\` and \`src/run/\`.\n`;
  assert.deepEqual(check("docs/reference/other.md", prose + `\n## ${S}4.1 Local\n`), []);
});

Deno.test("checkDocRefs() names file:line for a bare spec citation, a missing section, file or path", () => {
  const code = [
    "/** Fine. */",
    `/** The attempt loop (runner${MD} ${S}4). */`,
    `/** Modes (docs/reference/runner${MD} ${S}4.7). */`,
    `/** Gone (docs/reference/nope${MD} ${S}1). */`,
    `// the lease lives in docs/lease${MD} (gone)`,
    `/** Orphan section (${S}6). */`,
  ].join("\n");
  assert.deepEqual(check("src/run/x.ts", code), [
    `src/run/x.ts:2: bare citation "runner${MD} ${S}4": name the file by its repository path`,
    `src/run/x.ts:3: "docs/reference/runner${MD}" has no heading "${S}4.7"`,
    `src/run/x.ts:4: "docs/reference/nope${MD}" does not exist`,
    `src/run/x.ts:5: "docs/lease${MD}" does not exist`,
    `src/run/x.ts:6: "${S}6" names no document: cite it as <path>${MD} ${S}6`,
  ]);
  const prose = "Read [the guide](guide.md) and `src/run/gone.ts`.\n";
  assert.deepEqual(check("docs/x.md", prose), [
    `docs/x.md:1: "src/run/gone.ts" does not exist`,
    `docs/x.md:1: link "guide.md" does not resolve (docs/guide.md)`,
  ]);
});

function readInRepo(path: string): string | null {
  try {
    return Deno.readTextFileSync(`${ROOT}/${path}`);
  } catch {
    return null;
  }
}

Deno.test("docs/architecture.md: every src/ path it names exists and every function it names is in that file", async () => {
  const doc = { path: "docs/architecture.md", text: await Deno.readTextFile(`${ROOT}/docs/architecture.md`) };
  for (const section of ["## Layers", "## Code map", "## The path of an event", "## The path of a steer"]) {
    assert.ok(doc.text.includes(section), `docs/architecture.md has "${section}"`);
  }
  for (const section of ["## The path of a view change", "## The path of a contract amendment"]) {
    assert.ok(doc.text.includes(section), `docs/architecture.md has "${section}"`);
  }
  const problems = checkNamedCode(doc, readInRepo);
  assert.deepEqual(problems, [], `docs/architecture.md has drifted from the code:\n${problems.join("\n")}`);
});

Deno.test("checkNamedCode() catches a moved file and a renamed function", () => {
  const files: Record<string, string> = { "src/run/a.ts": "export function runThing() {}\n" };
  const read = (p: string) => files[p] ?? null;
  const doc = {
    path: "docs/architecture.md",
    text: [
      "1. `src/run/a.ts` — `runThing()` starts it,",
      "   then `ctx.runThing()` again (carried from the line above).",
      "2. `src/run/b.ts` — `gone()`.",
      "3. `src/run/a.ts` — `renamed()`.",
    ].join("\n"),
  };
  assert.deepEqual(checkNamedCode(doc, read), [
    'docs/architecture.md:3: "src/run/b.ts" does not exist',
    'docs/architecture.md:3: "gone()" is not in src/run/b.ts, src/run/a.ts',
    'docs/architecture.md:4: "renamed()" is not in src/run/a.ts',
  ]);
});
