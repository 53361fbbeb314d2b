/**
 * A commit that failed (docs/crash_recovery.md, "A commit that failed"): a prompt whose contract passed but whose
 * commit failed keeps its verified work uncommitted, attributed to it. Its next run (`run --remaining`, `run <id>`,
 * `repair`) claims that work on the record, verifies its contract again and commits it in the prompt's own commit;
 * no other prompt's commit ever holds it, with or without `--allow-dirty`; a refusal names the prompt.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { createScratchRepo } from "../../examples/setup.ts";
import { makePacket, manifest, promptFile, readPrompts } from "./support.ts";

const FIRST = "verify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt, text: first}]";
const SECOND = "verify:\n  files_exist: [b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: b.txt, text: second}]";

/** A two-prompt packet whose repo refuses every commit (a pre-commit hook, or no identity). */
async function failingPacket(root: string, how: "hook" | "identity"): Promise<{ pkt: string; app: string }> {
  const pkt = await makePacket(root, {
    "01_a.prompt.md": promptFile("1", FIRST),
    "02_b.prompt.md": promptFile("2", SECOND),
  });
  const app = `${pkt}/app`;
  if (how === "hook") {
    await Deno.writeTextFile(`${app}/.git/hooks/pre-commit`, "#!/bin/sh\necho 'hook says no' >&2\nexit 1\n");
    await Deno.chmod(`${app}/.git/hooks/pre-commit`, 0o755);
  } else {
    await git(app, "config", "--unset", "user.name");
    await git(app, "config", "--unset", "user.email");
    await git(app, "config", "user.useConfigOnly", "true");
  }
  return { pkt, app };
}

/** Let commits succeed again. */
async function fix(app: string, how: "hook" | "identity"): Promise<void> {
  if (how === "hook") await Deno.remove(`${app}/.git/hooks/pre-commit`);
  else {
    await git(app, "config", "user.name", "Test");
    await git(app, "config", "user.email", "test@example.invalid");
  }
}

/** Run the CLI with no git identity from the environment (an isolated HOME, no system config). */
function cli(args: string[], home: string) {
  return runCli(args, {
    env: {
      HOME: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      GIT_CONFIG_NOSYSTEM: "1",
    },
  });
}

async function trailer(app: string, rev: string, key: string): Promise<string> {
  return await git(app, "log", "-1", `--format=%(trailers:key=${key},valueonly)`, rev);
}

async function files(app: string, rev: string): Promise<string[]> {
  return (await git(app, "show", "--name-only", "--format=", rev)).split("\n").filter((l) => l !== "");
}

for (const how of ["hook", "identity"] as const) {
  Deno.test(`commit failed (${how}) → fixed → run --remaining commits the prompt's work in its own commit`, async () => {
    await using dir = await tempDir();
    const home = `${dir.path}/home`;
    await Deno.mkdir(home);
    const { pkt, app } = await failingPacket(dir.path, how);
    const first = await cli(["run", pkt], home);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /commit failed in app/);
    assert.match(first.stderr, /prompt 01 keeps its verified work uncommitted \(app: 1 path\(s\)\)/);
    let prompts = await readPrompts(pkt);
    assert.equal(prompts["01"]!.status, "commit_failed");
    const before = await git(app, "rev-parse", "HEAD");

    await fix(app, how);
    const again = await cli(["run", pkt, "--remaining"], home);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.doesNotMatch(again.stderr, /not any prompt's work/);
    assert.match(
      again.stdout,
      /Prompt 01: claiming the work it verified in run \S+, whose commit failed \(app: 1 path\(s\)\)/,
    );
    assert.match(again.stdout, /Prompt 01: verifying its contract again before the commit/);
    // One commit per prompt: 01's holds a.txt only, 02's b.txt only, each with its own trailer.
    assert.equal(await git(app, "rev-list", "--count", `${before}..HEAD`), "2");
    assert.deepEqual(await files(app, "HEAD~1"), ["a.txt"]);
    assert.equal(await trailer(app, "HEAD~1", "Prompt-Runner-Prompt"), "01");
    assert.deepEqual(await files(app, "HEAD"), ["b.txt"]);
    assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "02");
    assert.equal(await git(app, "status", "--porcelain"), "");
    // The claim is on the record: the result and the run journal name the prompt and the run whose commit failed.
    prompts = await readPrompts(pkt);
    const result = prompts["01"]!.result!;
    assert.equal(prompts["01"]!.status, "completed");
    const claimed = result.claimed as { run_id: string; repos: Record<string, string[]>; changed: string[] };
    assert.deepEqual(claimed.repos, { app: ["a.txt"] });
    assert.deepEqual(claimed.changed, []);
    assert.equal(result.session_ran, false, "no new agent attempt");
    assert.equal(prompts["01"]!.attempts.length, 1);
    const runId = await trailer(app, "HEAD~1", "Prompt-Runner-Run");
    const journal = (await Deno.readTextFile(`${pkt}/.prompt_runner/runs/${runId}/journal.jsonl`)).trim().split("\n")
      .map((l) => JSON.parse(l));
    const claim = journal.find((e) => e.type === "commit_claimed");
    assert.equal(claim?.data.prompt, "01");
    assert.equal(claim?.data.run_id, claimed.run_id);
  });
}

