/**
 * docs/packets.md documents every key the loaders accept: the manifest, prompt files, `verify:` clauses, `recovery:`,
 * the simulated provider's script and workspace manifests. A key added to a loader without a line in the guide fails.
 */
import assert from "node:assert/strict";
import { ROOT } from "./support/cli.ts";
import { MANIFEST_KEYS } from "../src/packet/load.ts";
import { PROMPT_KEYS } from "../src/packet/prompt_file.ts";
import { SIMULATE_KEYS } from "../src/packet/simulate_lint.ts";
import { defaultRecovery } from "../src/packet/recovery.ts";
import { CLAUSES } from "../src/contract/types.ts";
import { WORKSPACE_KEYS } from "../src/workspace/manifest.ts";

const GUIDE = Deno.readTextFileSync(`${ROOT}/docs/packets.md`);

/** The text of the `## <title>` section of the guide, up to the next `## `. */
function section(title: string): string {
  const start = GUIDE.indexOf(`\n## ${title}`);
  assert.ok(start >= 0, `docs/packets.md has a section "## ${title}"`);
  const end = GUIDE.indexOf("\n## ", start + 1);
  return GUIDE.slice(start, end < 0 ? undefined : end);
}

/** Every key-like word inside the section's code spans (`{path, text, append}` counts path, text and append). */
function codeWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const span of text.matchAll(/`([^`\n]+)`/g)) {
    for (const w of span[1]!.matchAll(/[A-Za-z_][\w.<>-]*/g)) {
      words.add(w[0]);
      // `retry.class_attempts` also documents its first part when used as a prefix (`session.resumable` → session)
      const dot = w[0].indexOf(".");
      if (dot > 0) words.add(w[0].slice(0, dot));
    }
  }
  return words;
}

function assertDocumented(where: string, text: string, keys: Iterable<string>): void {
  const words = codeWords(text);
  const missing = [...keys].filter((k) => !words.has(k));
  assert.deepEqual(missing, [], `docs/packets.md "${where}" does not document: ${missing.join(", ")}`);
}

/** Dotted leaf keys of a nested object (`retry.max_attempts`), with the map keys of `class_attempts` left out. */
function leafKeys(obj: Record<string, unknown>, prefix = ""): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix + k;
    if (v !== null && typeof v === "object" && !Array.isArray(v) && k !== "class_attempts") {
      out.push(...leafKeys(v as Record<string, unknown>, key + "."));
    } else out.push(key);
  }
  return out;
}

Deno.test("docs/packets.md documents every manifest key the loader accepts", () => {
  assertDocumented("Manifest keys", section("Manifest keys"), MANIFEST_KEYS);
});

Deno.test("docs/packets.md documents every prompt front-matter key the loader accepts", () => {
  const text = section("Prompt keys");
  assertDocumented("Prompt keys", text, [...PROMPT_KEYS].filter((k) => !k.endsWith("_opts")));
  assert.match(text, /provider option bags/, "prompt overrides name the provider option bags");
});

Deno.test("docs/packets.md documents every verify clause", () => {
  assertDocumented("verify: clauses", section("`verify:` clauses"), CLAUSES);
});

Deno.test("docs/packets.md documents every recovery budget", () => {
  const text = section("`recovery:`");
  const keys = leafKeys(defaultRecovery() as unknown as Record<string, unknown>);
  assertDocumented("recovery", text, keys);
});

Deno.test("docs/packets.md documents every key of the simulated provider's script", () => {
  const text = section("The simulated provider");
  for (const [where, keys] of Object.entries(SIMULATE_KEYS)) {
    const documented = where === "top" || where === "session"
      ? keys.map((k) => (where === "session" ? `session.${k}` : k))
      : keys;
    assertDocumented(`simulate (${where})`, text, documented);
  }
});

Deno.test("docs/packets.md documents every workspace manifest key and says source: is relative to the manifest", () => {
  const text = section("Workspace manifests");
  assertDocumented("Workspace manifests", text, WORKSPACE_KEYS.top);
  const nested = [
    ...WORKSPACE_KEYS.repository.map((k) => `repositories.<name>.${k}`),
    ...WORKSPACE_KEYS.packet.map((k) => `packet.${k}`),
    ...WORKSPACE_KEYS.operator.map((k) => `operator.${k}`),
    ...WORKSPACE_KEYS.requires.map((k) => `requires.${k}`),
    ...WORKSPACE_KEYS.commits.map((k) => `commits.${k}`),
    ...WORKSPACE_KEYS.contracts.map((k) => `contracts.${k}`),
    ...WORKSPACE_KEYS.artifact.map((k) => `contracts.artifacts.<n>.${k}`),
  ];
  assertDocumented("Workspace manifests", text, nested);
  assert.match(text, /`repositories\.<name>\.source`[^\n]*\*\*Relative to the workspace manifest's directory\*\*/);
});

Deno.test("the README links docs/packets.md and docs/rendering.md", async () => {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  assert.match(readme, /\]\(docs\/packets\.md\)/);
  assert.match(readme, /\]\(docs\/rendering\.md\)/);
});
