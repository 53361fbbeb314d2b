/**
 * The record of a failed commit's work (src/run/commit_pending.ts): content digests of files, links and deletions;
 * which paths are still uncommitted and which changed; the cheap lookup on entries at rest.
 */
import assert from "node:assert/strict";
import { checkPending, contentDigest, pendingIn, pendingWork } from "../../src/run/commit_pending.ts";
import { StateStore } from "../../src/run/state.ts";
import { git, initRepo, tempDir } from "../support/fs.ts";

Deno.test("contentDigest(): a file's sha256, a link's target, absent for a deletion", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.txt`, "abc");
  await Deno.symlink("a.txt", `${dir.path}/l`);
  assert.equal(
    await contentDigest(dir.path, "a.txt"),
    "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(await contentDigest(dir.path, "l"), "link:a.txt");
  assert.equal(await contentDigest(dir.path, "gone"), "absent");
});

Deno.test("pendingWork(): the repo's uncommitted paths minus the user's, none for a repo already committed", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n", "old.txt": "old\n" });
  await Deno.writeTextFile(`${app}/a.txt`, "a");
  await Deno.writeTextFile(`${app}/mine.txt`, "the user's");
  await Deno.remove(`${app}/old.txt`);
  const repos = [{ name: "app", path: app }];
  const failed = { status: "failed" as const, repos: [{ repo: "app", status: "failed" as const }] };
  const p = await pendingWork(repos, { [app]: ["mine.txt"] }, null, failed, "r1", "t");
  assert.deepEqual(Object.keys(p!.repos.app!).sort(), ["a.txt", "old.txt"]);
  assert.equal(p!.repos.app!["old.txt"], "absent");
  const done = { status: "failed" as const, repos: [{ repo: "app", status: "ok" as const, sha: "x" }] };
  assert.equal(await pendingWork(repos, {}, null, done, "r1", "t"), null);
  // Later: a.txt edited, old.txt committed away: still uncommitted is a.txt only, and it changed.
  await Deno.writeTextFile(`${app}/a.txt`, "edited");
  await git(app, "rm", "-q", "old.txt");
  await git(app, "commit", "-q", "-m", "by hand");
  const found = await checkPending(repos, p!, null);
  assert.deepEqual(found.repos, { app: ["a.txt"] });
  assert.deepEqual(found.changed, ["app:a.txt"]);
});

Deno.test("pendingIn(): finds a commit_failed entry's record, at rest or live; nothing for other entries", async () => {
  const state = StateStore.memory();
  const pending = { run_id: "r1", at: "t", repos: { app: { "a.txt": "absent" } } };
  await state.updatePrompt("01", (p) => {
    p.status = "commit_failed";
    p.commit_pending = pending;
  });
  await state.updatePrompt("02", (p) => {
    p.status = "completed";
    p.result = { reason: 'text "commit_pending": here' } as never;
  });
  await state.updatePrompt("03", (p) => {
    p.status = "completed";
    p.commit_pending = pending; // a later result replaced the failure: not pending
  });
  assert.deepEqual(pendingIn(state, "01"), pending);
  assert.equal(pendingIn(state, "02"), null);
  assert.equal(state.mayHoldCommitPending("02"), false, "an escaped string never reads as the key");
  assert.equal(pendingIn(state, "03"), null);
  assert.equal(pendingIn(state, "04"), null);
});