Deno.test("a human edit after the failed commit: the rerun says so, verifies again and the claim names the path", async () => {
  await using dir = await tempDir();
  const { pkt, app } = await failingPacket(dir.path, "hook");
  assert.equal((await runCli(["run", pkt])).code, 1);
  await Deno.writeTextFile(`${app}/a.txt`, "edited by a human\n");
  await fix(app, "hook");
  const r = await runCli(["run", pkt, "01"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /Prompt 01: 1 path\(s\) changed since that verification: app:a\.txt; verifying its contract/);
  const prompts = await readPrompts(pkt);
  const claimed = prompts["01"]!.result!.claimed as { changed: string[] };
  assert.deepEqual(claimed.changed, ["app:a.txt"]);
  // The commit rests on the verification of this run, on the content it holds.
  const verified = prompts["01"]!.result!.last_verifier as { run_id: string; pass: boolean };
  assert.equal(verified.run_id, await trailer(app, "HEAD", "Prompt-Runner-Run"));
  assert.deepEqual(await files(app, "HEAD"), ["a.txt"]);
  assert.equal(await git(app, "show", "HEAD:a.txt"), "edited by a human");
});

Deno.test("work that no longer passes its contract: the prompt runs again on it, as its own work", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile(
      "1",
      "verify:\n  files_exist: [a.txt, b.txt]\nsimulate:\n  attempts:\n    - writes: [{path: a.txt, text: a}, {path: b.txt, text: b}]\n" +
        "    - writes: [{path: b.txt, text: again}]",
    ),
  });
  const app = `${pkt}/app`;
  await Deno.writeTextFile(`${app}/.git/hooks/pre-commit`, "#!/bin/sh\nexit 1\n");
  await Deno.chmod(`${app}/.git/hooks/pre-commit`, 0o755);
  assert.equal((await runCli(["run", pkt])).code, 1);
  await Deno.remove(`${app}/b.txt`);
  await fix(app, "hook");
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /its contract no longer passes on that work; running the prompt on it/);
  assert.deepEqual(await files(app, "HEAD"), ["a.txt", "b.txt"], "the claimed a.txt is in the prompt's own commit");
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "01");
  assert.equal(await git(app, "status", "--porcelain"), "");
});

