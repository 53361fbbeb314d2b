/**
 * The next prompt's baseline read starts when the current prompt's work is final and overlaps its last records
 * (src/run/baseline_prefetch.ts, docs/keep_going.md "When the baseline is read"). Black-box runs read the order of
 * the reads and the journal writes from the runner's stage trace (src/util/stage_trace.ts), and check that every
 * commit still holds only its own prompt's files — a read made too early (before a commit, or before a failed
 * prompt's reset) would put the previous prompt's work into the next prompt's baseline or reset.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "./support.ts";
import { BaselinePrefetch } from "../../src/run/baseline_prefetch.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { canonicalPath } from "../../src/contract/paths.ts";
import { branchStatus } from "../../src/contract/git.ts";

/** `stage key` of each traced line, in order. */
async function traced(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(file);
  return text.trim().split("\n").map((l) => l.split(" ")).filter((p) =>
    /^(baseline_|journal_|verification_)/.test(p[1]!)
  )
    .map((p) => `${p[1]} ${p[2]}`);
}

function writes(id: string, file: string, extra = "", checks = ""): string {
  return promptFile(
    id,
    `${extra}verify:\n  files_exist: [${file}]\n${checks}simulate:\n  attempts:\n    - writes: [{path: ${file}, text: ${id}}]`,
  );
}

/** Files changed by a commit (sorted). */
async function filesOf(repo: string, rev: string): Promise<string[]> {
  const out = await git(repo, "show", "--name-only", "--format=", rev);
  return out.split("\n").filter((l) => l !== "").sort();
}

Deno.test("each next prompt's baseline read starts before the previous prompt's journal entry; commits stay whole", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt"),
    "02_b.prompt.md": writes("2", "b.txt"),
    "03_c.prompt.md": writes("3", "c.txt"),
  });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await traced(trace), [
    "baseline_read 01", // the first prompt reads its own
    "verification_finished 01", // a commit follows: nothing is read beside the verification
    "baseline_read_ahead 02", // started after 01's commit, before 01's journal entry
    "journal_prompt_finished 01",
    "verification_finished 02",
    "baseline_read_ahead 03",
    "journal_prompt_finished 02",
    "verification_finished 03",
    "journal_prompt_finished 03", // the last prompt starts no read
  ]);
  const app = `${pkt}/app`;
  assert.deepEqual(await filesOf(app, "HEAD"), ["c.txt"]);
  assert.deepEqual(await filesOf(app, "HEAD~1"), ["b.txt"]);
  assert.deepEqual(await filesOf(app, "HEAD~2"), ["a.txt"]);
  assert.equal(await git(app, "status", "--porcelain", "--untracked-files=all"), "");
});

Deno.test("keep-going: a failed prompt's next read starts after its reset; a blocked prompt's read is dropped", async () => {
  await using dir = await tempDir();
  const failing = promptFile(
    "2",
    "verify:\n  files_exist: [never.txt]\nsimulate:\n  attempts:\n    - writes: [{path: junk.txt, text: j}, {path: README.md, text: overwritten}]",
  );
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt"),
    "02_b.prompt.md": failing,
    "03_c.prompt.md": writes("3", "c.txt"),
    "04_d.prompt.md": writes("4", "d.txt", "depends_on: [2]\n"),
    "05_e.prompt.md": writes("5", "e.txt"),
  });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt, "--keep-going"], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 1, r.stderr);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(
    ["01", "02", "03", "04", "05"].map((id) => prompts[id]?.status),
    ["completed", "verification_failed", "completed", "blocked_by_dependency", "completed"],
  );
  assert.deepEqual(await traced(trace), [
    "baseline_read 01",
    "verification_finished 01",
    "baseline_read_ahead 02",
    "journal_prompt_finished 01",
    "verification_finished 02",
    "verification_finished 02", // its two repair attempts
    "verification_finished 02",
    "baseline_read_ahead 03", // after 02's work was preserved and its repo reset
    "journal_prompt_finished 02",
    "verification_finished 03",
    "baseline_read_ahead 04", // 04 is then blocked and never takes it
    "journal_prompt_finished 03",
    "baseline_read_ahead 05", // after the blocked 04
    "journal_prompt_finished 04",
    "verification_finished 05",
    "journal_prompt_finished 05",
  ]);
  // Read before the reset, 03's baseline would hold 02's leftovers as the user's paths.
  assert.doesNotMatch(r.stdout, /Leaving the uncommitted paths/);
  for (const id of ["03", "05"]) {
    assert.equal((prompts[id] as { preexisting?: unknown }).preexisting, undefined, `${id} took none for the user's`);
  }
  const app = `${pkt}/app`;
  assert.deepEqual(await filesOf(app, "HEAD"), ["e.txt"]);
  assert.deepEqual(await filesOf(app, "HEAD~1"), ["c.txt"]);
  assert.deepEqual(await filesOf(app, "HEAD~2"), ["a.txt"]);
  assert.equal(await git(app, "status", "--porcelain", "--untracked-files=all"), "", "the work tree is clean");
});

