/** `workspace prepare` (docs/reference/workspace.md §4): independent clones, store root, lock record and registry entry. */
import { LeaseHeldError, RunFailedError } from "../errors.ts";
import { atomicWriteJson, ensureDir, exists, nullIfAbsent } from "../util/fs.ts";
import { atomicWriteStoreJson, createStoreFileOnceSync, ensureStoreDir, secureStoreRoot } from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";
import { holdStoreLock, readLease } from "../store/lease.ts";
import type { WorkspaceManifest, WorkspaceRepository } from "./manifest.ts";
import { type EnvGet, workspacePaths } from "./paths.ts";
import { gitOrThrow, runGit } from "./git.ts";
import { assertNotInSource, sourceTrees } from "./guard.ts";
import { assertIdFree } from "./registry.ts";
import { VERSION } from "../version.ts";
import { buildArtifacts, type LockedArtifact } from "./artifacts.ts";

/** One repository's line in the lock record. */
export interface LockedRepository {
  path: string;
  remote: string;
  ref: string;
  commit: string;
  independent: true;
}

/** `workspace.lock.json`. */
export interface WorkspaceLock {
  schema: "prompt_runner.workspace.lock/v1";
  workspace: string;
  manifest: string;
  runner_version: string;
  repositories: Record<string, LockedRepository>;
  /** Contract artifacts built by this prepare (docs/reference/workspace.md §4.1). */
  artifacts: Record<string, LockedArtifact>;
  written_at: string;
}

/** Result of preparing a workspace: the human lines and the lock record. */
export interface PrepareResult {
  lines: string[];
  lock: WorkspaceLock;
}

/** Every store root under a runtime root: the bound one and each `packets/<repo>--<path>`. */
export async function storeRootsOf(runtimeRoot: string, bound: string): Promise<string[]> {
  const roots = [bound];
  try {
    for await (const e of Deno.readDir(`${runtimeRoot}/packets`)) {
      if (e.isDirectory) roots.push(`${runtimeRoot}/packets/${e.name}`);
    }
  } catch { /* no other packets yet */ }
  return roots;
}

/** Check a clone is independent (docs/reference/workspace.md §2); returns the problem or null. */
export async function independenceProblem(clone: string): Promise<string | null> {
  const dotgit = await Deno.lstat(`${clone}/.git`).catch(nullIfAbsent);
  if (!dotgit) return `${clone} is not a git repository`;
  if (!dotgit.isDirectory) return `${clone} is a linked worktree, not an independent clone`;
  if (await exists(`${clone}/.git/objects/info/alternates`)) return `${clone} borrows objects through alternates`;
  return null;
}

async function updateClone(repo: WorkspaceRepository, clone: string, manifest: string): Promise<string> {
  const problem = await independenceProblem(clone);
  if (problem) throw new RunFailedError("workspace_clone_invalid", problem);
  const origin = (await runGit(clone, ["remote", "get-url", "origin"])).stdout;
  if (origin !== repo.remote) {
    throw new RunFailedError(
      "workspace_clone_invalid",
      `clone ${repo.name} at ${clone} has origin "${origin}", expected "${repo.remote}"`,
    );
  }
  const dirty = await gitOrThrow(clone, ["status", "--porcelain"]);
  if (dirty !== "") {
    const paths = dirty.split("\n").map((l) => l.slice(3));
    throw new RunFailedError(
      "workspace_clone_dirty",
      `clone ${repo.name} has uncommitted changes; prepare never discards work`,
      {
        hints: paths.slice(0, 20),
      },
    );
  }
  const before = await gitOrThrow(clone, ["rev-parse", "HEAD"]);
  const fetched = await runGit(clone, ["fetch", "--prune", "origin"]);
  if (!fetched.ok) {
    throw new RunFailedError(
      "workspace_clone_failed",
      `could not fetch origin ${repo.remote} into clone ${repo.name}: ${fetched.stderr || `exit ${fetched.code}`}`,
    );
  }
  const checkedOut = await runGit(clone, ["checkout", "-q", repo.ref]);
  if (!checkedOut.ok) {
    throw new RunFailedError(
      "workspace_clone_failed",
      `could not check out ref "${repo.ref}" in clone ${repo.name}: ${checkedOut.stderr || `exit ${checkedOut.code}`}` +
        `; expected a branch, tag or commit of ${repo.remote} (repositories.${repo.name}.ref in ${manifest})`,
    );
  }
  const merged = await runGit(clone, ["merge", "--ff-only", `origin/${repo.ref}`]);
  if (!merged.ok) {
    throw new RunFailedError(
      "workspace_diverged",
      `clone ${repo.name} (${repo.ref}) has diverged from origin/${repo.ref}; prepare never resets`,
      { hints: [merged.stderr] },
    );
  }
  const after = await gitOrThrow(clone, ["rev-parse", "HEAD"]);
  return before === after
    ? `${repo.name} already at ${after.slice(0, 8)}`
    : `updated ${repo.name} ${before.slice(0, 8)} → ${after.slice(0, 8)}`;
}