Deno.test("another prompt alone: refused naming the prompt whose commit failed; --allow-dirty keeps its paths out", async () => {
  await using dir = await tempDir();
  const { pkt, app } = await failingPacket(dir.path, "hook");
  assert.equal((await runCli(["run", pkt])).code, 1);
  await fix(app, "hook");
  const refused = await runCli(["run", pkt, "02"]);
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /repo app: prompt 01 verified 1 uncommitted path\(s\) but its commit failed: a\.txt; run prompt 01 again/,
  );
  assert.doesNotMatch(refused.stderr, /not any prompt's work/);
  await Deno.writeTextFile(`${app}/mine.txt`, "the user's\n");
  const mixed = await runCli(["run", pkt, "02"]);
  assert.match(mixed.stderr, /repo app: 1 uncommitted path\(s\) that are not any prompt's work: mine\.txt/);
  await Deno.remove(`${app}/mine.txt`);
  const allowed = await runCli(["run", pkt, "02", "--allow-dirty"]);
  assert.equal(allowed.code, 0, allowed.stderr + allowed.stdout);
  assert.deepEqual(await files(app, "HEAD"), ["b.txt"], "02's commit never holds 01's verified work");
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "02");
  assert.equal((await readPrompts(pkt))["01"]!.status, "commit_failed", "01 still needs its commit");
  assert.match(
    (await runCli(["plan", pkt])).stdout,
    /\n {2}01 {2}Prompt 1 .*needs a commit: verified in run \S+, its commit failed/,
  );
  const plan = await runCli(["plan", pkt, "--json"]);
  const planned = JSON.parse(plan.stdout).prompts as { id: string; needs_commit?: boolean }[];
  assert.deepEqual(planned.map((p) => [p.id, p.needs_commit === true]), [["01", true], ["02", false]]);
  const repair = await runCli(["repair", pkt, "01"]);
  assert.equal(repair.code, 0, repair.stderr + repair.stdout);
  assert.deepEqual(await files(app, "HEAD"), ["a.txt"]);
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "01");
  assert.equal(await git(app, "status", "--porcelain"), "");
});

Deno.test("--keep-going: the next prompt's commit in the same run never holds the failed commit's paths", async () => {
  await using dir = await tempDir();
  const pkt = await makePacket(dir.path, {
    "01_a.prompt.md": promptFile("1", FIRST),
    "02_b.prompt.md": promptFile("2", SECOND),
  });
  const app = `${pkt}/app`;
  // The hook refuses any commit that holds a.txt.
  await Deno.writeTextFile(
    `${app}/.git/hooks/pre-commit`,
    "#!/bin/sh\ngit diff --cached --name-only | grep -qx a.txt && { echo 'no a.txt' >&2; exit 1; }\nexit 0\n",
  );
  await Deno.chmod(`${app}/.git/hooks/pre-commit`, 0o755);
  const r = await runCli(["run", pkt, "--keep-going"]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /commit failed in app: no a\.txt/);
  assert.deepEqual(await files(app, "HEAD"), ["b.txt"]);
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "02");
  const status = await runCli(["status", pkt]);
  assert.match(
    status.stdout,
    /commit +01 needs a commit: its verified work \(app: 1 path\(s\)\) waits for its next run/,
  );
  const summary = await runCli(["status", pkt, "--summary"]);
  assert.match(summary.stdout, /01 Prompt 1 +run +commit failed .*needs a commit/);
  await fix(app, "hook");
  const again = await runCli(["run", pkt, "--remaining"]);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.deepEqual(await files(app, "HEAD"), ["a.txt"]);
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "01");
  assert.doesNotMatch((await runCli(["status", pkt])).stdout, /needs a commit/);
});

Deno.test("a runner killed right after committing claimed work: the next run adopts that commit, never a second one", async () => {
  await using dir = await tempDir();
  const { pkt, app } = await failingPacket(dir.path, "hook");
  assert.equal((await runCli(["run", pkt])).code, 1);
  await fix(app, "hook");
  const before = await git(app, "rev-parse", "HEAD");
  const killed = await runCli(["run", pkt, "--remaining"], {
    env: { PROMPT_RUNNER_FAILPOINT: "commit.after_git_commit" },
  });
  assert.match(killed.stderr, /failpoint commit\.after_git_commit reached/);
  assert.equal(await git(app, "rev-list", "--count", `${before}..HEAD`), "1");
  const sha = await git(app, "rev-parse", "HEAD");
  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(
    r.stderr,
    new RegExp(`recovered: prompt 01's claimed work was committed by run \\S+ \\(${sha}\\); adopted`),
  );
  assert.equal(await git(app, "rev-list", "--count", `${before}..HEAD`), "2", "01's commit once, then 02's");
  assert.deepEqual(await files(app, "HEAD~1"), ["a.txt"]);
  assert.deepEqual(await files(app, "HEAD"), ["b.txt"]);
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress, new RegExp(`^01:completed:\\S+:${sha}$`, "m"));
  assert.equal((await readPrompts(pkt))["01"]!.status, "completed");
});

