import assert from "node:assert/strict";
import { git, initRepo, tempDir, writeFiles } from "../support/fs.ts";
import { itemsOf, oneItem } from "./_helpers.ts";
import { parsePorcelainZ } from "../../src/contract/git.ts";
import { changedPaths, disallowedDetails, pathAllowed } from "../../src/contract/clauses/git_clauses.ts";

Deno.test("verifyContract() changed_paths_only passes when every change is allowed", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path, { "README.md": "# r\n", "lib/a.ex": "a\n" });
  await writeFiles(dir.path, { "hello.txt": "hi\n", "docs/new/guide.md": "g\n", "lib/a.ex": "changed\n" });
  const item = await oneItem(dir.path, { changed_paths_only: ["./hello.txt", "docs/", "app:lib/a.ex"] });
  assert.equal(item.id, "changed_paths_only@app");
  assert.equal(item.kind, "changed_paths_only");
  assert.equal(item.status, "pass");
  assert.equal(item.details, "ok");
  assert.deepEqual(item.changed_paths, ["docs/new/guide.md", "hello.txt", "lib/a.ex"]);
  assert.deepEqual(item.allowed_paths, ["./hello.txt", "docs/", "lib/a.ex"]);
});

Deno.test("verifyContract() changed_paths_only lists disallowed paths, both sides of renames", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path, { "old.txt": "o\n", "keep.txt": "k\n" });
  await git(dir.path, "mv", "old.txt", "new.txt");
  await writeFiles(dir.path, { "stray/x.txt": "x" });
  const item = await oneItem(dir.path, { changed_paths_only: ["new.txt"] });
  assert.equal(item.status, "fail");
  assert.equal(item.details, "disallowed: old.txt, stray/x.txt");
  assert.deepEqual(item.changed_paths, ["new.txt", "old.txt", "stray/x.txt"]);
});

Deno.test("verifyContract() changed_paths_only excludes the store root and groups by repo", async () => {
  await using dir = await tempDir();
  await initRepo(`${dir.path}/app`);
  await initRepo(`${dir.path}/lib`);
  await writeFiles(`${dir.path}/app`, { "packet/.prompt_runner/state.json": "{}", "a.txt": "a" });
  await writeFiles(`${dir.path}/lib`, { "b.txt": "b" });
  const items = await itemsOf(`${dir.path}/app`, {
    changed_paths_only: ["a.txt", "lib:c.txt", { repo: "ghost", path: "x" }],
  }, {
    repos: { app: `${dir.path}/app`, lib: `${dir.path}/lib`, packet: `${dir.path}/app/packet` },
    storeRoot: `${dir.path}/app/packet/.prompt_runner`,
  });
  assert.deepEqual(items.map((i) => [i.id, i.status, i.details]), [
    ["changed_paths_only@app", "pass", "ok"],
    ["changed_paths_only@lib", "fail", "disallowed: b.txt"],
    ["changed_paths_only@ghost", "fail", "missing repo: ghost"],
  ]);
});

Deno.test("verifyContract() changed_paths_only faults when git status fails", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/notgit`);
  const item = await oneItem(`${dir.path}/notgit`, { changed_paths_only: ["a"] }, {
    repos: { app: `${dir.path}/notgit`, packet: `${dir.path}/packet` },
  });
  assert.equal(item.status, "fault");
  assert.equal(item.fault, "verifier_fault");
  assert.match(item.details, /^git status failed: /);
});

Deno.test("pathAllowed() matches equal paths, dir/ prefixes and globs", () => {
  assert.ok(pathAllowed("./a.txt", "a.txt"));
  assert.ok(pathAllowed("docs/", "docs/x/y.md"));
  assert.ok(!pathAllowed("docs", "docs/x/y.md"));
  assert.ok(pathAllowed("lib/**/*.ex", "lib/a/b.ex"));
  assert.ok(!pathAllowed("lib/*.ex", "lib/a/b.ex"));
  const many = Array.from({ length: 23 }, (_, i) => `f${i}`);
  assert.equal(disallowedDetails(many), `disallowed: ${many.slice(0, 20).join(", ")}, and 3 more`);
});

Deno.test("parsePorcelainZ() reads renames and copies with their sources", () => {
  const entries = parsePorcelainZ("R  new.txt\0old.txt\0?? dir/u.txt\0 M m.txt\0");
  assert.deepEqual(entries, [
    { xy: "R ", path: "new.txt", orig: "old.txt" },
    { xy: "??", path: "dir/u.txt" },
    { xy: " M", path: "m.txt" },
  ]);
  assert.deepEqual(changedPaths(entries, "dir"), ["m.txt", "new.txt", "old.txt"]);
});

Deno.test("verifyContract() repos_clean passes a clean local-only repo", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path);
  const head = (await git(dir.path, "rev-parse", "HEAD")).slice(0, 7);
  const item = await oneItem(dir.path, { repos_clean: ["app"] });
  assert.equal(item.status, "pass");
  assert.equal(item.details, `ok: main at ${head} (local only, no upstream)`);
  assert.equal(item.branch, "main");
  assert.equal(item.head, head);
  assert.equal(item.upstream, null);
  assert.equal(item.dirty_count, 0);
  assert.equal(item.path, dir.path);
});

Deno.test("verifyContract() repos_clean fails a dirty repo with porcelain lines", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path);
  await writeFiles(
    dir.path,
    Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, "x"])),
  );
  const item = await oneItem(dir.path, { repos_clean: [{}] });
  assert.equal(item.status, "fail");
  assert.equal(item.dirty_count, 12);
  const lines = Array.from({ length: 10 }, (_, i) => `?? f${String(i).padStart(2, "0")}.txt`).join(", ");
  assert.equal(item.details, `uncommitted changes (12): ${lines}, and 2 more`);
});

Deno.test("verifyContract() repos_clean fails missing repos and non-repositories", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/plain`);
  const items = await itemsOf(dir.path, { repos_clean: ["ghost", "plain"] }, {
    repos: { app: dir.path, plain: `${dir.path}/plain`, packet: `${dir.path}/packet` },
  });
  assert.equal(items[0]!.details, "missing repo: ghost");
  assert.equal(items[1]!.status, "fail");
  assert.equal(items[1]!.details, `not a git repository: ${dir.path}/plain`);
});

