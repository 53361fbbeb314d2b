/**
 * What a failed prompt leaves hidden from `git status` is not taken as the user's (docs/reference/contract.md §5.1,
 * "Left by a failed prompt"): the failed prompt's entry records the repo's state before it, every later prompt whose git
 * clauses judge the repo is judged from that state — in the same run under `--keep-going`, and in later runs — and the
 * record goes once the repo is back at that state.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { waitFor } from "../support/wait.ts";
import { commitCount, makePacket, promptFile, readPrompts, readSnapshot } from "./support.ts";
import { StateStore } from "../../src/run/state.ts";
import { clearLeftHiding, leftHidingOf, recordLeftHiding } from "../../src/run/hiding_left.ts";
import { gitStatus, type HidingState, readHidingCore, verifyContract } from "../../src/contract/mod.ts";
import { HIDING_NOT_COMPARED } from "../../src/contract/clauses/git_clauses.ts";
import type { VerifyContext } from "../../src/contract/types.ts";
import type { PromptState } from "../../src/run/state.ts";

/** A write of the simulated agent (YAML flow map). */
function write(path: string, text: string, append = false): string {
  return `{path: ${JSON.stringify(path)}, text: ${JSON.stringify(text)}${append ? ", append: true" : ""}}`;
}

function writes(...ws: string[]): string {
  return `simulate:\n  attempts:\n    - writes:\n${ws.map((w) => `        - ${w}`).join("\n")}`;
}

const NO_REPAIR = "recovery: {repair: {enabled: false}}\n";

/** Prompt 01 fails its contract after its session added `secret.txt` to `.git/info/exclude`. */
const FAILS_HIDING = promptFile(
  "1",
  "verify:\n  files_exist: [missing.txt]\n  changed_paths_only: [a.txt]\n" + NO_REPAIR +
    writes(write("a.txt", "a\n"), write(".git/info/exclude", "secret.txt\n", true)),
);

async function entries(pkt: string): Promise<Record<string, PromptState>> {
  return await readPrompts(pkt) as unknown as Record<string, PromptState>;
}

Deno.test("--keep-going: the next prompt's work hidden by a failed prompt's exclude fails its clause, uncommitted", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": FAILS_HIDING,
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  files_exist: [b.txt, secret.txt]\n  changed_paths_only: [b.txt]\n" + NO_REPAIR +
        writes(write("b.txt", "b\n"), write("secret.txt", "outside its paths\n")),
    ),
  });
  const app = `${pkt}/app`;
  const commits = await commitCount(app);
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const runId = /Run (\S+) failed/.exec(r.stdout)![1]!;
  assert.match(
    r.stderr,
    new RegExp(
      `warning: repo app: what git status hides changed during the prompt: [^\\n]*added "secret\\.txt"[^\\n]*` +
        "prompt 01 failed[^\\n]*every later prompt whose git clauses judge repo app is judged from the state before " +
        "prompt 01 and fails",
    ),
  );
  assert.match(
    r.stderr,
    new RegExp(
      `changed_paths_only app: repo app: what git status hides changed since before prompt 01, which failed in run ` +
        `${runId} with it changed: \\.git/info/exclude changed \\(added "secret\\.txt"\\)`,
    ),
  );
  assert.equal(
    await commitCount(app),
    commits,
    "nothing is committed: prompt 02's commit would have left secret.txt out",
  );
  const state = await entries(pkt);
  assert.equal(state["02"]!.status, "verification_failed");
  const item = state["02"]!.result!.last_verifier!.items.find((i) => i.clause === "changed_paths_only")!;
  assert.equal(item.pass, false);
  assert.deepEqual((item as unknown as { hiding_changes: string[] }).hiding_changes, [
    '.git/info/exclude changed (added "secret.txt")',
  ]);
  const root = await Deno.realPath(app);
  const left = state["01"]!.hiding_left?.[root];
  assert.equal(left?.run_id, runId);
  const exclude = left!.before.sources.find((s) => s.kind === "info/exclude");
  assert.ok(exclude && !(exclude.text ?? "").includes("secret.txt"), "the state before prompt 01 is recorded");
  assert.equal(state["02"]!.hiding_left, undefined, "recorded once, on the prompt that left it");
});

