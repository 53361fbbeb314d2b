import assert from "node:assert/strict";
import { FrontMatterSyntaxError, parseFrontMatter } from "../../src/packet/front_matter.ts";

Deno.test("parseFrontMatter() splits the mapping from the body, stripping one newline", async () => {
  const r = await parseFrontMatter("---\nname: x\n---\n\n# Title\n");
  assert.deepEqual(r.data, { name: "x" });
  assert.equal(r.body, "\n# Title\n");
  assert.equal(r.hasFrontMatter, true);
});

Deno.test("parseFrontMatter() treats a file without a leading --- line as all body", async () => {
  const r = await parseFrontMatter("# Title\n---\nname: x\n---\n");
  assert.deepEqual(r.data, {});
  assert.equal(r.body, "# Title\n---\nname: x\n---\n");
  assert.equal(r.hasFrontMatter, false);
});

Deno.test("parseFrontMatter() reads keys as strings at every depth", async () => {
  const r = await parseFrontMatter("---\n1: one\ntrue: yes\nnested:\n  2: two\n  list:\n    - 3: three\n---\n");
  assert.deepEqual(r.data, { "1": "one", "true": "yes", nested: { "2": "two", list: [{ "3": "three" }] } });
});

Deno.test("parseFrontMatter() reports YAML errors with the line and column in the whole file", async () => {
  await assert.rejects(
    () => parseFrontMatter("---\nok: 1\nbad: x: y\n---\n"),
    (e: unknown) => e instanceof FrontMatterSyntaxError && e.line === 3 && e.column === 7,
  );
});

Deno.test("parseFrontMatter() rejects duplicate keys and non-mapping front matter", async () => {
  await assert.rejects(
    () => parseFrontMatter("---\na: 1\na: 2\n---\n"),
    (e: unknown) => e instanceof FrontMatterSyntaxError && /duplicated mapping key/.test(e.message) && e.line === 3,
  );
  await assert.rejects(() => parseFrontMatter("---\n- a\n---\n"), /must be a YAML mapping, got a list/);
});

Deno.test("parseFrontMatter() rejects an unclosed front matter block", async () => {
  await assert.rejects(() => parseFrontMatter("---\na: 1\n"), /not closed/);
});

Deno.test("parseFrontMatter() accepts an empty front matter block and CRLF fences", async () => {
  assert.deepEqual((await parseFrontMatter("---\n---\nbody")).data, {});
  assert.deepEqual((await parseFrontMatter("---\r\na: 1\r\n---\r\nbody")).data, { a: 1 });
});

Deno.test("parseFrontMatter() reads YAML outside the subset with js-yaml: anchors, folded scalars, other numbers", async () => {
  const r = await parseFrontMatter("---\nbase: &b {x: 1}\nuse: *b\ntext: >\n  one\n  two\nhex: 0x10\n---\n");
  assert.deepEqual(r.data, { base: { x: 1 }, use: { x: 1 }, text: "one two\n", hex: 16 });
});

Deno.test("parseFrontMatter() works with only read and env permissions (npm yaml reads LOG_TOKENS)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "pr-fm-" });
  try {
    const src = new URL("../../src/packet/front_matter.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/probe.ts`,
      `import { parseFrontMatter } from "${src}";\n` +
        `console.log(JSON.stringify((await parseFrontMatter("---\\na: [1]\\n---\\n")).data));\n` +
        // Outside the subset: js-yaml, loaded on demand.
        `console.log(JSON.stringify((await parseFrontMatter("---\\na: &x [1]\\nb: *x\\n---\\n")).data));\n`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--allow-read", "--allow-env", "--config", config, `${dir}/probe.ts`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stderr), "");
    assert.equal(new TextDecoder().decode(out.stdout).trim(), '{"a":[1]}\n{"a":[1],"b":[1]}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a fence after blank lines, or with trailing spaces, is refused instead of reading the front matter as body", async () => {
  for (
    const [text, line, words] of [
      ["\n---\nverify:\n  files_exist: [a]\n---\n# Body\n", 2, /starts with 1 blank line/],
      ["--- \nverify:\n  files_exist: [a]\n---\n# Body\n", 1, /is not exactly "---"/],
    ] as const
  ) {
    await assert.rejects(parseFrontMatter(text), (e: unknown) => {
      assert.ok(e instanceof FrontMatterSyntaxError, String(e));
      assert.equal(e.line, line);
      assert.match(e.message, words);
      return true;
    });
  }
  // A body that merely contains a thematic break is still a body.
  assert.equal((await parseFrontMatter("# Title\n\n---\n\ntext\n")).hasFrontMatter, false);
  assert.equal((await parseFrontMatter("\n---\nno closing fence\n")).hasFrontMatter, false);
});

Deno.test("front matter nested deeper than the stack is a syntax error, not an internal error", async () => {
  const text = `---\nx: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n---\nbody\n`;
  await assert.rejects(parseFrontMatter(text), (e: unknown) => {
    assert.ok(e instanceof FrontMatterSyntaxError, String(e));
    assert.match(e.message, /nested too deeply/);
    return true;
  });
});
