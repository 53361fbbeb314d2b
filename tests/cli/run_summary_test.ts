/**
 * Seeing why and the run summary (docs/run-summary.md), black-box on the simulated provider: retry, repair and
 * `Verification failed` lines name the failing checks with a command's output tail; a repair's preview shows its
 * repair section; the run ends with the summary table; `run --json`'s last line is the run-summary document, the same
 * bytes as `status --summary --json`; `replay` names paths, not report ids.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { tempDir } from "../support/fs.ts";
import { makePacket, promptFile } from "../run/support.ts";
import { failedCommandCheck, missingFileCheck } from "../support/check_fixtures.ts";

const CHECK = "printf 'line one\\n'; test -f b.txt || { echo 'b.txt is missing' >&2; exit 3; }";

/** 01 repaired (a file and a command fail first), 02 retried after capacity, 03 fails for good, 04 never runs. */
async function packet(root: string): Promise<string> {
  return await makePacket(root, {
    "01_a.prompt.md": promptFile(
      "1",
      `verify:
  files_exist: [a.txt, b.txt]
  commands:
    - ${JSON.stringify(CHECK)}
simulate:
  attempts:
    - writes: [{path: a.txt}]
      messages: [half]
    - writes: [{path: b.txt}]
      messages: [fixed]`,
    ),
    "02_b.prompt.md": promptFile(
      "2",
      `verify:
  files_exist: [c.txt]
simulate:
  attempts:
    - error: {kind: provider_capacity, message: "Selected model is at capacity."}
    - writes: [{path: c.txt}]`,
    ),
    "03_c.prompt.md": promptFile(
      "3",
      `verify:
  files_exist: [never.txt]
recovery: {repair: {enabled: false}}
simulate:
  attempts:
    - messages: [nothing written]`,
    ),
    "04_d.prompt.md": promptFile(
      "4",
      "verify:\n  files_exist: [d.txt]\nsimulate:\n  attempts:\n    - writes: [{path: d.txt}]",
    ),
  });
}

Deno.test("run names the failing checks under retry, repair and failure lines and ends with the summary table", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stderr);
  const out = r.stdout;
  assert.ok(!out.includes("\x1b"), "no colour without a TTY");
  assert.ok(
    out.includes(
      [
        "Repairing prompt 01 (repair 1 of 2)… — 2 checks failed:",
        "  ✗ files_exist b.txt: missing",
        `  ✗ commands ${CHECK}: exit 3 (expected 0)`,
        "      │ line one",
        "      │ b.txt is missing",
        "=====",
      ].join("\n"),
    ),
    out,
  );
  // The repair attempt's preview: the original prompt, then its repair section (not cut off at "### Last error").
  assert.ok(
    out.includes(
      [
        "Prompt preview (first 10 lines):",
        "  # Prompt 1",
        "",
        "  Do the work of prompt 1.",
        "",
        "Repair section (appended to the prompt):",
        "  ## Repair pass 1 of 2",
        "  ### Last error",
      ].join("\n"),
    ),
    out,
  );
  assert.match(out, / {2}### Unmet checks\n {2}- files_exist#2\n {4}path: b\.txt\n {2}- commands#1\n/);
  assert.ok(
    out.includes(
      "Retrying prompt 02 after provider_capacity (attempt 2, in 0.0s)… — Selected model is at capacity.\n" +
        "  ✗ files_exist c.txt: missing\n",
    ),
    out,
  );
  assert.ok(out.includes("Verification failed for prompt 03\n  ✗ files_exist never.txt: missing\n"), out);
  // The summary table is the end of stdout.
  const table = out.slice(out.lastIndexOf("\nRun ") + 1).split("\n");
  assert.match(
    table[0]!,
    /^Run \S+ failed in \S+ · 4 prompts: 2 completed, 1 failed, 1 not run · 5 attempts \(3 run, 1 retry, 1 repair\) · exit 1$/,
  );
  assert.match(table[1]!, /^ {2}prompt +attempts +result +commit +time +notes$/);
  assert.match(table[2]!, /^ {2}01 Prompt 1 +run → repair +completed +[0-9a-f]{8} +\S+$/);
  assert.match(table[3]!, /^ {2}02 Prompt 2 +run → retry +completed +[0-9a-f]{8} +\S+$/);
  assert.match(table[4]!, /^ {2}03 Prompt 3 +run +verification failed +— +\S+$/);
  assert.match(table[5]!, /^ {2}04 Prompt 4 +— +not run +— +—$/);
  assert.equal(table[6], "", "the table ends stdout");
  assert.equal(table.length, 7);
  assert.match(r.stderr, /error: run failed: prompt 03: verification failed: file_exists never\.txt: missing\n$/);
});