Deno.test("a claim killed after committing one of its two repos: the next run's progress line names both", async () => {
  await using dir = await tempDir();
  const pkt = `${dir.path}/pkt`;
  await Deno.mkdir(`${pkt}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${pkt}/prompt_runner_packet.md`,
    manifest().replace(
      "repos:\n  app:\n    path: app\n    default: true\n",
      "repos:\n  app:\n    path: app\n    default: true\n  lib:\n    path: lib\n",
    ),
  );
  const [app, lib] = [`${pkt}/app`, `${pkt}/lib`];
  await createScratchRepo(app);
  await createScratchRepo(lib);
  const writes = "[{path: a.txt, repo: app, text: one}, {path: b.txt, repo: lib, text: two}]";
  await Deno.writeTextFile(
    `${pkt}/prompts/01_a.prompt.md`,
    promptFile(
      "1",
      `targets: [app, lib]\nverify:\n  files_exist: [a.txt]\nsimulate:\n  attempts:\n    - writes: ${writes}`,
    ),
  );
  // app (the first repo) refuses the commit: both repos keep the verified work.
  await Deno.writeTextFile(`${app}/.git/hooks/pre-commit`, "#!/bin/sh\nexit 1\n");
  await Deno.chmod(`${app}/.git/hooks/pre-commit`, 0o755);
  assert.equal((await runCli(["run", pkt])).code, 1);
  await Deno.remove(`${app}/.git/hooks/pre-commit`);
  // The claiming run is killed right after app's commit, before lib's.
  const killed = await runCli(["run", pkt, "--remaining"], {
    env: { PROMPT_RUNNER_FAILPOINT: "commit.after_git_commit" },
  });
  assert.match(killed.stderr, /failpoint commit\.after_git_commit reached/);
  const appSha = await git(app, "rev-parse", "HEAD");
  const claimingRun = await trailer(app, "HEAD", "Prompt-Runner-Run");
  assert.equal(await trailer(app, "HEAD", "Prompt-Runner-Prompt"), "01");
  assert.deepEqual(await files(app, "HEAD"), ["a.txt"]);
  assert.equal(await git(lib, "status", "--porcelain"), "?? b.txt");

  const r = await runCli(["run", pkt, "--remaining"]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const libSha = await git(lib, "rev-parse", "HEAD");
  assert.deepEqual(await files(lib, "HEAD"), ["b.txt"]);
  assert.equal(await trailer(lib, "HEAD", "Prompt-Runner-Prompt"), "01");
  assert.equal(await git(app, "rev-parse", "HEAD"), appSha, "app is not committed twice");
  const progress = await Deno.readTextFile(`${pkt}/.prompt_runner/progress.log`);
  assert.match(progress.trim().split("\n").at(-1)!, new RegExp(`^01:completed:\\S+:app=${appSha},lib=${libSha}$`));
  assert.match(
    r.stdout + r.stderr,
    new RegExp(
      `Prompt 01: committed earlier by run ${claimingRun}, which stopped while committing: app ${appSha.slice(0, 8)}`,
    ),
  );
  const result = (await readPrompts(pkt))["01"]!.result as { commit: { repos: unknown[] }; reason: string };
  assert.deepEqual(result.commit.repos, [
    { repo: "app", status: "ok", sha: appSha },
    { repo: "lib", status: "ok", sha: libSha },
  ]);
  assert.match(result.reason, new RegExp(`run ${claimingRun} committed app of this commit before it stopped`));
});