Deno.test("a later run is judged from the recorded state until the change is undone; then the record goes", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": FAILS_HIDING,
    "02_b.prompt.md": promptFile(
      "2",
      judgedOnly("b.txt", NO_REPAIR) + writes(write("b.txt", "b\n")),
    ),
  });
  const app = `${pkt}/app`;
  const exclude = `${app}/.git/info/exclude`;
  const original = await Deno.readTextFile(exclude);
  const first = await runCli(["run", pkt]);
  assert.equal(first.code, 1, first.stdout + first.stderr);
  assert.ok((await Deno.readTextFile(exclude)).includes("secret.txt"), "the session's change is left in place");

  const again = await runCli(["run", pkt, "02"]);
  assert.equal(again.code, 1, again.stdout + again.stderr);
  assert.match(
    again.stderr,
    /what git status hides changed since before prompt 01, which failed in run \S+ with it changed/,
  );
  assert.ok((await entries(pkt))["01"]!.hiding_left, "kept across runs");

  await Deno.writeTextFile(exclude, original); // the operator undoes it
  const undone = await runCli(["run", pkt, "02"]);
  assert.equal(undone.code, 0, undone.stdout + undone.stderr);
  assert.match(undone.stdout, /Repo app: what prompt 01 left hidden from git status is undone/);
  assert.equal(await git(app, "show", "--name-only", "--format=", "HEAD"), "b.txt");
  assert.equal((await entries(pkt))["01"]!.hiding_left, undefined, "cleared");
});

Deno.test("a prompt whose clauses judge no git is not held back by the record", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": FAILS_HIDING,
    "02_b.prompt.md": promptFile("2", "verify:\n  files_exist: [b.txt]\n" + writes(write("b.txt", "b\n"))),
  });
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const state = await entries(pkt);
  assert.equal(state["02"]!.status, "completed");
  assert.ok(state["01"]!.hiding_left, "the record stays for the prompts that judge the repo");
});

const hidingState = (mark: string): HidingState => ({
  flags: { count: 0, digest: mark, paths: [] },
  sources: [],
  config: {},
  ignoreFiles: {},
});

Deno.test("hiding_left records: the first failure's state per root, found again after a reload, cleared by root", async () => {
  await using dir = await tempDir();
  const store = `${dir.path}/.prompt_runner`;
  await Deno.mkdir(store, { recursive: true });
  const state = await StateStore.open(store);
  for (const id of ["01", "02"]) await state.updatePrompt(id, (p) => Object.assign(p, { status: "failed" }));
  assert.deepEqual(leftHidingOf(state, ["/r", "/s"]), {});
  await recordLeftHiding(state, "01", "run-1", "/r", hidingState("before-01"));
  await recordLeftHiding(state, "02", "run-2", "/r", hidingState("before-02")); // /r is recorded: the older state stays
  await recordLeftHiding(state, "02", "run-2", "/s", { ...hidingState("s"), left_by: { prompt: "x", run_id: "y" } });
  await recordLeftHiding(state, "02", "run-2", "__proto__", hidingState("p"));
  const want = {
    "/r": { ...hidingState("before-01"), left_by: { prompt: "01", run_id: "run-1" } },
    "/s": { ...hidingState("s"), left_by: { prompt: "02", run_id: "run-2" } },
  };
  assert.deepEqual(leftHidingOf(state, ["/r", "/s", "/t"]), want);
  assert.equal(state.entry("02")!.hiding_left?.["/s"]?.before.left_by, undefined, "stored without the mark");
  await state.flush();

  const reopened = await StateStore.open(store);
  assert.deepEqual(leftHidingOf(reopened, ["/r", "/s"]), want);
  assert.equal(leftHidingOf(reopened, ["__proto__"])["__proto__"]?.left_by?.prompt, "02");
  await clearLeftHiding(reopened, "/r");
  await clearLeftHiding(reopened, "/nothing");
  assert.equal(reopened.entry("01")!.hiding_left, undefined, "the entry's last root gone: the field goes");
  assert.deepEqual(Object.keys(reopened.entry("02")!.hiding_left ?? {}).sort(), ["/s", "__proto__"]);
  assert.deepEqual(leftHidingOf(reopened, ["/r", "/s"]), { "/s": want["/s"] });
  await reopened.reload(); // a reload builds the index again from the files
  assert.deepEqual(leftHidingOf(reopened, ["/r", "/s"]), { "/s": want["/s"] });
  reopened.close();
  state.close();
});

