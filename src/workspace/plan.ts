/**
 * `workspace plan` (docs/reference/workspace.md §10.1): what `workspace prepare` would do — clones, fetches, checkouts,
 * the runtime and store roots, the lock record and the registry entry — and what would make it refuse. It writes
 * nothing: files are only read, and git runs only as `git --no-optional-locks status`, which never touches the index.
 */
import { escapeControl } from "../util/escape.ts";
import { exists } from "../util/fs.ts";
import { readLease } from "../store/lease.ts";
import type { WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, workspacePaths } from "./paths.ts";
import { runGit } from "./git.ts";
import { assertNotInSource, sourceTrees } from "./guard.ts";
import { assertIdFree } from "./registry.ts";
import { independenceProblem, storeRootsOf } from "./prepare.ts";
import { cloneHeadFromFiles } from "./status.ts";
import { planArtifacts, type PlannedArtifact } from "./artifact_checks.ts";

/** One repository in the plan. */
export interface PlannedRepository {
  name: string;
  remote: string;
  ref: string;
  source: string | null;
  /** Where the clone is (or would be). */
  path: string;
  /** `clone` (missing), `update` (present: fetch, check out, fast-forward) or `refuse` (prepare would stop here). */
  action: "clone" | "update" | "refuse";
  /** HEAD and branch of a present clone (read from its files), else null. */
  head: string | null;
  branch: string | null;
  /** What prepare would run, in order. */
  steps: string[];
  /** Why prepare would refuse this repository, or null. */
  problem: string | null;
}

/** `prompt_runner.workspace.plan/v1`. */
export interface WorkspacePlan {
  schema: "prompt_runner.workspace.plan/v1";
  workspace: string;
  manifest: string;
  workspace_root: string;
  runtime_root: string;
  /** Whether the runtime root exists already (prepare creates it 0700 otherwise). */
  runtime_root_exists: boolean;
  repositories: PlannedRepository[];
  /** Contract artifacts prepare would build and install (docs/reference/workspace.md §4.1), in id order. */
  artifacts: PlannedArtifact[];
  /** The bound packet, its store root and whether that exists; null without a binding. */
  packet: { repo: string; path: string; store_root: string; store_exists: boolean } | null;
  lock_file: string;
  registry_entry: string;
  /** Every file or directory prepare would create or replace. */
  writes: string[];
  /** Why prepare would refuse as a whole (live run, a write into a source tree, a repository problem). */
  refusals: string[];
  /** Whether prepare would go through. */
  ok: boolean;
}

const PLAN_GIT_TIMEOUT_MS = 30_000;

/** The origin URL recorded in a clone's `.git/config`, or null (read from the file: no git process). */
async function originOf(clone: string): Promise<string | null> {
  const text = await Deno.readTextFile(`${clone}/.git/config`).catch(() => null);
  if (text === null) return null;
  let inOrigin = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) inOrigin = /^\[remote\s+"origin"\]$/.test(line);
    else if (inOrigin) {
      const m = /^url\s*=\s*(.*)$/.exec(line);
      if (m) return m[1]!.trim();
    }
  }
  return null;
}

async function planRepository(
  repo: WorkspaceManifest["repositories"][number],
  path: string,
): Promise<PlannedRepository> {
  const base = { name: repo.name, remote: repo.remote, ref: repo.ref, source: repo.source, path };
  if (!(await exists(path))) {
    return {
      ...base,
      action: "clone",
      head: null,
      branch: null,
      steps: [
        `clone ${repo.source ?? repo.remote} into a temporary sibling (--no-hardlinks, no checkout)`,
        `set origin to ${repo.remote}`,
        `check out ${repo.ref}`,
        `rename into ${path}`,
      ],
      problem: null,
    };
  }
  const { head, branch } = await cloneHeadFromFiles(path);
  let problem = await independenceProblem(path);
  if (problem === null) {
    const origin = await originOf(path);
    if (origin !== repo.remote) problem = `origin is "${origin ?? "unset"}", expected "${repo.remote}"`;
  }
  if (problem === null) {
    const st = await runGit(path, ["--no-optional-locks", "status", "--porcelain"], PLAN_GIT_TIMEOUT_MS);
    if (!st.ok) problem = `git status failed: ${st.stderr || `exit ${st.code}`}`;
    else if (st.stdout !== "") {
      const n = st.stdout.split("\n").length;
      problem = `${n} uncommitted path(s); prepare never discards work (commit them, or run the packet to finish them)`;
    }
  }
  return {
    ...base,
    action: problem === null ? "update" : "refuse",
    head,
    branch,
    steps: problem === null
      ? ["fetch --prune origin", `check out ${repo.ref}`, `fast-forward to origin/${repo.ref}`]
      : [],
    problem,
  };
}

