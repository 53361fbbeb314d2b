/**
 * A prompt's hiding baseline survives its runner (docs/reference/contract.md §5.1, "Across an interrupt"): it is
 * recorded on the prompt's state entry before the session starts, and a run that continues the interrupted attempt
 * compares with it — not with the state the interrupted session left, which would take whatever it hid as the user's.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { commitCount, makePacket, promptFile, readPrompts } from "./support.ts";
import { keptHiding } from "../../src/run/prompt_guard.ts";
import type { HidingState } from "../../src/contract/mod.ts";
import type { PromptState } from "../../src/run/state.ts";

/** A write of the simulated agent (YAML flow map). */
function write(path: string, text: string, append = false): string {
  return `{path: ${JSON.stringify(path)}, text: ${JSON.stringify(text)}${append ? ", append: true" : ""}}`;
}

/** One prompt judged by `changed_paths_only: [a.txt]` whose agent writes a.txt and then `hiding` writes. */
function prompt(hiding: string[]): string {
  const all = [write("a.txt", "a\n"), ...hiding].map((w) => `        - ${w}`).join("\n");
  return promptFile(
    "1",
    "verify:\n  files_exist: [a.txt]\n  changed_paths_only: [a.txt]\nrecovery: {repair: {enabled: false}}\n" +
      `simulate:\n  attempts:\n    - writes:\n${all}`,
  );
}

type Entry = PromptState;

async function entry(pkt: string): Promise<Entry> {
  return (await readPrompts(pkt))["01"] as unknown as Entry;
}

for (const point of ["simulated.after_write@3", "attempt.after_session", "verify.after_checks"]) {
  Deno.test(`killed at ${point} after its session hid work: the resumed prompt fails, nothing is committed`, async () => {
    await using dir = await tempDir();
    const pkt = await makePacket(dir.path, {
      "01_a.prompt.md": prompt([write(".git/info/exclude", "secret.txt\n", true), write("secret.txt", "hidden\n")]),
    });
    const app = `${pkt}/app`;
    const commits = await commitCount(app);
    const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: point } });
    assert.equal(crashed.code, 137, crashed.stderr);
    const left = await entry(pkt);
    const runId = left.attempts.at(-1)!.run_id;
    assert.equal(left.hiding_baseline?.run_id, runId, "recorded by the run of the interrupted attempt");
    const root = await Deno.realPath(app);
    const recorded = left.hiding_baseline!.roots[root]!;
    assert.ok(!(recorded.sources.find((s) => s.kind === "info/exclude")?.text ?? "").includes("secret.txt"));

    const resumed = await runCli(["run", pkt]);
    assert.equal(resumed.code, 1, resumed.stdout + resumed.stderr);
    assert.match(
      resumed.stderr,
      /changed_paths_only[^\n]*repo app: what git status hides changed during the prompt: [^\n]*info\/exclude changed \(added "secret\.txt"\)/,
    );
    assert.equal(await commitCount(app), commits, "nothing is committed");
    const after = await entry(pkt);
    assert.equal(after.status, "verification_failed");
    assert.equal(after.hiding_baseline, undefined, "dropped once the prompt ended");
  });
}

Deno.test("killed after its session: an exclude pattern already there when the prompt started still passes on resume", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": prompt([write("notes.txt", "mine\n")]) });
  const app = `${pkt}/app`;
  await Deno.writeTextFile(`${app}/.git/info/exclude`, "notes.txt\n", { append: true });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(crashed.code, 137, crashed.stderr);
  const resumed = await runCli(["run", pkt]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.doesNotMatch(resumed.stderr, /hiding baseline/);
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "a.txt");
  assert.equal((await entry(pkt)).hiding_baseline, undefined);
});

Deno.test("a completed prompt leaves no hiding baseline on its entry; a contract without git clauses records none", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": prompt([]),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt, text: b}]",
    ),
  });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session@2" } });
  assert.equal(crashed.code, 137, crashed.stderr);
  const prompts = await readPrompts(pkt);
  const first = prompts["01"] as unknown as Entry;
  const second = prompts["02"] as unknown as Entry;
  assert.equal(first.status, "completed");
  assert.equal(first.hiding_baseline, undefined);
  assert.equal(second.hiding_baseline, undefined, "no git clause: nothing read, nothing recorded");
});

const state = (mark: string): HidingState => ({
  flags: { count: 0, digest: mark, paths: [] },
  sources: [],
  config: {},
  ignoreFiles: {},
});

Deno.test("keptHiding: the interrupted attempt's run's record, root by root; anything else is missing", () => {
  const attempts = [{ run_id: "r2" }] as unknown as Entry["attempts"];
  const base = { status: "interrupted", updated_at: "", attempts } as Entry;
  const own = { ...base, hiding_baseline: { run_id: "r2", roots: { "/a": state("a"), "/b": state("b") } } };
  assert.deepEqual(keptHiding(own, ["/a", "/c"]), { roots: { "/a": state("a") }, missing: ["/c"] });
  const older = { ...base, hiding_baseline: { run_id: "r1", roots: { "/a": state("a") } } };
  assert.deepEqual(keptHiding(older, ["/a"]), { roots: {}, missing: ["/a"] }, "a record of another run is not its");
  assert.deepEqual(keptHiding(base, ["/a"]), { roots: {}, missing: ["/a"] });
  assert.deepEqual(keptHiding(own, ["__proto__"]), { roots: {}, missing: ["__proto__"] });
  assert.deepEqual(keptHiding(own, []), { roots: {}, missing: [] });
});

Deno.test("resuming without the interrupted run's record says so, naming the repo", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": prompt([]) });
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(crashed.code, 137, crashed.stderr);
  // As a runner from before the record left it: state.json without the field, nothing pending.
  const store = `${pkt}/.prompt_runner`;
  const doc = JSON.parse(await Deno.readTextFile(`${store}/state.json`).catch(() => '{"prompts":{}}'));
  const merged = await readPrompts(pkt);
  const entryNow = merged["01"] as unknown as Record<string, unknown>;
  delete entryNow.hiding_baseline;
  doc.prompts = { ...doc.prompts, "01": entryNow };
  await Deno.writeTextFile(`${store}/state.json`, JSON.stringify(doc));
  await Deno.remove(`${store}/state.pending.jsonl`).catch(() => {});
  const resumed = await runCli(["run", pkt]);
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  const root = await Deno.realPath(`${pkt}/app`);
  assert.match(
    resumed.stderr,
    new RegExp(`warning: prompt 01 continues an interrupted attempt whose run recorded no hiding baseline for ${root}`),
  );
});
