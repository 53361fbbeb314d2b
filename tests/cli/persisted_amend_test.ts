/**
 * Amendments always visible (docs/amendments.md): a persisted amendment shows in `control contract` (text and
 * `--json`), the prompt result and the commit trailer, and the run it amended still resumes. Amendments that would
 * change nothing or could never pass are refused with the reason, and nothing is written.
 */
import assert from "node:assert/strict";
import { parseJsonOut, runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { history, makePacket, promptFile, readPrompts } from "../run/support.ts";
import { storePaths } from "../../src/store/paths.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

async function lastMessage(repo: string): Promise<string> {
  const out = await new Deno.Command("git", { args: ["log", "-1", "--format=%B"], cwd: repo, stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

async function currentRunId(pkt: string): Promise<string> {
  return JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/runs/current.json`)).run_id;
}

Deno.test("a persisted amendment is visible in control contract, the result and the trailer, and its run resumes", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [a.txt]
simulate:
  attempts:
    - error: {kind: approval_denied, message: denied}
    - writes: [{path: a.txt}, {path: b.txt}]`,
    ),
  });
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1, first.stderr);
  const runId = await currentRunId(pkt);

  const amend = await runCli(["control", "amend", pkt, "1", "--add-file", "b.txt", "--reason", "b too", "--persist"]);
  assert.equal(amend.code, 0, amend.stderr);
  assert.match(await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`), /- b\.txt/);

  const text = await runCli(["control", "contract", pkt, "1"]);
  assert.equal(text.code, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /no amendments/);
  assert.match(text.stdout, /post_failure +add files_exist by \S+ — b too \(persisted\)/);
  const json = parseJsonOut(await runCli(["control", "contract", pkt, "1", "--json"]));
  const listed = json.amendments as { persisted: boolean; clause: string }[];
  assert.equal(listed.length, 1);
  assert.equal(listed[0]!.persisted, true);
  assert.deepEqual((json.enforced as Record<string, string[]>).files_exist, ["a.txt", "b.txt"], "applied once");

  const plan = parseJsonOut(await runCli(["plan", pkt, "--remaining", "--json"]));
  assert.deepEqual(plan.run, { action: "resume", run_id: runId }, "plan agrees with run");
  const resumed = await runCli(["run", pkt, "--remaining"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.doesNotMatch(resumed.stderr, /packet changed since run/);
  assert.equal(await currentRunId(pkt), runId, "the same run resumed");
  const p = (await readPrompts(pkt))["01"]!;
  assert.deepEqual(history(p), ["run:failed", "run:completed"]);
  assert.ok(p.attempts.every((a) => a.run_id === runId));
  assert.equal(p.result?.amended, true);
  assert.equal(p.result?.amendments_file, "amendments/01.jsonl");
  const recs = p.result?.amendments as { persisted: boolean; phase: string }[];
  assert.deepEqual(recs.map((r) => [r.persisted, r.phase]), [[true, "post_failure"]]);
  assert.match(await lastMessage(`${pkt}/app`), /Prompt-Runner-Amended: 1 \(post_failure\)/);

  const store = `${pkt}/.prompt_runner`;
  const journal = parseJsonLines<{ type: string; data: Record<string, unknown> }>(
    await Deno.readTextFile(`${storePaths(store).runDir(runId)}/journal.jsonl`),
  );
  const amended = journal.find((e) => e.type === "packet_amended");
  assert.ok(amended, "the run journals the fingerprint change");
  const record = JSON.parse(await Deno.readTextFile(`${storePaths(store).runDir(runId)}/run.json`));
  assert.equal(record.packet_fingerprint, amended.data.to, "the run records the new fingerprint");
});

Deno.test("a packet changed by hand after a persisted amendment still starts a new run", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - error: {kind: approval_denied}",
    ),
  });
  assert.equal((await runCli(["run", pkt])).code, 1);
  const runId = await currentRunId(pkt);
  const amend = await runCli(["control", "amend", pkt, "1", "--add-file", "b.txt", "--reason", "b", "--persist"]);
  assert.equal(amend.code, 0, amend.stderr);
  const file = `${pkt}/prompts/01_a.prompt.md`;
  await Deno.writeTextFile(file, (await Deno.readTextFile(file)).replace("Do the work", "Do other work"));
  const r = await runCli(["run", pkt, "--remaining", "--no-commit"]);
  assert.match(r.stderr, /packet changed since run /);
  assert.notEqual(await currentRunId(pkt), runId);
});

Deno.test("amend refuses an entry already required and an amendment that makes the contract unsatisfiable", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [a.txt]\n  changed_paths_only: [a.txt, src/]"),
  });
  const amendments = storePaths(`${pkt}/.prompt_runner`).amendmentsFile("01");
  const before = await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`);
  const cases: [string[], string, RegExp][] = [
    [["--add-file", "a.txt"], "entry_already_required", /files_exist already requires "a\.txt"; nothing would change/],
    [["--add-file", "./a.txt"], "entry_already_required", /already requires/],
    [["--add-path", "src/"], "entry_already_required", /changed_paths_only already requires/],
    [
      ["--add-file", "docs/new.md"],
      "unsatisfiable_contract",
      /files_exist docs\/new\.md must be created, but changed_paths_only allows only a\.txt, src\/ in app/,
    ],
  ];
  for (const [flags, code, message] of cases) {
    for (const persist of [[], ["--persist"]]) {
      const r = await runCli(["control", "amend", pkt, "1", ...flags, "--reason", "r", ...persist, "--json"]);
      assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
      assert.match(r.stdout + r.stderr, new RegExp(`"code":\\s*"${code}"`));
      assert.match(r.stderr, message);
    }
  }
  assert.equal(await Deno.stat(amendments).then(() => true, () => false), false, "nothing was recorded");
  assert.equal(await Deno.readTextFile(`${pkt}/prompts/01_a.prompt.md`), before, "the prompt file is untouched");
  // Allowed: a file inside the allow-list, and an existing file (no change needed to satisfy it).
  assert.equal((await runCli(["control", "amend", pkt, "1", "--add-file", "src/x.ts", "--reason", "r"])).code, 0);
  assert.equal((await runCli(["control", "amend", pkt, "1", "--add-file", "README.md", "--reason", "r"])).code, 0);
  // Narrowing the allow-list with relax --replace is checked the same way.
  const relax = await runCli([
    "control",
    "relax",
    pkt,
    "1",
    ...["--replace", "changed_paths_only", "--entry", "a.txt", "--reason", "r", "--confirm"],
  ]);
  assert.equal(relax.code, 2, relax.stderr);
  assert.match(relax.stderr, /src\/x\.ts must be created, but changed_paths_only allows only a\.txt in app/);
});
