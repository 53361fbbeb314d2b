/**
 * `workspace prepare` holds each store root's run lock while it works (docs/reference/workspace.md §4): it refuses a
 * live run, and a run that starts while prepare moves the clones is refused (`lease_held`, exit 5) instead of working
 * in them. The lock carries no run record, so readers see no live run while prepare holds it.
 */
import assert from "node:assert/strict";
import { runCli, spawnCli } from "../support/cli.ts";
import { git, tempDir } from "../support/fs.ts";
import { waitFor } from "../support/wait.ts";
import { workspaceFixture } from "../workspace/fixture.ts";
import { acquireLease, holdStoreLock, readLease } from "../../src/store/lease.ts";
import { LeaseHeldError } from "../../src/errors.ts";

Deno.test("workspace prepare refuses while a run holds the lease, naming its pid", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const lease = await acquireLease(f.store, { runId: "20261204T120000Z-AAAAAA", packetDir: f.clone, argv: ["run"] });
  try {
    const r = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`workspace op-ws has a live run \\(pid ${Deno.pid}\\); prepare refused`));
  } finally {
    await lease.release();
  }
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
});

Deno.test("while prepare holds a store root's lock no run starts there, and readers see no live run", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  const held = await holdStoreLock(f.store, "workspace op-ws");
  assert.ok(held !== null, "the bound store root exists after the first prepare");
  try {
    assert.equal((await readLease(f.store)).state, "down", "no run record: no live run");
    const run = await runCli(["run", "op-ws"], { env: f.env });
    assert.equal(run.code, 5, run.stdout + run.stderr);
    assert.match(run.stderr, /is locked by another prompt_runner process \(a workspace prepare, or a run starting\)/);
    const prepare = await runCli(["workspace", "prepare", f.manifest], { env: f.env });
    assert.equal(prepare.code, 5, prepare.stdout + prepare.stderr);
    assert.match(prepare.stderr, /workspace op-ws is locked by another prompt_runner process/);
    const err = await acquireLease(f.store, { runId: "x", packetDir: f.clone, argv: [] }).then(() => null, (e) => e);
    assert.ok(err instanceof LeaseHeldError);
  } finally {
    held.release();
  }
  const run = await runCli(["run", "op-ws"], { env: f.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
});

Deno.test("a run started while prepare is fetching is refused; once prepare is done it runs", async () => {
  await using dir = await tempDir();
  const f = await workspaceFixture(dir.path);
  assert.equal((await runCli(["workspace", "prepare", f.manifest], { env: f.env })).code, 0);
  // The next fetch waits for a file this test creates: prepare is mid-way for as long as the test needs.
  const gate = `${dir.path}/gate`;
  await git(
    f.clone,
    "config",
    "remote.origin.uploadpack",
    `while [ ! -e ${gate} ]; do sleep 0.05; done; git-upload-pack`,
  );
  const prepare = spawnCli(["workspace", "prepare", f.manifest], { env: f.env });
  try {
    await waitFor(async () => (await readLease(f.store)).state === "down" && await lockTaken(f.store), {
      intervalMs: 10,
      what: "prepare holding the store lock",
    });
    const run = await runCli(["run", "op-ws"], { env: f.env });
    assert.equal(run.code, 5, run.stdout + run.stderr);
    assert.match(run.stderr, /is locked by another prompt_runner process/);
  } finally {
    await Deno.writeTextFile(gate, "");
  }
  const done = await prepare.output();
  assert.equal(done.code, 0, new TextDecoder().decode(done.stderr));
  const run = await runCli(["run", "op-ws"], { env: f.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
});

/** Whether another open file description holds `run.lock` (probed and released at once). */
async function lockTaken(store: string): Promise<boolean> {
  const file = await Deno.open(`${store}/run.lock`, { read: true }).catch(() => null);
  if (file === null) return false;
  try {
    const got = await file.tryLock(true);
    if (got) await file.unlock();
    return !got;
  } finally {
    file.close();
  }
}

Deno.test("holdStoreLock(): nothing to hold under a store root that does not exist; lease_held when a run has it", async () => {
  await using dir = await tempDir();
  assert.equal(await holdStoreLock(`${dir.path}/absent`, "x"), null);
  const store = `${dir.path}/store`;
  const lease = await acquireLease(store, { runId: "r", packetDir: dir.path, argv: [] });
  try {
    const err = await holdStoreLock(store, "demo").then(() => null, (e) => e);
    assert.ok(err instanceof LeaseHeldError);
    assert.match(err.message, new RegExp(`demo is already being run by pid ${Deno.pid}`));
  } finally {
    await lease.release();
  }
  const held = await holdStoreLock(store, "demo");
  assert.ok(held !== null);
  held.release();
});
