/**
 * `--keep-going` loses nothing and misattributes nothing (docs/keep_going.md): a failed prompt's changes are
 * preserved under `refs/prompt_runner/preserved/<run>/<prompt>` in every target repo, the repos go back to their last
 * good commit before the next prompt, the summary and `status` name the ref, and a later run of the prompt restores
 * the preserved work before its first attempt.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { history, makePacket, manifest, promptFile, readPrompts } from "./support.ts";

/** Files changed by a commit (sorted). */
async function filesOf(repo: string, rev: string): Promise<string[]> {
  const out = await git(repo, "show", "--name-only", "--format=", rev);
  return out.split("\n").filter((l) => l !== "").sort();
}

const FAILING = "verify:\n  files_exist: [never.txt]\nsimulate:\n  attempts:\n" +
  "    - writes: [{path: junk.txt, text: draft}, {path: README.md, text: overwritten}, {path: sub/deep.txt, text: d}]";

Deno.test("keep-going: the next commit holds only its own files; the failed work is under a named ref", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt}]",
    ),
    "02_b.prompt.md": promptFile("2", FAILING),
    "03_c.prompt.md": promptFile(
      "3",
      "verify:\n  files_exist: [c.txt]\nsimulate:\n  attempts:\n    - writes: [{path: c.txt}]",
    ),
  });
  const app = `${pkt}/app`;
  const readmeBefore = await Deno.readTextFile(`${app}/README.md`);
  const r = await runCli(["run", pkt, "--keep-going", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const prompts = await readPrompts(pkt);
  assert.equal(prompts["02"]?.status, "verification_failed");
  assert.deepEqual(history(prompts["03"]), ["run:completed"]);

  // The next prompt's commit holds only its own file: nothing of 02 leaked into it.
  assert.deepEqual(await filesOf(app, "HEAD"), ["c.txt"]);
  assert.deepEqual(await filesOf(app, "HEAD~1"), ["a.txt"]);
  assert.equal(await git(app, "status", "--porcelain", "--untracked-files=all"), "", "the work tree is clean");
  assert.equal(
    await Deno.readTextFile(`${app}/README.md`),
    readmeBefore,
    "a tracked file the failure touched is reset",
  );
  await assert.rejects(() => Deno.stat(`${app}/sub`), "a directory the failed prompt created is gone");

  // The failed work is recoverable from the ref the summary names.
  const summary = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  const p2 = (summary.prompts as { id: string; preserved?: { ref: string; repos: { repo: string }[] } }[])
    .find((p) => p.id === "02")!;
  const ref = `refs/prompt_runner/preserved/${summary.run_id}/02`;
  assert.equal(p2.preserved?.ref, ref);
  assert.deepEqual(p2.preserved?.repos.map((x) => x.repo), ["app"]);
  assert.equal(await git(app, "show", `${ref}:junk.txt`), "draft");
  assert.equal(await git(app, "show", `${ref}:README.md`), "overwritten");
  assert.equal(await git(app, "show", `${ref}:sub/deep.txt`), "d");
  assert.deepEqual(await filesOf(app, ref), ["README.md", "junk.txt", "sub/deep.txt"]);
  assert.equal(await git(app, "rev-parse", `${ref}^1`), await git(app, "rev-parse", "HEAD~1"), "based on 01's commit");
  assert.equal(await git(app, "rev-parse", "--abbrev-ref", "HEAD"), "main", "the user's branch is untouched");

  // The human summary and `status` (human and JSON) name the ref.
  const human = await runCli(["status", pkt]);
  assert.match(human.stdout, new RegExp(`preserved\\s+02: ${ref.replaceAll("/", "\\/")} \\(app\\)`));
  const status = JSON.parse((await runCli(["status", pkt, "--json"])).stdout);
  assert.deepEqual(status.preserved, [{ prompt_id: "02", ref, repos: ["app"] }]);
});