Deno.test("a repo brought under changed_paths_only by an amendment during the prompt: its item says the hiding state was not compared", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [done.txt]\n" + NO_REPAIR +
        "simulate:\n  attempts:\n    - tools:\n        - name: Write\n          input: {file_path: done.txt}\n" +
        "          output: ok\n          delay_ms: 4000\n          writes: [{path: done.txt, text: done}]",
    ),
  });
  const child = spawnCli(["run", pkt]);
  const out = child.output();
  await waitFor(async () => (await readSnapshot(pkt))?.session_live === true, { what: "the session to go live" });
  const amend = await runCli(["control", "amend", pkt, "1", "--add-path", "done.txt", "--reason", "judge the repo"]);
  assert.equal(amend.code, 0, amend.stderr);
  const r = await out;
  const stdout = new TextDecoder().decode(r.stdout);
  assert.equal(r.code, 0, stdout + new TextDecoder().decode(r.stderr));
  const item = (await entries(pkt))["01"]!.result!.last_verifier!.items.find((i) => i.clause === "changed_paths_only")!;
  assert.equal(item.pass, true);
  assert.equal((item as unknown as { hiding_compared?: boolean }).hiding_compared, false);
  assert.equal(item.details, `ok; ${HIDING_NOT_COMPARED}`);
});

Deno.test("the not-compared note: only in a run's verification, only for a repo without a baseline", async () => {
  await using dir = await tempDir();
  await createScratchRepo(`${dir.path}/app`);
  const root = await Deno.realPath(`${dir.path}/app`);
  const ctx = (extra: Partial<VerifyContext>): VerifyContext => ({
    promptId: "01",
    runId: "r",
    packetDir: dir.path,
    storeRoot: `${dir.path}/.prompt_runner`,
    repos: { app: root },
    defaultScope: root,
    source: "attempt",
    attempt: 1,
    ...extra,
  });
  const contract = { changed_paths_only: ["x.txt"] };
  const item = async (c: VerifyContext) => (await verifyContract(contract, c, [])).items[0]!;
  const none = await item(ctx({ hidingBaselined: true }));
  assert.equal(none.details, `ok; ${HIDING_NOT_COMPARED}`);
  assert.equal((none as unknown as { hiding_compared?: boolean }).hiding_compared, false);
  const verify = await item(ctx({}));
  assert.equal(verify.details, "ok", "prompt_runner verify has no baselines: nothing is said");
  const st = await gitStatus(root, undefined, true);
  assert.ok(st.ok);
  const read = await readHidingCore(root);
  assert.ok(read.ok);
  const baselined = await item(ctx({ hidingBaselined: true, hiding: { [root]: { ...read.core, ignoreFiles: {} } } }));
  assert.equal(baselined.details, "ok");
  assert.equal((baselined as unknown as { hiding_compared?: boolean }).hiding_compared, undefined);
});

/** A contract that judges the repo: the file exists and is the prompt's only change (`extra`: more front matter). */
function judgedOnly(file: string, extra = ""): string {
  return `verify:\n  files_exist: [${file}]\n  changed_paths_only: [${file}]\n` + extra;
}

/** Prompt 01 judges nothing and hides `secret.txt`; prompt 02 is judged and writes it outside its paths. */
function hidesThenJudged(): Record<string, string> {
  return {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\n" +
        writes(write("a.txt", "a\n"), write(".git/info/exclude", "secret.txt\n", true)),
    ),
    "02_b.prompt.md": promptFile(
      "2",
      judgedOnly("b.txt", NO_REPAIR) +
        writes(write("b.txt", "b\n"), write("secret.txt", "outside its paths\n")),
    ),
  };
}

Deno.test("an earlier prompt without git clauses that hid the next prompt's work: the next prompt is judged from the run's start", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, hidesThenJudged());
  const app = `${pkt}/app`;
  const commits = await commitCount(app);
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const runId = /Run (\S+) failed/.exec(r.stdout)![1]!;
  assert.match(
    r.stderr,
    new RegExp(
      `changed_paths_only app: repo app: what git status hides changed since the runner started on run ${runId} \\(before this ` +
        `prompt: an earlier prompt's session, or by hand\\): \\.git/info/exclude changed \\(added "secret\\.txt"\\)`,
    ),
  );
  assert.equal(await commitCount(app), commits + 1, "prompt 01 committed; prompt 02 did not");
  const state = await entries(pkt);
  assert.equal(state["01"]!.status, "completed");
  assert.equal(state["02"]!.status, "verification_failed");
  // The failed prompt records the run's state, so a later run is judged from it too.
  const again = await runCli(["run", pkt, "02"]);
  assert.equal(again.code, 1, again.stdout + again.stderr);
  assert.match(again.stderr, /since before prompt 02, which failed in run \S+ with it changed: [^\n]*secret\.txt/);
});

