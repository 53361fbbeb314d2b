import assert from "node:assert/strict";
import { tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { dotGet, jsonProblems } from "../../src/contract/clauses/data.ts";

Deno.test("verifyContract() yaml parses, checks the root type and records the actual root", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "a.yml": "a: 1\n", "l.yml": "- 1\n- 2\n", "bad.yml": "a: b: c\n" });
  const items = await itemsOf(dir.path, {
    yaml: ["a.yml", { path: "l.yml", root: "map" }, { path: "l.yml", root: "list" }, "bad.yml", "none.yml"],
  });
  assert.deepEqual(items.map((i) => [i.status, i.root ?? null]), [
    ["pass", "map"],
    ["fail", "list"],
    ["pass", "list"],
    ["fail", null],
    ["fail", null],
  ]);
  assert.equal(items[1]!.details, "expected root map, got list");
  assert.match(items[3]!.details, /^YAML parse failed: \S/);
  assert.doesNotMatch(items[3]!.details, /\n/);
  assert.equal(items[4]!.details, "missing file");
});

Deno.test("verifyContract() json reports every structural problem joined by '; '", async () => {
  await using dir = await tempDir();
  const doc = {
    name: "demo",
    meta: { owner: "", tags: [] },
    items: [{ id: 1, kind: "a" }, { id: 2 }, "x"],
    steps: [{ status: "todo" }, { status: "done" }, { status: "todo" }],
  };
  await writeFiles(dir.path, { "d.json": JSON.stringify(doc), "bad.json": "{nope" });
  const item = await oneItem(dir.path, {
    json: {
      path: "d.json",
      root: "list",
      required_paths: ["name", "meta.owner", "meta.missing", "items.0"],
      non_empty_paths: ["name", "meta.owner", "meta.tags", "absent.path"],
      array_items_require: { items: ["id", "kind"], name: ["x"] },
      array_none_match: [{ path: "steps", field: "status", equals: "todo" }],
    },
  });
  assert.equal(item.status, "fail");
  assert.deepEqual(item.problems, [
    "root is not list",
    "missing path meta.missing",
    "missing path items.0",
    "empty path meta.owner",
    "empty path meta.tags",
    "empty path absent.path",
    "items has 2 item(s) missing required keys",
    "name is not an array",
    'steps has 2 item(s) where status="todo"',
  ]);
  assert.equal(item.details, (item.problems as string[]).join("; "));
  const bad = await oneItem(dir.path, { json: "bad.json" });
  assert.match(bad.details, /^JSON read\/parse failed: /);
});

Deno.test("verifyContract() json passes a document meeting its assertions", async () => {
  await using dir = await tempDir();
  await writeFiles(dir.path, { "d.json": '{"a": {"b": [1]}}' });
  const item = await oneItem(dir.path, { json: { path: "d.json", root: "map", non_empty_paths: ["a.b"] } });
  assert.equal(item.status, "pass");
  assert.equal(item.details, "ok");
  assert.deepEqual(item.problems, []);
});

Deno.test("dotGet() traverses objects only", () => {
  assert.equal(dotGet({ a: { b: 2 } }, "a.b"), 2);
  assert.equal(dotGet({ a: [{ b: 2 }] }, "a.0.b"), undefined);
  assert.deepEqual(jsonProblems([], { root: "map" }), ["root is not map"]);
});