Deno.test("keep-going human summary names the preserved ref; a later run restores it before the first attempt", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", FAILING),
    "02_b.prompt.md": promptFile(
      "2",
      "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt}]",
    ),
  });
  const app = `${pkt}/app`;
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1);
  const m = r.stderr.match(
    /Failed work is preserved \(the next run of each prompt restores it first\):\n {2}01: (refs\/prompt_runner\/preserved\/\S+\/01) \(app\)\n/,
  );
  assert.ok(m, r.stderr);
  const ref = m[1]!;
  assert.match(
    r.stdout,
    /Preserved the work of prompt 01 under refs\/prompt_runner\/preserved\/\S+\/01 \(app: 3 path\(s\)\)/,
  );

  // The author fixes the prompt: its next session adds the missing file and relies on the earlier draft.
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile(
      "1",
      "verify:\n  files_exist: [junk.txt, never.txt]\nsimulate:\n  attempts:\n    - writes: [{path: never.txt}]",
    ),
  );
  const again = await runCli(["run", pkt, "01"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    new RegExp(`Restored the preserved work of prompt 01 from ${ref} \\(app: 3 path\\(s\\)\\)`),
  );
  assert.deepEqual(await filesOf(app, "HEAD"), ["README.md", "junk.txt", "never.txt", "sub/deep.txt"]);
  assert.equal(await git(app, "show", "HEAD:junk.txt"), "draft");
  // The ref moved to restored/: a third run restores nothing again.
  assert.equal(await git(app, "for-each-ref", "refs/prompt_runner/preserved/"), "");
  assert.match(
    await git(app, "for-each-ref", "refs/prompt_runner/restored/"),
    /refs\/prompt_runner\/restored\/\S+\/01$/,
  );
  const prompts = await readPrompts(pkt);
  // The restored partial progress is repair material: the first attempt repairs the last verification's failures.
  const newRun = prompts["01"]!.attempts.at(-1)!.run_id;
  assert.deepEqual(
    history({ ...prompts["01"]!, attempts: prompts["01"]!.attempts.filter((a) => a.run_id === newRun) }),
    [
      "repair:completed",
    ],
  );
  const events = (await Deno.readTextFile(`${pkt}/.prompt_runner/control/events.jsonl`)).trim().split("\n")
    .map((l) => JSON.parse(l));
  const sent = events.find((e) => e.type === "message_sent" && e.run_id === newRun);
  assert.match(
    sent.data.content,
    /## Repair pass 1 of 2[\s\S]*### Unmet checks\n- files_exist#1\n {2}kind: file_exists\n {2}repo: app\n {2}path: never\.txt/,
  );
  const entry = prompts["01"] as unknown as { preserved?: unknown; restored?: { ref: string } };
  assert.equal(entry.preserved, undefined);
  assert.equal(entry.restored?.ref, ref);
  const status = JSON.parse((await runCli(["status", pkt, "--json"])).stdout);
  assert.deepEqual(status.preserved, []);
});

Deno.test("keep-going preserves and resets every target repo of a failed multi-repo prompt", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/pkt`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  const text = manifest().replace(
    "repos:\n  app:\n    path: app\n    default: true\n",
    "repos:\n  app:\n    path: app\n    default: true\n  lib:\n    path: lib\n",
  );
  await Deno.writeTextFile(`${pkt}/prompt_runner_packet.md`, text);
  await createScratchRepo(`${pkt}/app`);
  await createScratchRepo(`${pkt}/lib`);
  const writes = "[{path: x.txt, repo: app}, {path: y.txt, repo: lib}]";
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile(
      "1",
      `targets: [app, lib]\nverify:\n  files_exist: [never.txt]\nsimulate:\n  attempts:\n    - writes: ${writes}`,
    ),
  );
  await Deno.writeTextFile(
    `${pkt}/prompts/02_b.prompt.md`,
    promptFile(
      "2",
      "targets: [app, lib]\nverify:\n  files_exist: [z.txt]\nsimulate:\n  attempts:\n" +
        "    - writes: [{path: z.txt, repo: app}, {path: w.txt, repo: lib}]",
    ),
  );
  const headLib = await git(`${pkt}/lib`, "rev-parse", "HEAD");
  const r = await runCli(["run", pkt, "--keep-going", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const runId = JSON.parse(r.stdout.trim().split("\n").at(-1)!).run_id;
  const ref = `refs/prompt_runner/preserved/${runId}/01`;
  assert.equal(await git(`${pkt}/app`, "show", `${ref}:x.txt`), "");
  assert.equal(await git(`${pkt}/lib`, "show", `${ref}:y.txt`), "");
  assert.deepEqual(await filesOf(`${pkt}/app`, "HEAD"), ["z.txt"]);
  assert.deepEqual(await filesOf(`${pkt}/lib`, "HEAD"), ["w.txt"]);
  assert.equal(await git(`${pkt}/lib`, "rev-parse", "HEAD~1"), headLib);
});

Deno.test("a crash between preserving and resetting, or between restoring and moving the ref, loses nothing", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, { "01_a.prompt.md": promptFile("1", FAILING) });
  const app = `${pkt}/app`;
  const crashed = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "preserve.after_ref" } });
  assert.notEqual(crashed.code, 0);
  const [ref] = (await git(app, "for-each-ref", "--format=%(refname)", "refs/prompt_runner/preserved/")).split("\n");
  assert.match(ref!, /^refs\/prompt_runner\/preserved\/\S+\/01$/);
  assert.equal(await git(app, "show", `${ref}:junk.txt`), "draft");
  assert.equal(await Deno.readTextFile(`${app}/junk.txt`), "draft", "not reset yet: the work is in both places");
  const refused = await runCli(["run", pkt]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /repo app: 3 uncommitted path\(s\) that are not any prompt's work: README\.md, junk\.txt/,
  );

  // Reset by hand, as the user would after looking; then a restore that crashes before its ref moves.
  await git(app, "checkout", "--", ".");
  await git(app, "clean", "-fdq");
  const again = await runCli(["run", pkt], { env: { PROMPT_RUNNER_FAILPOINT: "restore.after_apply" } });
  assert.notEqual(again.code, 0);
  assert.equal(await Deno.readTextFile(`${app}/junk.txt`), "draft");
  assert.equal(await git(app, "for-each-ref", "--format=%(refname)", "refs/prompt_runner/preserved/"), ref);
  const allowed = await runCli(["run", pkt, "--allow-dirty"]);
  assert.match(
    allowed.stderr,
    /warning: prompt 01 has preserved work that was not restored: repo app: uncommitted user paths overlap it/,
  );
  assert.equal(await git(app, "show", `${ref}:junk.txt`), "draft", "still under its ref");
});
