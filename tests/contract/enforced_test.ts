import { appendStoreLine } from "../../src/util/safe_fs.ts";
import assert from "node:assert/strict";
import { tempDir } from "../support/fs.ts";
import { promptFixture } from "./_helpers.ts";
import {
  contractDiff,
  enforcedContract,
  entryLabel,
  foldAmendments,
  readAmendments,
} from "../../src/contract/enforced.ts";
import type { AmendmentRecord } from "../../src/contract/types.ts";

function rec(over: Partial<AmendmentRecord>): AmendmentRecord {
  return {
    id: "am-x",
    at: "2026-11-30T12:10:03.201Z",
    prompt: "03",
    author: "ada",
    reason: "because",
    phase: "pre_verify",
    direction: "add",
    clause: "files_exist",
    operation: "add",
    entries: [],
    run_id: null,
    persisted: false,
    prompt_file: "prompts/03_write_guide.prompt.md",
    ...over,
  };
}

Deno.test("foldAmendments() applies add, drop, replace and remove in file order", () => {
  const packet = {
    files_exist: ["README.md"],
    contains: [{ path: "g.md", text: "## Usage" }],
    doc: ["a.md", "b.md", "a.md"],
  };
  const out = foldAmendments(packet, [
    rec({ operation: "add", clause: "files_exist", entries: ["lib/report.ex"] }),
    rec({ operation: "add", clause: "glob", entries: ["lib/*.ex"] }),
    rec({ operation: "drop", clause: "contains", direction: "relax" }),
    rec({ operation: "remove", clause: "doc", direction: "relax", entries: ["a.md"] }),
    rec({ operation: "replace", clause: "json", direction: "relax", entries: [] }),
    rec({ operation: "drop", clause: "yaml", direction: "relax" }),
  ]);
  assert.deepEqual(out, {
    files_exist: ["README.md", "lib/report.ex"],
    glob: ["lib/*.ex"],
    doc: ["b.md", "a.md"],
    json: [],
  });
  assert.deepEqual(packet.files_exist, ["README.md"], "the packet contract is not mutated");
});

Deno.test("foldAmendments() skips persisted records and returns the packet contract when nothing applies", () => {
  const packet = { files_exist: ["README.md", "lib/report.ex"] };
  const out = foldAmendments(packet, [rec({ operation: "add", entries: ["lib/report.ex"], persisted: true })]);
  assert.deepEqual(out, packet);
});

Deno.test("foldAmendments() removes entries by deep equality regardless of key order", () => {
  const out = foldAmendments({ contains: [{ path: "a", text: "x" }, { path: "b", text: "y" }] }, [
    rec({ operation: "remove", clause: "contains", entries: [{ text: "x", path: "a" }] }),
  ]);
  assert.deepEqual(out, { contains: [{ path: "b", text: "y" }] });
});

Deno.test("contractDiff() emits same, removed, added per clause alphabetically with entry labels", () => {
  const packet = { files_exist: ["README.md"], contains: [{ path: "docs/guide.md", text: "## Usage" }] };
  const enforced = { files_exist: ["README.md", "lib/demo/report.ex"] };
  assert.deepEqual(contractDiff(packet, enforced), [
    { change: "removed", clause: "contains", entry: 'path="docs/guide.md" text="## Usage"' },
    { change: "same", clause: "files_exist", entry: "README.md" },
    { change: "added", clause: "files_exist", entry: "lib/demo/report.ex" },
  ]);
  assert.equal(entryLabel({ text: "x", path: "NOTES.md", n: 2 }), 'n=2 path="NOTES.md" text="x"');
});

Deno.test("contractDiff() treats duplicates as a multiset", () => {
  assert.deepEqual(contractDiff({ doc: ["a", "a", "b"] }, { doc: ["a", "b", "c"] }), [
    { change: "same", clause: "doc", entry: "a" },
    { change: "same", clause: "doc", entry: "b" },
    { change: "removed", clause: "doc", entry: "a" },
    { change: "added", clause: "doc", entry: "c" },
  ]);
});