async function repoWithRemote(base: string): Promise<{ work: string; remote: string }> {
  const remote = `${base}/remote.git`;
  const work = `${base}/work`;
  await Deno.mkdir(remote);
  await git(remote, "init", "-q", "--bare", "-b", "main");
  await initRepo(work);
  await git(work, "remote", "add", "origin", remote);
  await git(work, "push", "-q", "-u", "origin", "main");
  return { work, remote };
}

Deno.test("verifyContract() repos_clean pushed compares HEAD with the cached upstream", async () => {
  await using dir = await tempDir();
  const { work } = await repoWithRemote(dir.path);
  const ctx = { repos: { app: work, packet: `${dir.path}/packet` }, defaultScope: work };
  const head = (await git(work, "rev-parse", "HEAD")).slice(0, 7);
  const ok = await oneItem(work, { repos_clean: { pushed: true } }, ctx);
  assert.equal(ok.status, "pass");
  assert.equal(
    ok.details,
    `ok: main at ${head} (pushed to origin/main) [compared with cached upstream; network disabled]`,
  );
  const notAsserted = await oneItem(work, { repos_clean: {} }, ctx);
  assert.equal(notAsserted.details, `ok: main at ${head} (upstream origin/main, push not asserted)`);
  await writeFiles(work, { "n.txt": "n" });
  await git(work, "add", "n.txt");
  await git(work, "commit", "-q", "-m", "n");
  const head2 = (await git(work, "rev-parse", "HEAD")).slice(0, 7);
  const behind = await oneItem(work, { repos_clean: { pushed: true } }, ctx);
  assert.equal(behind.status, "fail");
  assert.equal(
    behind.details,
    `not pushed: main HEAD ${head2} does not match origin/main ${head} [compared with cached upstream; network disabled]`,
  );
});

Deno.test("verifyContract() repos_clean pushed with network asks the remote with ls-remote", async () => {
  await using dir = await tempDir();
  const { work, remote } = await repoWithRemote(dir.path);
  const ctx = { repos: { app: work, packet: `${dir.path}/packet` }, defaultScope: work };
  const head = (await git(work, "rev-parse", "HEAD")).slice(0, 7);
  const ok = await oneItem(work, { repos_clean: { pushed: true, network: true } }, ctx);
  assert.equal(ok.details, `ok: main at ${head} (pushed to origin/main)`);
  await git(remote, "update-ref", "-d", "refs/heads/main");
  const absent = await oneItem(work, { repos_clean: { pushed: true, network: true } }, ctx);
  assert.equal(absent.status, "fail");
  assert.equal(
    absent.details,
    `not pushed: main HEAD ${head} does not match origin/main (unresolved) [refs/heads/main is absent from origin]`,
  );
  await git(work, "remote", "set-url", "origin", `${dir.path}/gone.git`);
  const fallback = await oneItem(work, { repos_clean: { pushed: true, network: true, remote_timeout_ms: 5000 } }, ctx);
  assert.equal(fallback.status, "pass");
  assert.match(fallback.details, /compared with cached upstream, which can only be behind\]$/);
});

Deno.test("verifyContract() repos_clean without upstream fails when pushed is required", async () => {
  await using dir = await tempDir();
  await initRepo(dir.path);
  const head = (await git(dir.path, "rev-parse", "HEAD")).slice(0, 7);
  const item = await oneItem(dir.path, { repos_clean: { repo: "app", pushed: true } });
  assert.equal(item.status, "fail");
  assert.equal(item.details, `no upstream for branch main at ${head}; pushed: true requires one`);
});

Deno.test("verifyContract() repos_clean ignores the store root, even records committed there and appended to since", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n", "packet/.prompt_runner/interventions/01.jsonl": "{}\n" });
  await writeFiles(app, { "packet/.prompt_runner/interventions/01.jsonl": "{}\n{}\n" });
  const opts = {
    repos: { app, packet: `${app}/packet` },
    storeRoot: `${app}/packet/.prompt_runner`,
  };
  const clean = await oneItem(app, { repos_clean: ["app"] }, opts);
  assert.equal(clean.status, "pass", clean.details);
  assert.equal(clean.dirty_count, 0);
  await writeFiles(app, { "README.md": "changed\n" });
  const dirty = await oneItem(app, { repos_clean: ["app"] }, opts);
  assert.equal(dirty.status, "fail");
  assert.equal(dirty.details, "uncommitted changes (1):  M README.md");
});
