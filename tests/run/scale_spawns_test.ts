/**
 * Regression guard for per-prompt CPU (issue #13, docs/bench.md `scale`): a git spawn of the large runner process is
 * most of what a trivial prompt costs, so a prompt's start takes HEAD and the dirty set from one `git status` per
 * target repo and the preserved refs are listed once per run. Counted, not timed (src/util/read_meter.ts).
 */
import assert from "node:assert/strict";
import { git, initRepo, tempDir } from "../support/fs.ts";
import { writeScalePacket } from "../../scripts/bench/_scale_packet.ts";
import { runScalePacket } from "./_scale_run.ts";
import { captureBaseline, type RepoBaseline } from "../../src/run/dirty.ts";
import { PreservedRefs, preserveFailedWork, restorePreserved } from "../../src/run/preserve.ts";
import { spawnTotals } from "../../src/util/read_meter.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { parseProgress } from "../../src/store/progress.ts";

/** `run <dir> --no-commit` in this process; returns the git processes it started. */
async function gitSpawnsOfRun(dir: string, count: number): Promise<number> {
  const before = spawnTotals("git");
  const shells = spawnTotals("helper_shell");
  await runScalePacket(dir);
  const progress = parseProgress(await Deno.readTextFile(`${dir}/.prompt_runner/progress.log`), "progress.log");
  assert.equal([...progress.values()].filter((r) => r.status === "completed").length, count);
  assert.equal(spawnTotals("helper_shell") - shells, 1, "the run's git queries go through one helper shell");
  return spawnTotals("git") - before;
}

Deno.test("a trivial prompt starts exactly one git (its baseline), through the run's helper shell", async () => {
  await using dir = await tempDir();
  await writeScalePacket(`${dir.path}/one`, 1);
  await writeScalePacket(`${dir.path}/six`, 6);
  const one = await gitSpawnsOfRun(`${dir.path}/one`, 1);
  const six = await gitSpawnsOfRun(`${dir.path}/six`, 6);
  assert.equal(six - one, 5, `1 prompt: ${one} git spawns, 6 prompts: ${six}`);
});

Deno.test("captureBaseline takes HEAD and the dirty paths from one git status per repo", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n", "a.txt": "a\n" });
  await Deno.writeTextFile(`${app}/a.txt`, "changed\n");
  await Deno.writeTextFile(`${app}/new.txt`, "n\n");
  await git(app, "mv", "README.md", "READ.md");
  const packet = await loadPacketWithRepo(dir.path, app);
  const before = spawnTotals("git");
  const [b] = await captureBaseline(packet, packet.prompts[0]!, null);
  assert.equal(spawnTotals("git") - before, 1);
  assert.equal(b!.head, await git(app, "rev-parse", "HEAD"));
  assert.deepEqual(b!.dirty, ["READ.md", "README.md", "a.txt", "new.txt"], "both sides of a rename, untracked too");
  // An interrupted prompt's recorded baseline replaces the dirty set; HEAD is still read.
  const [r] = await captureBaseline(packet, packet.prompts[0]!, null, { app: ["a.txt"] });
  assert.deepEqual(r!.dirty, ["a.txt"]);
  assert.equal(r!.head, b!.head);
  // An unborn repo has no HEAD; a missing one is no repo at all.
  const fresh = `${dir.path}/fresh`;
  await Deno.mkdir(fresh);
  await git(fresh, "init", "-q");
  const [u] = await captureBaseline(await loadPacketWithRepo(dir.path, fresh, "p2"), packet.prompts[0]!, null);
  assert.equal(u!.head, null);
});

async function loadPacketWithRepo(root: string, repo: string, name = "pkt") {
  const dir = `${root}/${name}`;
  await Deno.mkdir(`${dir}/prompts`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/prompt_runner_packet.md`,
    `---\nname: t\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: ${repo}, default: true}\n---\n`,
  );
  await Deno.writeTextFile(`${dir}/prompts/01_a.prompt.md`, `---\nid: "01"\n---\n# A\n\nDo it.\n`);
  return await loadPacket(dir);
}

async function baselineOf(path: string): Promise<RepoBaseline[]> {
  return [{
    name: "app",
    path,
    root: await Deno.realPath(path),
    head: await git(path, "rev-parse", "HEAD"),
    dirty: [],
  }];
}

Deno.test("PreservedRefs lists a repo once, sees this run's own preserved work after invalidate", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n" });
  const refs = new PreservedRefs();
  const repos = [{ path: app }];
  for (const id of ["01", "02", "03"]) assert.equal(await refs.newest(repos, id), null);
  assert.equal(refs.listings, 1, "one for-each-ref for three prompt starts");
  await Deno.writeTextFile(`${app}/work.txt`, "w\n");
  const { work } = await preserveFailedWork(await baselineOf(app), {
    runId: "R1",
    promptId: "02",
    storeRoot: null,
    reason: "failed: x",
  });
  assert.equal(work?.ref, "refs/prompt_runner/preserved/R1/02");
  assert.equal(await refs.newest(repos, "02"), null, "memoised until invalidated");
  refs.invalidate(repos);
  assert.equal(await refs.newest(repos, "02"), "refs/prompt_runner/preserved/R1/02");
  assert.equal(refs.listings, 2);
});

Deno.test("restorePreserved with a ref deleted since it was looked up restores nothing and claims nothing", async () => {
  await using dir = await tempDir();
  const app = `${dir.path}/app`;
  await initRepo(app, { "README.md": "# r\n" });
  await Deno.writeTextFile(`${app}/work.txt`, "w\n");
  const { work } = await preserveFailedWork(await baselineOf(app), {
    runId: "R1",
    promptId: "01",
    storeRoot: null,
    reason: "failed: x",
  });
  await git(app, "update-ref", "-d", work!.ref);
  const out = await restorePreserved(await baselineOf(app), "01", Promise.resolve(work!.ref));
  assert.deepEqual(out, { ref: null, repos: [], skipped: null });
  assert.equal(await Deno.stat(`${app}/work.txt`).then(() => true, () => false), false);
});
