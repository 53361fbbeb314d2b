import assert from "node:assert/strict";
import { initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { parseJsonOut, runCli } from "../support/cli.ts";

/** A packet `demo` with repo `app` and two prompts: 01 passes, 02 misses a file. */
async function makePacket(root: string): Promise<string> {
  await initRepo(`${root}/app`, { "README.md": "# app\n", "hello.txt": "hello\n" });
  const packet = `${root}/demo`;
  await writeFiles(packet, {
    "prompt_runner_packet.md":
      "---\nname: demo\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app:\n    path: ../app\n    default: true\n---\n",
    "prompts/01_create_hello.prompt.md": [
      "---",
      "id: 1",
      "verify:",
      "  files_exist: [hello.txt]",
      "  contains:",
      "    - {path: hello.txt, text: hello}",
      "---",
      "# Create hello",
      "",
    ].join("\n"),
    "prompts/02_meta.prompt.md": [
      "---",
      "id: 2",
      "verify:",
      "  files_exist: [hello.txt, lib/a.ex]",
      "  commands:",
      "    - {exec: git, args: [status, --short], timeout_ms: 10000}",
      "---",
      "# Meta",
      "",
    ].join("\n"),
  });
  return packet;
}

Deno.test("verify prints failing items and the count line, exits 1, and records manual verifications", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  const r = await runCli(["verify", packet]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "  ✗ 02 files_exist lib/a.ex: missing\nVerified 2 prompts: 1 failed, 0 faulted\n");
  const lines = (await Deno.readTextFile(`${packet}/.prompt_runner/verifications.jsonl`)).trim().split("\n");
  assert.deepEqual(lines.map((l) => [JSON.parse(l).prompt, JSON.parse(l).source, JSON.parse(l).status]), [
    ["01", "manual", "pass"],
    ["02", "manual", "fail"],
  ]);
  await assert.rejects(Deno.stat(`${packet}/.prompt_runner/progress.log`));
});

Deno.test("verify IDS --json prints one verify/v1 document with full reports and exits 0 on pass", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  const r = await runCli(["verify", packet, "1", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = parseJsonOut(r);
  assert.equal(doc.schema, "prompt_runner.verify/v1");
  assert.equal(doc.pass, true);
  assert.equal(doc.prompts, 1);
  assert.deepEqual(doc.failed, []);
  assert.deepEqual(doc.faulted, []);
  const reports = doc.reports as Record<string, unknown>[];
  assert.equal(reports.length, 1);
  assert.equal(reports[0]!.schema, "prompt_runner.verify_report/v1");
  assert.equal(reports[0]!.source, "manual");
  assert.deepEqual(reports[0]!.counts, { items: 2, passed: 2, failed: 0, faulted: 0 });
});

Deno.test("verify folds amendments from the store root into the enforced contract", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  await writeFiles(`${packet}/.prompt_runner/amendments`, {
    "01.jsonl": JSON.stringify({
      id: "am-1",
      at: "2026-11-30T12:10:03.201Z",
      prompt: "01",
      author: "ada",
      reason: "needs notes",
      phase: "pre_verify",
      direction: "add",
      clause: "files_exist",
      operation: "add",
      entries: ["NOTES.md"],
      run_id: null,
      persisted: false,
      prompt_file: "prompts/01_create_hello.prompt.md",
    }) + "\n",
  });
  const r = await runCli(["verify", packet, "01", "--json"]);
  assert.equal(r.code, 1);
  const doc = parseJsonOut(r);
  assert.deepEqual(doc.failed, ["01"]);
  const report = (doc.reports as Record<string, unknown>[])[0]!;
  assert.deepEqual(report.failures, ["files_exist#2"]);
  assert.equal((report.amendments as unknown[]).length, 1);
});

Deno.test("verify reports a faulted prompt separately", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  await writeFiles(packet, {
    "prompts/03_fault.prompt.md":
      "---\nid: 3\nverify:\n  commands:\n    - {exec: definitely-not-a-real-tool-x9, timeout_ms: 1000}\n---\n# Fault\n",
  });
  const r = await runCli(["verify", packet, "3"]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    "  ✗ 03 commands definitely-not-a-real-tool-x9: executable not found on PATH: definitely-not-a-real-tool-x9 (fault)\n" +
      "Verified 1 prompt: 0 failed, 1 faulted\n",
  );
});

Deno.test("verify with an unknown prompt id exits 4 with a JSON error", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  const r = await runCli(["verify", packet, "9", "--json"]);
  assert.equal(r.code, 4);
  const doc = parseJsonOut(r);
  assert.equal((doc.error as Record<string, unknown>).code, "unknown_prompt");
  assert.match(r.stderr, /^error: unknown prompt 9/);
});

Deno.test("verify names a failing command and shows the tail of its output, sanitized; --verbose shows more", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  // 12 numbered lines, then one with an ANSI colour, a tab and a BEL, then the failure on stderr; exit 3.
  const script = "for i in $(seq 1 12); do echo out-$i; done; printf '\\033[31mred\\033[0m\\tTAB\\a\\n'; " +
    "echo 'gone wrong' >&2; exit 3";
  await writeFiles(packet, {
    "prompts/03_cmd.prompt.md": `---\nid: 3\nverify:\n  commands:\n    - ${JSON.stringify(script)}\n---\n# Cmd\n`,
  });
  const r = await runCli(["verify", packet, "3"]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    [
      `  ✗ 03 commands ${script.replaceAll("\t", "  ")}: exit 3 (expected 0)`,
      "      … (6 earlier lines)",
      ...[7, 8, 9, 10, 11, 12].map((i) => `      │ out-${i}`),
      "      │ red  TAB\\x07",
      "      │ gone wrong",
      "Verified 1 prompt: 1 failed, 0 faulted",
      "",
    ].join("\n"),
  );
  const verbose = await runCli(["verify", packet, "3", "--verbose"]);
  assert.equal(verbose.code, 1);
  const shown = verbose.stdout.split("\n").filter((l) => l.startsWith("      │ "));
  assert.deepEqual(shown.slice(0, 12), Array.from({ length: 12 }, (_, i) => `      │ out-${i + 1}`));
  assert.equal(shown.length, 14, "every output line within the verbose bound");
  assert.ok(!verbose.stdout.includes("\x1b") && !verbose.stdout.includes("\x07"), "no raw control characters");
  assert.doesNotMatch(verbose.stdout, /earlier lines/);
});

Deno.test("verify refuses (exit 3) a prompt whose contract has a misspelt clause instead of passing without it", async () => {
  await using dir = await tempDir();
  const packet = await makePacket(dir.path);
  await Deno.writeTextFile(
    `${packet}/prompts/01_create_hello.prompt.md`,
    "---\nid: 1\nverify:\n  files_exist: [hello.txt]\n  contans:\n    - {path: hello.txt, text: goodbye}\n---\n# Create hello\n",
  );
  const r = await runCli(["verify", packet, "1"]);
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(r.stderr, /prompts\/01_create_hello\.prompt\.md: verify\.contans: "contans" is not a verify clause/);
});