Deno.test("readAmendments() and enforcedContract() read the store root's records and legacy commands", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/amendments`, { recursive: true });
  const lines = [
    JSON.stringify(rec({ operation: "add", clause: "files_exist", entries: ["lib/a.ex"] })),
    JSON.stringify(rec({ operation: "add", clause: "files_exist", entries: ["lib/b.ex"], persisted: true })),
    "{torn", // a last line cut short (no newline): a write that did not finish
  ];
  await Deno.writeTextFile(`${dir.path}/amendments/03.jsonl`, lines.join("\n"));
  assert.equal((await readAmendments(dir.path, "03")).length, 2);
  assert.deepEqual(await readAmendments(dir.path, "04"), []);
  const prompt = promptFixture({ verify: { files_exist: ["README.md"] }, legacyCommands: ["mix test"] });
  const { contract, amendments } = await enforcedContract(prompt, dir.path);
  assert.deepEqual(contract, { files_exist: ["README.md", "lib/a.ex"], commands: ["mix test"] });
  // The persisted record is listed (its change is in the prompt file) but never folded twice.
  assert.deepEqual(amendments.map((a) => a.persisted), [false, true]);
  const withCommands = promptFixture({ verify: { commands: [{ exec: "true" }] }, legacyCommands: ["mix test"] });
  assert.deepEqual((await enforcedContract(withCommands, dir.path)).contract, {
    commands: [{ exec: "true" }],
    files_exist: ["lib/a.ex"],
  });
});

Deno.test("readAmendments() refuses a record it cannot read, naming the file and line: its check must not vanish", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/amendments`, { recursive: true });
  const good = JSON.stringify(rec({ operation: "add", clause: "commands", entries: ["grep -q zzz a.txt"] }));
  for (
    const [bad, what] of [[good.replace("grep", "gr\u0000ep"), /line 2 is not JSON/], [
      '{"foo": 1}',
      /line 2 is not an amendment record/,
    ]] as const
  ) {
    const file = `${dir.path}/amendments/03.jsonl`;
    await Deno.writeTextFile(file, [good, bad, good].join("\n") + "\n");
    await assert.rejects(() => readAmendments(dir.path, "03"), (e: Error & { code?: string }) => {
      assert.equal(e.code, "amendments_store_invalid");
      assert.match(e.message, what);
      assert.ok(e.message.includes(file), e.message);
      return true;
    });
    await assert.rejects(
      () => enforcedContract(promptFixture({ verify: {} }), dir.path),
      /amendments\/03\.jsonl line 2/,
    );
  }
});

Deno.test("readAmendments(): a record torn by a crash, ended by the next append and then written whole, is read once", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/amendments`, { recursive: true });
  const file = `${dir.path}/amendments/03.jsonl`;
  const first = JSON.stringify(rec({ operation: "add", clause: "commands", entries: ["grep -q é a.txt"] }));
  const second = JSON.stringify(rec({ operation: "add", clause: "files_exist", entries: ["lib/ü.ex"] }));
  const bytes = new TextEncoder().encode(second);
  // Cut inside "ü" (two bytes in UTF-8): the torn text ends in U+FFFD.
  const cut = new TextEncoder().encode(second.slice(0, second.indexOf("ü"))).length + 1;
  await Deno.writeFile(file, new Uint8Array([...new TextEncoder().encode(first + "\n"), ...bytes.subarray(0, cut)]));
  assert.equal((await readAmendments(dir.path, "03")).length, 1, "the torn last line is not read");
  // The intent's settle writes the same record again; the store append ends the torn line first.
  await appendStoreLine(file, second, { fsync: true });
  assert.deepEqual((await readAmendments(dir.path, "03")).map((r) => r.clause), ["commands", "files_exist"]);
  // A torn line followed by anything else is still an error: its record would be lost without a word.
  await Deno.writeFile(file, new Uint8Array([...new TextEncoder().encode(first + "\n"), ...bytes.subarray(0, cut)]));
  await appendStoreLine(file, first);
  await assert.rejects(() => readAmendments(dir.path, "03"), /line 2 is not JSON/);
});
