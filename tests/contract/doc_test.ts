import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { analyseDoc, DEFAULT_MARKERS } from "../../src/contract/clauses/doc.ts";

Deno.test("verifyContract() doc passes a filled document with its line count", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "guide.md": "# Guide\n\n## Usage\nRun it.\n" });
  const item = await oneItem(dir.path, { doc: { path: "guide.md", requires_sections: ["## Usage"] } });
  assert.equal(item.status, "pass");
  assert.equal(item.details, "ok: 3 non-blank lines");
  assert.equal(item.lines, 3);
  assert.equal(item.below_recommendation, false);
});

Deno.test("verifyContract() doc reports blank, missing sections and markers in order", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, {
    "blank.md": "\n   \n",
    "draft.md": "# Draft\n- TODO: write\ntext\nFIXME later\nTODO again\n",
  });
  const items = await itemsOf(dir.path, {
    doc: ["blank.md", { path: "draft.md", requires_sections: ["## Usage", "## API", "# Draft"] }],
  });
  assert.equal(items[0]!.details, "document is blank");
  assert.equal(
    items[1]!.details,
    "missing sections: ## Usage, ## API; forbidden markers: TODO (line 2), FIXME (line 4)",
  );
  assert.deepEqual(items[1]!.markers, [{ marker: "TODO", line: 2 }, { marker: "FIXME", line: 4 }]);
  assert.deepEqual(items[1]!.missing_sections, ["## Usage", "## API"]);
});

Deno.test("verifyContract() doc min_lines is advisory only", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "short.md": "one line\n" });
  const item = await oneItem(dir.path, { doc: { path: "short.md", min_lines: 5 } });
  assert.equal(item.status, "pass");
  assert.equal(item.below_recommendation, true);
  assert.equal(item.min_lines, 5);
});

Deno.test("verifyContract() doc forbids_markers replaces the defaults and [] disables them", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "d.md": "TODO keep\nDRAFT here\n" });
  const items = await itemsOf(dir.path, {
    doc: [{ path: "d.md", forbids_markers: ["DRAFT"] }, { path: "d.md", forbids_markers: [] }],
  });
  assert.equal(items[0]!.details, "forbidden markers: DRAFT (line 2)");
  assert.equal(items[1]!.status, "pass");
});

Deno.test("analyseDoc() only hits markers at line starts after bullets or headings, on a word boundary", () => {
  const text = [
    "mentions TODO mid-line",
    "TODOS is a word",
    "  * TBD: later",
    "### XXX heading",
    "<fill in>",
    "...placeholder text",
    "LOREMipsum",
  ].join("\n");
  const a = analyseDoc(text, { requiresSections: [], markers: DEFAULT_MARKERS });
  assert.deepEqual(a.hits, [
    { marker: "TBD", line: 3 },
    { marker: "XXX", line: 4 },
    { marker: "...placeholder", line: 6 },
    { marker: "<fill in>", line: 5 },
  ]);
});

Deno.test("verifyContract() doc reports a missing file", async () => {
  await using dir = await tempDir();
  const item = await oneItem(dir.path, { doc: "nope.md" });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "missing file");
});