Deno.test("BaselinePrefetch: reads only for the expected prompt, once, and hands them to that prompt only", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/pkt/app`;
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt"),
    "02_b.prompt.md": writes("2", "b.txt"),
  });
  const packet = await loadPacket(pkt);
  const [p1, p2] = packet.prompts;
  const read: string[] = [];
  const ahead = new BaselinePrefetch((path) => {
    read.push(path);
    return branchStatus(path);
  });
  ahead.start(); // nothing expected yet
  assert.equal(ahead.take(p1!.id), null);
  assert.equal(read.length, 0);

  ahead.expect(packet, p2!);
  ahead.start();
  ahead.start(); // only the first call after expect reads
  assert.equal(read.length, 1);
  assert.equal(ahead.take(p1!.id), null, "another prompt never gets them");
  assert.equal(ahead.take(p2!.id), null, "a mismatched take dropped them");

  await Deno.writeTextFile(`${app}/late.txt`, "x");
  ahead.expect(packet, p2!);
  ahead.start();
  assert.equal(read.length, 2);
  const reads = ahead.take(p2!.id);
  assert.ok(reads);
  assert.deepEqual([...reads.status.keys()], [canonicalPath(app)]);
  assert.equal(reads.hiding.size, 0, "a contract without git clauses reads no hiding state");
  const st = await reads.status.get(canonicalPath(app))!;
  assert.ok(st.ok);
  assert.equal(st.status.oid, await git(app, "rev-parse", "HEAD"));
  assert.deepEqual(st.status.entries.map((e) => e.path), ["late.txt"]);
  assert.equal(ahead.take(p2!.id), null, "taken once");

  ahead.expect(packet, null);
  ahead.start();
  assert.equal(read.length, 2, "no next prompt: nothing started");
});

/** `preexisting` of a prompt's state entry: repo → the paths kept out of its work. */
function preexistingOf(entry: unknown): Record<string, string[]> | undefined {
  return (entry as { preexisting?: { repos: Record<string, string[]> } }).preexisting?.repos;
}

Deno.test("--no-commit: the next prompt's read starts beside the verification; its baseline holds the earlier work", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt"),
    "02_b.prompt.md": writes("2", "b.txt", "", "  changed_paths_only: [b.txt]\n"),
  });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt, "--no-commit"], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(await traced(trace), [
    "baseline_read 01",
    "baseline_read_ahead 02", // no commit follows: the work was final when the session ended
    "verification_finished 01",
    "journal_prompt_finished 01",
    "verification_finished 02",
    "journal_prompt_finished 02",
  ]);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(preexistingOf(prompts["02"]), { app: ["a.txt"] }, "01's uncommitted work is 02's baseline");
});

Deno.test("--no-commit: a read started beside a failed verification is dropped; the repair's work is in the next baseline", async () => {
  await using dir = await tempDir();
  const first = promptFile(
    "1",
    "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: other.txt, text: o}]\n" +
      "    - writes: [{path: a.txt, text: a}]",
  );
  const second = promptFile(
    "2",
    "verify:\n  files_exist: [b.txt]\n  changed_paths_only: [b.txt]\nsimulate:\n  attempts:\n" +
      "    - writes: [{path: b.txt, text: b}]",
  );
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": first, "02_b.prompt.md": second });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt, "--no-commit"], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual(await traced(trace), [
    "baseline_read 01",
    "baseline_read_ahead 02", // beside the first verification, which fails: dropped
    "verification_finished 01",
    "baseline_read_ahead 02", // read again beside the repair's verification
    "verification_finished 01",
    "journal_prompt_finished 01",
    "verification_finished 02",
    "journal_prompt_finished 02",
  ]);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["02"]?.status, "completed");
  // The dropped read was taken before the repair wrote a.txt: used, it would have made a.txt 02's change.
  assert.deepEqual(preexistingOf(prompts["02"]), { app: ["a.txt", "other.txt"] });
});

Deno.test("--no-commit: a contract that runs commands reads the next baseline only after its verification", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": writes("1", "a.txt", "", '  commands: ["touch generated.txt"]\n'),
    "02_b.prompt.md": writes("2", "b.txt"),
  });
  const trace = `${dir.path}/trace.txt`;
  const r = await runCli(["run", pkt, "--no-commit"], { env: { PROMPT_RUNNER_STAGE_TRACE: trace } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.deepEqual((await traced(trace)).slice(0, 3), [
    "baseline_read 01",
    "verification_finished 01", // the command may write into the repo: no read beside it
    "baseline_read_ahead 02",
  ]);
  const prompts = await readPrompts(pkt);
  assert.deepEqual(preexistingOf(prompts["02"]), { app: ["a.txt", "generated.txt"] });
});
