/** The pure parts of the authoring commands: template rendering, contract merging, profile names, create-only writes. */
import assert from "node:assert/strict";
import { contentChecks, promptFileText, slug } from "../../src/packet/scaffold.ts";
import { type LoadedTemplate, renderTemplateBody } from "../../src/packet/templates.ts";
import { profileNameProblem } from "../../src/packet/profile_store.ts";
import { parseFrontMatter } from "../../src/packet/front_matter.ts";
import { createNew } from "../../src/util/create_new.ts";
import { tempDir } from "../support/fs.ts";

/** A template as prompt_runner_sdk writes them: empty verify skeletons, placeholder markers, an id of its own. */
const SDK_TEMPLATE: LoadedTemplate = {
  name: "from-adr",
  source: "home",
  file: "/home/u/.config/prompt_runner/templates/from-adr.prompt.md",
  frontMatter: { id: 99, phase: 7, verify: { files_exist: [], contains: [], commands: [] }, sp: 3 },
  body: "# {{name}}\n\n## Mission\n\n<!-- prompt_runner:placeholder mission -->\n{{mission}}\n\n{{targets_bullets}}\n",
};

const FIELDS = {
  id: "03",
  phase: 2,
  name: "Capture runtime boundaries",
  targets: ["app", "docs"],
  commit: "docs: boundaries",
  mission: "Write BOUNDARIES.md.",
  dependsOn: ["01"],
  contract: {
    files: ["BOUNDARIES.md"],
    contains: [{ path: "BOUNDARIES.md", text: "## Runtime" }],
    commands: [],
    simulateWrites: [{ path: "BOUNDARIES.md", text: "## Runtime\n" }],
  },
};

Deno.test("an sdk template's empty verify lists are dropped and the generated keys win over its front matter", async () => {
  const { text, verify } = promptFileText(SDK_TEMPLATE, FIELDS);
  const fm = await parseFrontMatter(text);
  assert.equal(fm.data.id, "03");
  assert.equal(fm.data.phase, 2);
  assert.equal(fm.data.sp, 3, "the template's other keys are kept");
  assert.equal(fm.data.template, "from-adr");
  assert.deepEqual(fm.data.depends_on, ["01"]);
  assert.deepEqual(fm.data.verify, {
    files_exist: ["BOUNDARIES.md"],
    contains: [{ path: "BOUNDARIES.md", text: "## Runtime" }],
  });
  assert.deepEqual(verify, fm.data.verify);
  assert.deepEqual(fm.data.simulate, { attempts: [{ writes: [{ path: "BOUNDARIES.md", text: "## Runtime\n" }] }] });
  assert.equal(
    fm.body,
    "\n# Capture runtime boundaries\n\n## Mission\n\n<!-- prompt_runner:placeholder mission -->\n" +
      "Write BOUNDARIES.md.\n\n- app\n- docs\n",
  );
  assert.equal(contentChecks(verify), 1);
});

Deno.test("a contract of files alone has no content check", () => {
  const { verify } = promptFileText(SDK_TEMPLATE, {
    ...FIELDS,
    contract: { files: ["a"], contains: [], commands: [], simulateWrites: [] },
  });
  assert.equal(contentChecks(verify), 0);
});

Deno.test("an unknown placeholder is refused naming the template and the allowed ones", () => {
  const t = { ...SDK_TEMPLATE, body: "# {{title}}\n" };
  assert.throws(
    () => renderTemplateBody(t, { name: "x" }),
    /template \/home\/u\/\.config\/prompt_runner\/templates\/from-adr\.prompt\.md uses \{\{title\}\}; expected one of \{\{id\}\}, \{\{phase\}\}/,
  );
});

Deno.test("slug: a file-name-safe name", () => {
  assert.equal(slug("Capture runtime boundaries"), "capture_runtime_boundaries");
  assert.equal(slug("  Ünïcode / and: punctuation!  "), "n_code_and_punctuation");
  assert.equal(slug("!!!"), "prompt");
});

Deno.test("profile names: a file name, never a path", () => {
  for (const ok of ["codex-fast", "claude_safe", "v1.2", "A"]) assert.equal(profileNameProblem(ok), null, ok);
  for (const bad of ["../x", "a/b", "", ".hidden", "-flag", "x.md", "a..b", "x".repeat(65)]) {
    assert.match(profileNameProblem(bad) ?? "", /is not valid; expected letters, digits/, bad);
  }
});

Deno.test("createNew keeps an existing file byte for byte and leaves no temp file", async () => {
  await using dir = await tempDir();
  const file = `${dir.path}/config.md`;
  assert.equal(await createNew(file, "first\n"), true);
  assert.equal(await createNew(file, "second\n"), false);
  assert.equal(await Deno.readTextFile(file), "first\n");
  const names = (await Array.fromAsync(Deno.readDir(dir.path))).map((e) => e.name);
  assert.deepEqual(names, ["config.md"]);
});
