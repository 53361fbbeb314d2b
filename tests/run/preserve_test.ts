/** preserveFailedWork / restorePreserved against real git repos (docs/keep_going.md). */
import assert from "node:assert/strict";
import { git, initRepo, tempDir } from "../support/fs.ts";
import type { RepoBaseline } from "../../src/run/dirty.ts";
import { preserveFailedWork, restorePreserved } from "../../src/run/preserve.ts";

async function baselineOf(path: string, dirty: string[] = []): Promise<RepoBaseline[]> {
  return [{ name: "app", path, root: await Deno.realPath(path), head: await git(path, "rev-parse", "HEAD"), dirty }];
}

Deno.test("a session's own commits are preserved and the branch goes back to the last good commit", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n", "keep.txt": "k\n" });
  await Deno.writeTextFile(`${app}/mine.txt`, "user\n");
  await Deno.writeTextFile(`${app}/keep.txt`, "user edit\n");
  const baseline = await baselineOf(app, ["keep.txt", "mine.txt"]);
  // The failed session commits one file itself, then leaves another uncommitted.
  await Deno.writeTextFile(`${app}/committed.txt`, "c\n");
  await git(app, "add", "committed.txt");
  await git(app, "commit", "-q", "-m", "session commit");
  const sessionCommit = await git(app, "rev-parse", "HEAD");
  await Deno.writeTextFile(`${app}/README.md`, "# changed by the session\n");
  await Deno.mkdir(`${app}/new/dir`, { recursive: true });
  await Deno.writeTextFile(`${app}/new/dir/f.txt`, "f\n");

  const { work, errors } = await preserveFailedWork(baseline, {
    runId: "R1",
    promptId: "02",
    storeRoot: null,
    reason: "verification_failed: x",
  });
  assert.deepEqual(errors, []);
  assert.equal(work?.ref, "refs/prompt_runner/preserved/R1/02");
  assert.deepEqual(work?.repos[0]?.paths, ["README.md", "committed.txt", "new/dir/f.txt"]);
  const ref = work!.ref;
  assert.equal(await git(app, "rev-parse", "HEAD"), baseline[0]!.head, "back at the last good commit");
  assert.equal(await git(app, "rev-parse", "main"), baseline[0]!.head, "the branch itself moved back");
  assert.equal(await git(app, "rev-parse", `${ref}^1`), baseline[0]!.head);
  assert.equal(await git(app, "rev-parse", `${ref}^2`), sessionCommit, "the session's commit stays reachable");
  assert.equal(await git(app, "show", `${ref}:committed.txt`), "c");
  assert.equal(await git(app, "show", `${ref}:README.md`), "# changed by the session");
  assert.equal(await git(app, "show", `${ref}:keep.txt`), "k", "the user's edit is not part of the preserved work");
  await assert.rejects(git(app, "show", `${ref}:mine.txt`));
  // The user's paths are exactly as they were; the prompt's paths are gone or reset.
  assert.equal(await Deno.readTextFile(`${app}/mine.txt`), "user\n");
  assert.equal(await Deno.readTextFile(`${app}/keep.txt`), "user edit\n");
  assert.equal(await Deno.readTextFile(`${app}/README.md`), "# r\n");
  await assert.rejects(() => Deno.stat(`${app}/new`));
  await assert.rejects(() => Deno.stat(`${app}/committed.txt`));
  assert.equal(
    await git(app, "status", "--porcelain"),
    "M keep.txt\n?? mine.txt",
    "git output is trimmed: ' M keep.txt'",
  );

  // Restored onto the work tree only (never the index), and the ref moves to restored/.
  const back = await restorePreserved(await baselineOf(app, ["keep.txt", "mine.txt"]), "02");
  assert.equal(back.ref, ref);
  assert.equal(back.skipped, null);
  assert.equal(await Deno.readTextFile(`${app}/committed.txt`), "c\n");
  assert.equal(await Deno.readTextFile(`${app}/new/dir/f.txt`), "f\n");
  assert.equal(await Deno.readTextFile(`${app}/README.md`), "# changed by the session\n");
  assert.equal(await git(app, "diff", "--cached", "--name-only"), "", "the index is untouched");
  assert.equal(
    await git(app, "for-each-ref", "--format=%(refname)", "refs/prompt_runner/"),
    "refs/prompt_runner/restored/R1/02",
  );
});

Deno.test("preserved work that overlaps the user's dirty paths or no longer applies is left under its ref", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n" });
  const baseline = await baselineOf(app);
  await Deno.writeTextFile(`${app}/README.md`, "# session\n");
  const { work } = await preserveFailedWork(baseline, { runId: "R1", promptId: "01", storeRoot: null, reason: "x" });
  assert.ok(work);
  // The user now edits the same file: restoring would touch it.
  await Deno.writeTextFile(`${app}/README.md`, "# user\n");
  const overlap = await restorePreserved(await baselineOf(app, ["README.md"]), "01");
  assert.equal(overlap.ref, null);
  assert.match(overlap.skipped ?? "", /uncommitted user paths overlap it \(README\.md\)/);
  // The file was committed differently meanwhile: the patch does not apply.
  await git(app, "commit", "-q", "-am", "other");
  const stale = await restorePreserved(await baselineOf(app), "01");
  assert.equal(stale.ref, null);
  assert.match(stale.skipped ?? "", /does not apply/);
  assert.equal(await Deno.readTextFile(`${app}/README.md`), "# user\n", "nothing was applied");
  assert.equal(await git(app, "for-each-ref", "--format=%(refname)", "refs/prompt_runner/"), work.ref);
});