Deno.test("a prompt that leaves the judged repos' hiding state alone is judged from its own start, as before", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [a.txt]\n" + writes(write("a.txt", "a\n"))),
    "02_b.prompt.md": promptFile(
      "2",
      judgedOnly("b.txt") + writes(write("b.txt", "b\n")),
    ),
  });
  await Deno.writeTextFile(`${pkt}/app/.git/info/exclude`, "notes.txt\n", { append: true }); // the user's, before the run
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const item = (await entries(pkt))["02"]!.result!.last_verifier!.items.find((i) => i.clause === "changed_paths_only")!;
  assert.equal(item.details, "ok");
});

Deno.test("killed between the prompts: the next runner is judged from the dead runner's start (run --remaining)", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, hidesThenJudged());
  const killed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "progress.after_append" } });
  assert.equal(killed.code, 137, killed.stderr);
  const kept = JSON.parse(await Deno.readTextFile(`${pkt}/.prompt_runner/hiding_start.json`));
  const first = Object.values(kept.roots as Record<string, { run_id: string }>)[0]!.run_id;
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    new RegExp(`what git status hides changed since the runner started on run ${first} [^\\n]*added "secret\\.txt"`),
  );
  assert.equal((await entries(pkt))["02"]!.status, "verification_failed");
});

Deno.test("a run whose last prompt hid something completes, says so, and the next run is judged from before it", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "00_z.prompt.md": promptFile(
      "0",
      judgedOnly("z.txt") + writes(write("z.txt", "z\n")),
    ),
    ...hidesThenJudged(),
  });
  const store = `${pkt}/.prompt_runner`;
  const first = await runCli(["run", pkt, "--through", "01"]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const runId = /Run (\S+) completed/.exec(first.stdout)![1]!;
  assert.match(
    first.stderr,
    new RegExp(
      `warning: repo \\S+/app: what git status hides changed since the runner started on run ${runId}: ` +
        `\\.git/info/exclude changed \\(added "secret\\.txt"\\); the next run is judged from the state before it`,
    ),
  );
  assert.ok(await Deno.stat(`${store}/hiding_start.json`), "kept for the next run");
  const next = await runCli(["run", pkt, "--remaining"]);
  assert.equal(next.code, 1, next.stdout + next.stderr);
  assert.match(next.stderr, new RegExp(`changed since the runner started on run ${runId} [^\\n]*secret\\.txt`));
});

Deno.test("the run's hiding record: gone after a run that left the repos as it found them, never made without git clauses", async () => {
  await using dir = await tempDir();
  const judged = await makePacket(`${dir.path}/j`, {
    "01_a.prompt.md": promptFile(
      "1",
      judgedOnly("a.txt") + writes(write("a.txt", "a\n")),
    ),
  });
  const killed = await runCli(["run", judged], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(killed.code, 137, killed.stderr);
  assert.ok(await Deno.stat(`${judged}/.prompt_runner/hiding_start.json`), "kept while the run goes on");
  const r = await runCli(["run", judged]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  await assert.rejects(Deno.stat(`${judged}/.prompt_runner/hiding_start.json`), Deno.errors.NotFound);
  const plain = await makePacket(`${dir.path}/p`, {
    "01_a.prompt.md": promptFile("1", "verify:\n  files_exist: [a.txt]\n" + writes(write("a.txt", "a\n"))),
  });
  const killedPlain = await runCli(["run", plain], { env: { PROMPT_RUNNER_FAILPOINT: "attempt.after_session" } });
  assert.equal(killedPlain.code, 137, killedPlain.stderr);
  await assert.rejects(Deno.stat(`${plain}/.prompt_runner/hiding_start.json`), Deno.errors.NotFound);
});

Deno.test("a hiding_start.json that is not a record: a warning names the file, the run takes the repos as they are", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      judgedOnly("a.txt") + writes(write("a.txt", "a\n")),
    ),
  });
  const file = `${pkt}/.prompt_runner/hiding_start.json`;
  await Deno.mkdir(`${pkt}/.prompt_runner`, { recursive: true });
  await Deno.writeTextFile(file, "{not json");
  const r = await runCli(["run", pkt]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(
    r.stderr,
    /warning: \S+\/\.prompt_runner\/hiding_start\.json is not a hiding record \(.*\); the judged repos are taken as they are now/,
  );
  await assert.rejects(
    Deno.stat(file),
    Deno.errors.NotFound,
    "replaced by the run's own record, then dropped at its close",
  );
});
