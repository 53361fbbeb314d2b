import assert from "node:assert/strict";
import { commitMessage, commitPrompt, commitSuffix } from "../../src/run/commit.ts";
import { git, initRepo, tempDir } from "../support/fs.ts";

Deno.test("commitMessage() appends run, prompt, steer and amendment trailers after a blank line", () => {
  assert.equal(
    commitMessage("feat: x\n", { runId: "R", promptId: "03", steerCount: 0, amendmentClasses: [] }),
    "feat: x\n\nPrompt-Runner-Run: R\nPrompt-Runner-Prompt: 03\n",
  );
  const m = commitMessage("feat: x", {
    runId: "R",
    promptId: "03",
    steerCount: 2,
    amendmentClasses: ["pre_verify", "post_failure", "pre_verify"],
  });
  assert.match(m, /Prompt-Runner-Steered: 2 \(interventions\/03\.jsonl\)\n/);
  assert.match(m, /Prompt-Runner-Amended: 3 \(pre_verify, post_failure\)\n$/);
});

Deno.test("commitSuffix() is the sha for one repo, name=sha pairs for several, no_changes otherwise", () => {
  assert.equal(commitSuffix([{ repo: "app", status: "ok", sha: "abc1234" }]), "abc1234");
  assert.equal(
    commitSuffix([{ repo: "app", status: "ok", sha: "aaaaaaa" }, { repo: "lib", status: "skip" }, {
      repo: "doc",
      status: "ok",
      sha: "bbbbbbb",
    }]),
    "app=aaaaaaa,doc=bbbbbbb",
  );
  assert.equal(commitSuffix([{ repo: "app", status: "skip" }]), "no_changes");
});

Deno.test("commitPrompt() commits changed repos, skips clean ones, and prints one line per repo", async () => {
  await using dir = await tempDir();
  await initRepo(`${dir.path}/app`);
  await initRepo(`${dir.path}/lib`);
  await Deno.writeTextFile(`${dir.path}/app/new.txt`, "x\n");
  const lines: string[] = [];
  const out = await commitPrompt(
    [{ name: "app", path: `${dir.path}/app` }, { name: "lib", path: `${dir.path}/lib` }],
    "feat: new\n\nPrompt-Runner-Run: R\n",
    (l) => lines.push(l),
  );
  assert.equal(out.ok, true);
  const sha = await git(`${dir.path}/app`, "rev-parse", "HEAD");
  assert.equal(out.suffix, `app=${sha}`);
  assert.deepEqual(lines, [`Committed to app: ${sha.slice(0, 8)}`, "No changes in lib"]);
  assert.equal(await git(`${dir.path}/app`, "log", "-1", "--format=%s"), "feat: new");
  assert.equal(await git(`${dir.path}/app`, "status", "--porcelain"), "");
});

Deno.test("commitPrompt() reports a failed git status as a commit failure", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/notgit`);
  const out = await commitPrompt([{ name: "x", path: `${dir.path}/notgit` }], "m", () => {});
  assert.equal(out.ok, false);
  assert.equal(out.record.status, "failed");
  assert.match(out.error ?? "", /git status failed in x/);
});