/** Plan a prepare of `m` without writing anything (`pathVar`: where `mix` is looked up for escript artifacts). */
export async function planWorkspace(
  m: WorkspaceManifest,
  env?: EnvGet,
  pathVar = Deno.env.get("PATH") ?? "",
): Promise<WorkspacePlan> {
  const paths = workspacePaths(m, env);
  const refusals: string[] = [];
  const sources = sourceTrees(m.repositories);
  for (const [path, what] of [[paths.workspaceRoot, "workspace root"], [paths.runtimeRoot, "runtime root"]] as const) {
    try {
      assertNotInSource(path, sources, what);
    } catch (e) {
      refusals.push((e as Error).message);
    }
  }
  try {
    await assertIdFree(m, env);
  } catch (e) {
    refusals.push((e as Error).message);
  }
  for (const root of await storeRootsOf(paths.runtimeRoot, paths.boundStoreRoot)) {
    const lease = await readLease(root);
    if (lease.state === "up") {
      refusals.push(`a run is live in ${root} (pid ${lease.pid}); prepare refuses until it ends`);
    }
  }
  const repositories: PlannedRepository[] = [];
  for (const r of m.repositories) {
    const planned = await planRepository(r, paths.clone(r.name));
    if (planned.problem) refusals.push(`${r.name}: ${planned.problem}`);
    repositories.push(planned);
  }
  const artifacts = await planArtifacts(m, paths, pathVar);
  for (const a of artifacts) if (a.problem) refusals.push(`contracts.artifacts ${a.id} (${a.type}): ${a.problem}`);
  const runtimeExists = await exists(paths.runtimeRoot);
  const packet = m.packet
    ? {
      repo: m.packet.repo,
      path: m.packet.path,
      store_root: paths.boundStoreRoot,
      store_exists: await exists(`${paths.boundStoreRoot}/store.json`),
    }
    : null;
  const writes = [
    ...repositories.filter((r) => r.action === "clone").map((r) => r.path),
    ...(runtimeExists ? [] : [paths.runtimeRoot]),
    ...artifacts.map((a) => a.path),
    ...(packet ? [packet.store_exists ? `${packet.store_root}/store.json` : packet.store_root] : []),
    paths.lockFile,
    paths.registryEntry,
  ];
  return {
    schema: "prompt_runner.workspace.plan/v1",
    workspace: m.id,
    manifest: m.path,
    workspace_root: paths.workspaceRoot,
    runtime_root: paths.runtimeRoot,
    runtime_root_exists: runtimeExists,
    repositories,
    artifacts,
    packet,
    lock_file: paths.lockFile,
    registry_entry: paths.registryEntry,
    writes,
    refusals,
    ok: refusals.length === 0,
  };
}

/** The human form of a plan (pure). */
export function planLines(p: WorkspacePlan): string[] {
  const lines = [`Workspace ${p.workspace} (${p.manifest})`];
  for (const r of p.repositories) {
    const at = r.head ? ` at ${r.head.slice(0, 8)} (${r.branch ?? "detached"})` : "";
    lines.push(`  ${r.action.padEnd(6)} ${r.name}${at} → ${r.path}`);
    for (const s of r.steps) lines.push(`           ${s}`);
    if (r.problem) lines.push(`           refused: ${r.problem}`);
  }
  for (const a of p.artifacts) {
    lines.push(`  artifact ${a.id} (${a.type}) from ${a.repo}/${a.project} → ${a.path}`);
    for (const s of a.steps) lines.push(`           ${s}`);
    if (a.problem) lines.push(`           refused: ${a.problem}`);
  }
  lines.push(`  runtime  ${p.runtime_root}${p.runtime_root_exists ? "" : " (created, 0700)"}`);
  if (p.packet) {
    lines.push(
      `  packet   ${p.packet.repo}/${p.packet.path} · store ${p.packet.store_root}` +
        (p.packet.store_exists ? "" : " (created)"),
    );
  }
  lines.push(`  lock     ${p.lock_file}`, `  registry ${p.registry_entry}`);
  for (const r of p.refusals) lines.push(`  refuse   ${r}`);
  lines.push(p.ok ? "prepare would go through; nothing was written" : "prepare would refuse; nothing was written");
  // Origins, paths and problems come from the clones' files, which a session can write: shown escaped.
  return lines.map(escapeControl);
}