Deno.test("run --json ends with the run-summary document; status --summary --json prints the same bytes", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const r = await runCli(["run", pkt, "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const last = r.stdout.trimEnd().split("\n").at(-1)!;
  const doc = JSON.parse(last);
  assert.equal(doc.type, "run_summary");
  assert.equal(doc.schema, "prompt_runner.run_summary/1");
  assert.equal(doc.status, "failed");
  assert.equal(doc.exit_code, 1);
  assert.equal(doc.packet, "scenario");
  assert.ok(doc.duration_ms >= 0);
  assert.deepEqual(doc.counts, {
    prompts: 4,
    completed: 2,
    failed: 1,
    blocked: 0,
    interrupted: 0,
    not_run: 1,
    running: 0,
    attempts: 5,
    run: 3,
    retry: 1,
    repair: 1,
    steered: 0,
    amended: 0,
    vacuous: 0,
  });
  const [p1, p2, p3, p4] = doc.prompts;
  assert.deepEqual(doc.prompts.map((p: { id: string }) => p.id), ["01", "02", "03", "04"]);
  assert.equal(p1.attempts, 2);
  assert.equal(p1.path, "run → repair");
  assert.deepEqual(p1.history.map((a: { mode: string; decision: string }) => [a.mode, a.decision]), [
    ["run", "repair"],
    ["repair", "complete"],
  ]);
  assert.deepEqual(p1.history[0].verification, { status: "fail", items: 3, passed: 1, failed: 2, faulted: 0 });
  assert.deepEqual(p1.history[0].checks, [
    missingFileCheck("b.txt"),
    failedCommandCheck(CHECK, "exit 3 (expected 0)", ["line one", "b.txt is missing"]),
  ]);
  assert.equal(p1.commits.length, 1);
  assert.equal(p1.commits[0].repo, "app");
  assert.equal(p1.commits[0].short, p1.commits[0].sha.slice(0, 8));
  assert.ok(p1.duration_ms >= p1.history[0].duration_ms);
  assert.deepEqual(p2.history.map((a: { mode: string }) => a.mode), ["run", "retry"]);
  assert.equal(p2.history[0].failure_class, "provider_capacity");
  assert.equal(p2.history[0].failure_message, "Selected model is at capacity.");
  assert.equal(p2.history[0].retry_delay_ms, 0);
  assert.equal(p3.status, "verification_failed");
  assert.match(p3.reason, /never\.txt/);
  assert.deepEqual(p3.commits, []);
  assert.equal(p4.status, "not_run");
  assert.deepEqual([p4.attempts, p4.history, p4.path, p4.duration_ms], [0, [], "", null]);
  // Every earlier key of the line is still there, with its old meaning.
  assert.equal(doc.run_id, JSON.parse(r.stdout.split("\n")[0]!).run_id);
  assert.equal(typeof doc.store_root, "string");
  assert.deepEqual(doc.vacuous, []);
  assert.equal(p1.failure_class, null);
  // Built from the records: the finished run's status gives the same document.
  const status = await runCli(["status", pkt, "--summary", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(status.stdout, last + "\n");
  const human = await runCli(["status", pkt, "--summary"]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^Run \S+ failed in \S+ · 4 prompts: 2 completed, 1 failed, 1 not run · /);
  assert.match(human.stdout, /\n {2}04 Prompt 4 +— +not run +— +—\n$/);
});

Deno.test("replay names the failing checks by clause and path, with the command's output tail", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  assert.equal((await runCli(["run", pkt])).code, 1);
  const r = await runCli(["replay", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stdout.includes(
      [
        "Verification failed for prompt 01",
        "  ✗ files_exist b.txt: missing",
        `  ✗ commands ${CHECK}: exit 3 (expected 0)`,
        "      │ line one",
        "      │ b.txt is missing",
      ].join("\n"),
    ),
    r.stdout,
  );
  assert.ok(r.stdout.includes("Verification failed for prompt 03\n  ✗ files_exist never.txt: missing\n"), r.stdout);
  assert.doesNotMatch(r.stdout, /files_exist#\d/);
});

Deno.test("status --summary before any run says so; --summary conflicts with --watch", async () => {
  await using dir = await tempDir();
  const pkt = await packet(dir.path);
  const human = await runCli(["status", pkt, "--summary"]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^No run recorded for \S+ yet\.\n$/);
  const json = await runCli(["status", pkt, "--summary", "--json"]);
  assert.equal(json.stdout, "null\n");
  const both = await runCli(["status", pkt, "--summary", "--watch"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--summary conflicts with --watch/);
});

Deno.test("run --remaining --json with nothing left prints an empty run-summary document", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
  });
  assert.equal((await runCli(["run", pkt])).code, 0);
  const r = await runCli(["run", pkt, "--remaining", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!);
  assert.equal(doc.type, "run_summary");
  assert.equal(doc.schema, "prompt_runner.run_summary/1");
  assert.deepEqual([doc.run_id, doc.status, doc.exit_code, doc.prompts, doc.counts.prompts], [
    null,
    "completed",
    0,
    [],
    0,
  ]);
});

Deno.test("the summary marks an amended prompt, from its result's amendments", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}, {path: x.txt}]",
    ),
  });
  const amend = await runCli(["control", "amend", pkt, "01", "--add-file", "x.txt", "--reason", "x is needed too"]);
  assert.equal(amend.code, 0, amend.stderr);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\n {2}01 Prompt 1 +run +completed +[0-9a-f]{8} +\S+ +amended ×1\n$/);
  const doc = JSON.parse((await runCli(["status", pkt, "--summary", "--json"])).stdout);
  assert.deepEqual([doc.prompts[0].amended, doc.prompts[0].amendment_count, doc.counts.amended], [true, 1, 1]);
});
