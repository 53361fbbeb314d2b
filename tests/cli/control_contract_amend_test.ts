import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { PROMPT_01, writeDemoPacket } from "../control/_harness.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

Deno.test("control amend records run-local additions per clause and control contract shows the diff", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli([
    "control",
    "amend",
    dir,
    "1",
    "--add-file",
    "lib/demo/report.ex",
    "--add-command",
    `mix test "test/a b.exs"`,
    "--reason",
    "the guide links to a module that must exist",
    "--author",
    "ada",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'Amended 01: added files_exist ["lib/demo/report.ex"] (pre_verify)\n' +
      'Amended 01: added commands [{"exec":"mix","args":["test","test/a b.exs"],"timeout_ms":600000}] (pre_verify)\n' +
      "run-local: recorded in the store root only; the prompt file is untouched\n",
  );
  const recs = parseJsonLines(await Deno.readTextFile(storePaths(storeRootForPacket(dir)).amendmentsFile("01")));
  assert.equal(recs.length, 2);
  assert.equal(await Deno.readTextFile(`${dir}/prompts/01_first.prompt.md`), PROMPT_01);

  const relaxed = await runCli([
    "control",
    "relax",
    dir,
    "01",
    "--drop",
    "contains",
    "--reason",
    "the requirement was wrong",
    "--confirm",
    "--author",
    "ada",
  ]);
  assert.equal(relaxed.code, 0, relaxed.stderr);
  assert.equal(
    relaxed.stdout,
    "Relaxed 01: dropped contains (pre_verify)\nrun-local: recorded in the store root only; the prompt file is untouched\n",
  );

  const c = await runCli(["control", "contract", dir, "1"]);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(
    c.stdout,
    [
      "",
      "  contract for 01",
      "",
      "  pre_verify   add files_exist by ada — the guide links to a module that must exist",
      "  pre_verify   add commands by ada — the guide links to a module that must exist",
      "  pre_verify   drop contains by ada — the requirement was wrong",
      "",
      '  + commands: args=["test","test/a b.exs"] exec="mix" timeout_ms=600000',
      '  - contains: path="docs/guide.md" text="## Usage"',
      "    files_exist: README.md",
      "  + files_exist: lib/demo/report.ex",
      "",
      "",
    ].join("\n"),
  );
  const j = parseJsonOut(await runCli(["control", "contract", dir, "01", "--json"]));
  assert.equal(j.prompt_id, "01");
  assert.deepEqual(Object.keys(j), ["prompt_id", "packet", "enforced", "amendments", "diff"]);
  assert.equal((j.amendments as unknown[]).length, 3);
});

Deno.test("control amend --persist writes the prompt file back and says so; --json prints the record", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const r = await runCli([
    "control",
    "amend",
    dir,
    "1",
    "--add-file",
    "NOTES.md",
    "--reason",
    "r",
    "--persist",
    "--json",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const rec = parseJsonOut(r);
  assert.equal(rec.persisted, true);
  assert.equal(rec.clause, "files_exist");
  assert.ok((await Deno.readTextFile(`${dir}/prompts/01_first.prompt.md`)).includes("    - NOTES.md\n"));
  // The allow-list covers every file the contract requires the session to create (else: unsatisfiable_contract).
  const h = await runCli([
    "control",
    "amend",
    dir,
    "1",
    ...["--add-path", "README.md", "--add-path", "NOTES.md", "--add-path", "docs/"],
    ...["--reason", "r", "--persist"],
  ]);
  assert.match(h.stdout, /\nwritten back to prompts\/01_first\.prompt\.md; commit it\n$/);
});

Deno.test("control amend/relax usage errors and validation exit codes", async () => {
  await using tmp = await tempDir();
  const dir = await writeDemoPacket(tmp.path);
  const cases: [string[], number, string][] = [
    [["control", "amend", dir, "1", "--add-file", "x"], 2, "reason_required"],
    [["control", "amend", dir, "1", "--reason", "r"], 2, "no_entries"],
    [["control", "amend", dir, "9", "--reason", "r", "--add-file", "x"], 4, "prompt_not_found"],
    [["control", "amend", dir, "1", "--reason", "r", "--add-file", "../x"], 2, "path_escapes_repo"],
    [["control", "relax", dir, "1", "--reason", "r", "--confirm"], 2, "missing_argument"],
    [["control", "relax", dir, "1", "--drop", "contains", "--reason", "r"], 2, "confirmation_required"],
    [["control", "relax", dir, "1", "--drop", "contains", "--confirm"], 2, "reason_required"],
    [["control", "relax", dir, "1", "--drop", "bogus", "--confirm", "--reason", "r"], 2, "unknown_clause"],
    [["control", "contract", dir, "9"], 4, "prompt_not_found"],
  ];
  for (const [args, exit, codeName] of cases) {
    const r = await runCli([...args, "--json"]);
    assert.equal(r.code, exit, `${args.join(" ")}: ${r.stderr}`);
    assert.equal((parseJsonOut(r) as { error: { code: string } }).error.code, codeName, args.join(" "));
  }
  const store = storeRootForPacket(dir);
  assert.equal(
    await Deno.stat(storePaths(store).amendments).then(() => true, () => false),
    false,
    "nothing written",
  );
});
