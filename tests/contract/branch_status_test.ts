/**
 * `branchStatus()` (src/contract/git.ts), the read behind every prompt's baseline: HEAD, branch, upstream and the
 * changes, without the ahead/behind counts git would otherwise work out by walking the history to the upstream.
 */
import assert from "node:assert/strict";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { branchStatus } from "../../src/contract/git.ts";

const GIT_TS = new URL("../../src/contract/git.ts", import.meta.url).href;

Deno.test("branchStatus: a branch far behind its upstream reads whole, and git is never asked to count the distance", async () => {
  await using dir = await tempDir();
  const repo = `${dir.path}/app`;
  await initRepo(repo, { "README.md": "# r\n" });
  // An upstream 40 commits ahead, and the branch tracking it.
  await git(repo, "checkout", "-q", "-b", "up");
  for (let i = 0; i < 40; i++) await git(repo, "commit", "-q", "--allow-empty", "-m", `c${i}`);
  await git(repo, "checkout", "-q", "main");
  await git(repo, "branch", "-q", "--set-upstream-to=up");
  await writeFiles(repo, { "new.txt": "n\n", "README.md": "# changed\n" });
  const head = await git(repo, "rev-parse", "HEAD");

  // In a process of its own with git's trace on, so the command git ran can be read back.
  const trace = `${dir.path}/git-trace.txt`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const { branchStatus } = await import(${JSON.stringify(GIT_TS)});` +
      "console.log(JSON.stringify(await branchStatus(Deno.args[0])));",
      repo,
    ],
    env: { GIT_TRACE: trace },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const res = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(res.ok, true);
  assert.equal(res.status.oid, head);
  assert.equal(res.status.branch, "main");
  assert.equal(res.status.upstream, "up");
  assert.deepEqual(res.status.entries.map((e: { path: string }) => e.path).sort(), ["README.md", "new.txt"]);
  const ran = (await Deno.readTextFile(trace)).split("\n").filter((l) => / status /.test(l));
  assert.equal(ran.length, 1, ran.join("\n"));
  assert.match(ran[0]!, / --no-ahead-behind /, "the status asks for no ahead/behind counts");

  // The same read in this process gives the same answer.
  const here = await branchStatus(repo);
  assert.ok(here.ok);
  assert.deepEqual(here.status, res.status);
});
