/**
 * A commit that failed (docs/crash_recovery.md, "A commit that failed"): a prompt whose contract passed but whose
 * commit failed keeps its verified work uncommitted, attributed to it. Its next run (`run --remaining`, `run <id>`,
 * `repair`) claims that work on the record, verifies its contract again and commits it in the prompt's own commit;
 * no other prompt's commit ever holds it, with or without `--allow-dirty`; a refusal names the prompt.
 */
import assert from "node:assert/strict";
import { runCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { makePacket, promptFile, readPrompts } from "./support.ts";

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