async function cloneRepo(repo: WorkspaceRepository, clone: string): Promise<string> {
  const parent = clone.slice(0, clone.lastIndexOf("/"));
  await ensureDir(parent);
  const tmp = `${parent}/.${repo.name}.cloning-${Deno.pid}`;
  await Deno.remove(tmp, { recursive: true }).catch(() => {});
  try {
    await gitOrThrow(parent, ["clone", "-q", "--no-hardlinks", "--no-checkout", "--", repo.source ?? repo.remote, tmp]);
    await gitOrThrow(tmp, ["remote", "set-url", "origin", repo.remote]);
    await gitOrThrow(tmp, ["checkout", "-q", repo.ref]);
    await Deno.rename(tmp, clone);
  } catch (e) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw new RunFailedError("workspace_clone_failed", `could not clone ${repo.name}: ${(e as Error).message}`);
  }
  const head = await gitOrThrow(clone, ["rev-parse", "HEAD"]);
  return `cloned ${repo.name} at ${head.slice(0, 8)} (${repo.ref})`;
}

/** Prepare (or update) a workspace. Idempotent; refuses while any of its store roots has a live runner. */
export async function prepareWorkspace(m: WorkspaceManifest, env?: EnvGet): Promise<PrepareResult> {
  const paths = workspacePaths(m, env);
  const sources = sourceTrees(m.repositories);
  assertNotInSource(paths.workspaceRoot, sources, "workspace root");
  assertNotInSource(paths.runtimeRoot, sources, "runtime root");
  await assertIdFree(m, env);
  // Each store root's run lock is held until prepare is done: a run that starts meanwhile is refused (lease_held)
  // instead of working in a clone prepare is moving under it.
  const held: { release(): void }[] = [];
  try {
    for (const root of await storeRootsOf(paths.runtimeRoot, paths.boundStoreRoot)) {
      const lease = await readLease(root);
      const hold = await holdStoreLock(root, `workspace ${m.id}`).catch((e) => {
        if (!(e instanceof LeaseHeldError)) throw e;
        const pid = lease.pid ?? e.details.pid ?? null;
        throw new LeaseHeldError(
          "lease_held",
          pid === null
            ? `workspace ${m.id} is locked by another prompt_runner process (a workspace prepare, or a run starting); ` +
              "prepare refused"
            : `workspace ${m.id} has a live run (pid ${pid}); prepare refused`,
        );
      });
      if (hold !== null) held.push(hold);
    }
    return await prepareHeld(m, paths);
  } finally {
    for (const h of held) h.release();
  }
}

/** {@link prepareWorkspace} once its store roots' run locks are held. */
async function prepareHeld(m: WorkspaceManifest, paths: ReturnType<typeof workspacePaths>): Promise<PrepareResult> {
  const lines: string[] = [];
  const repositories: Record<string, LockedRepository> = {};
  for (const repo of m.repositories) {
    const clone = paths.clone(repo.name);
    lines.push(await exists(clone) ? await updateClone(repo, clone, m.path) : await cloneRepo(repo, clone));
    repositories[repo.name] = {
      path: clone,
      remote: repo.remote,
      ref: repo.ref,
      commit: await gitOrThrow(clone, ["rev-parse", "HEAD"]),
      independent: true,
    };
  }
  if (m.packet) {
    const clone = await Deno.realPath(paths.clone(m.packet.repo));
    const packetDir = await Deno.realPath(`${clone}/${m.packet.path}`).catch(nullIfAbsent);
    if (!packetDir) {
      throw new RunFailedError(
        "workspace_packet_missing",
        `packet ${m.packet.path} does not exist in clone ${m.packet.repo}`,
      );
    }
    if (packetDir !== clone && !packetDir.startsWith(clone + "/")) {
      throw new RunFailedError(
        "workspace_packet_escapes",
        `packet.path ${m.packet.path} resolves outside clone ${m.packet.repo}`,
      );
    }
    // The runtime root and the bound store root: owned, 0700, no link followed (docs/store.md).
    await secureStoreRoot(paths.runtimeRoot);
    await ensureStoreDir(paths.runtimeRoot, paths.boundStoreRoot);
    await secureStoreRoot(paths.boundStoreRoot);
    await atomicWriteStoreJson(`${paths.boundStoreRoot}/store.json`, {
      schema: "prompt_runner.store/v1",
      kind: "workspace",
      workspace_id: m.id,
      manifest: m.path,
      packet_dir: packetDir,
    });
    createStoreFileOnceSync(`${paths.boundStoreRoot}/.gitignore`, "*\n");
  } else {
    await secureStoreRoot(paths.runtimeRoot);
  }
  const artifacts = await buildArtifacts(m, paths);
  for (const [id, a] of Object.entries(artifacts)) {
    lines.push(`built artifact ${id} (${a.type}) sha256 ${a.sha256.slice(0, 12)} → ${a.path}`);
  }
  const lock: WorkspaceLock = {
    schema: "prompt_runner.workspace.lock/v1",
    workspace: m.id,
    manifest: m.path,
    runner_version: VERSION,
    repositories,
    artifacts,
    written_at: nowIso(),
  };
  await atomicWriteJson(paths.lockFile, lock);
  await ensureDir(paths.registryEntry.slice(0, paths.registryEntry.lastIndexOf("/")));
  await atomicWriteJson(paths.registryEntry, {
    schema: "prompt_runner.workspace.reference/v1",
    workspace: m.id,
    manifest: m.path,
    lock: paths.lockFile,
    written_at: lock.written_at,
  });
  lines.push(`Workspace ${m.id} is prepared.`);
  return { lines, lock };
}
