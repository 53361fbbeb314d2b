/**
 * Workspace targets (docs/reference/cli.md §2, docs/reference/workspace.md §5–§7): which workspace a command addresses, the packet inside its
 * clones, the external store root, and the repo remap that points the packet's repos at the clones.
 */
import { NotFoundError, PacketError, UsageError } from "../errors.ts";
import { ensureStoreRoot, readStoreInfo } from "../store/layout.ts";
import { storePaths } from "../store/paths.ts";
import type { Repo, RepoRemap } from "../packet/mod.ts";
import { exists, nullIfAbsent } from "../util/fs.ts";
import { assertNotInSource, canonicalPath, isInside, type SourceTree, sourceTrees } from "./guard.ts";
import { loadWorkspaceManifest, normalize, type WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, type WorkspacePaths, workspacePaths } from "./paths.ts";
import { discoverWorkspace, findRegistered, isPrepared } from "./registry.ts";

const PACKET_MANIFEST = "prompt_runner_packet.md";

/** How the workspace was named on the command line. */
export type WorkspaceInputKind = "flag" | "manifest" | "id" | "discover";

/** Input of {@link resolveWorkspaceTarget}. */
export interface WorkspaceInput {
  kind: WorkspaceInputKind;
  /** A manifest path, a workspace id, or (discover) the working directory. */
  value: string;
  /** `--packet P`, or null. */
  packetFlag: string | null;
  /** Directory relative paths resolve from. */
  cwd: string;
  /** Refuse (exit 2) when no `--packet` is given and the manifest has no default binding. */
  requirePacketBinding?: boolean;
  /**
   * Create the store root (`store.json`, `.gitignore`) when it does not exist yet (writing commands); a function
   * decides from the store root path.
   */
  createStore?: boolean | ((storeRoot: string) => boolean);
}

/** A resolved workspace target. */
export interface WorkspaceTarget {
  manifest: WorkspaceManifest;
  paths: WorkspacePaths;
  /** Canonical packet directory inside a clone. */
  packetDir: string;
  /** The workspace repository whose clone holds the packet, and the packet's path relative to it. */
  repo: string;
  packetPath: string;
  /** Whether this is the manifest's default packet binding. */
  bound: boolean;
  /** `<runtime_root>/packet` or `<runtime_root>/packets/<repo>--<path>`. */
  storeRoot: string;
  /** Repo mapping and body rewriting for the packet loader (docs/reference/workspace.md §6.2). */
  remap: RepoRemap;
  /** `failure_policy: continue_independent`. */
  keepGoing: boolean;
  /** `commits.mode`: `session` makes the run's default commit policy `--no-commit`. */
  commitMode: "runner" | "session";
  /** `operator.containment`: how `start` launches the detached runner. */
  containment: "process_group" | "systemd_user";
}

/** An environment reader that treats variables it may not read as unset. */
const tolerantEnv: EnvGet = (name) => {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
};

function envUsable(env: EnvGet): boolean {
  return Boolean(env("XDG_DATA_HOME") || env("HOME"));
}

function notPrepared(m: WorkspaceManifest): NotFoundError {
  return new NotFoundError("workspace_not_prepared", `workspace "${m.id}" is not prepared`, {
    hints: [`run: prompt_runner workspace prepare ${m.path}`],
  });
}

function bindingRequired(m: WorkspaceManifest): UsageError {
  return new UsageError(
    "workspace_packet_binding_required",
    `workspace "${m.id}" has no default packet binding (packet: in ${m.path})`,
    { hints: [`use the explicit form: --workspace ${m.path} --packet <path>`] },
  );
}

async function manifestFor(input: WorkspaceInput, env: EnvGet): Promise<WorkspaceManifest | null> {
  switch (input.kind) {
    case "manifest":
      return await loadWorkspaceManifest(input.value);
    case "flag": {
      const path = input.value.startsWith("/") ? input.value : `${input.cwd}/${input.value}`;
      const isFile = await Deno.stat(path).then((s) => s.isFile, () => false);
      if (isFile) return await loadWorkspaceManifest(path);
      const entry = envUsable(env) ? await findRegistered(input.value, env) : null;
      if (!entry) {
        throw new NotFoundError(
          "unknown_workspace",
          `unknown workspace "${input.value}": not a manifest file and not a registered workspace id`,
          { hints: ["run: prompt_runner workspace list"] },
        );
      }
      return await loadWorkspaceManifest(entry.manifest);
    }
    case "id": {
      if (!envUsable(env)) return null;
      const entry = await findRegistered(input.value, env);
      return entry ? await loadWorkspaceManifest(entry.manifest) : null;
    }
    case "discover": {
      if (!envUsable(env)) return null;
      const id = await discoverWorkspace(canonicalPath(input.value), env);
      if (id === null) return null;
      const entry = await findRegistered(id, env);
      return entry ? await loadWorkspaceManifest(entry.manifest) : null;
    }
  }
}

interface Clone {
  repo: string;
  path: string;
}

function clonesOf(m: WorkspaceManifest, paths: WorkspacePaths): Clone[] {
  return m.repositories.map((r) => ({ repo: r.name, path: canonicalPath(paths.clone(r.name)) }));
}

function relUnder(path: string, root: string): string {
  return path === root ? "" : path.slice(root.length + 1);
}

/** Where `--packet P` lies: a clone (repo + relative path), or a source tree mapped to its clone. */
async function locatePacket(
  m: WorkspaceManifest,
  clones: Clone[],
  sources: SourceTree[],
  given: string,
  cwd: string,
): Promise<{ repo: string; rel: string }> {
  const abs = given.startsWith("/") ? given : `${cwd}/${given}`;
  if (await exists(abs)) {
    const canon = canonicalPath(abs);
    const inClone = clones.find((c) => isInside(canon, c.path));
    if (inClone) return { repo: inClone.repo, rel: relUnder(canon, inClone.path) };
    const inSource = sources.find((s) => isInside(canon, s.path));
    if (inSource) return { repo: inSource.repo, rel: relUnder(canon, inSource.path) };
    if (given.startsWith("/")) {
      throw new UsageError(
        "packet_outside_workspace",
        `--packet ${given} lies outside every clone of workspace "${m.id}" (${clones.map((c) => c.path).join(", ")})`,
        { hints: ["name a packet inside a clone, inside a repository's source, or repository-relative"] },
      );
    }
  }
  if (!given.startsWith("/")) {
    const rel = normalize(`/${given}`).slice(1);
    const order = [
      ...clones.filter((c) => c.repo === m.packet?.repo),
      ...clones.filter((c) => c.repo !== m.packet?.repo),
    ];
    for (const c of order) {
      if (await exists(`${c.path}/${rel}/${PACKET_MANIFEST}`)) {
        const canon = canonicalPath(`${c.path}/${rel}`);
        if (!isInside(canon, c.path)) continue;
        return { repo: c.repo, rel: relUnder(canon, c.path) };
      }
    }
    throw new NotFoundError(
      "target_not_found",
      `packet "${given}" is not in any clone of workspace "${m.id}" (${m.repositories.map((r) => r.name).join(", ")})`,
      { hints: ["--packet takes a path inside a clone, inside a repository's source, or repository-relative"] },
    );
  }
  throw new NotFoundError("target_not_found", `packet not found: ${given}`);
}

/** Without a binding: the workspace's packet store root whose run was active most recently, or null. */
async function newestStoreRoot(paths: WorkspacePaths): Promise<string | null> {
  let best: { root: string; at: number } | null = null;
  try {
    for await (const e of Deno.readDir(`${paths.runtimeRoot}/packets`)) {
      if (!e.isDirectory) continue;
      const root = `${paths.runtimeRoot}/packets/${e.name}`;
      const sp = storePaths(root);
      const st = await Deno.stat(sp.snapshot).catch(nullIfAbsent) ?? await Deno.stat(sp.storeJson).catch(nullIfAbsent);
      const at = st?.mtime?.getTime() ?? -1;
      if (st && (!best || at > best.at)) best = { root, at };
    }
  } catch (e) {
    nullIfAbsent(e); // no packets yet; anything else (unreadable, not a directory) is thrown naming the path
  }
  return best?.root ?? null;
}

/**
 * The store root of a packet other than the bound one. A store an earlier release made under the legacy name (which
 * two packets such as `a/b-c` and `a-b/c` shared) is kept when its `store.json` names this very packet and no store
 * exists under the current name; any other store under the legacy name belongs to another packet and is left alone.
 */
async function packetStoreRoot(paths: WorkspacePaths, repo: string, rel: string, packetDir: string): Promise<string> {
  const root = paths.storeRootFor(repo, rel);
  const legacy = paths.legacyStoreRootFor(repo, rel);
  if (legacy === root || await exists(root)) return root;
  const info = await readStoreInfo(legacy).catch(() => null);
  return info?.packet_dir === packetDir ? legacy : root;
}

/** Build the repo remap of a packet in a workspace (exported for tests). */
export function buildRepoRemap(
  m: WorkspaceManifest,
  paths: WorkspacePaths,
  packet: { repo: string; rel: string; dir: string },
): RepoRemap {
  const clones = clonesOf(m, paths);
  const sources = sourceTrees(m.repositories);
  const cloneOf = (name: string) => clones.find((c) => c.repo === name)!.path;
  const packetSource = sources.find((s) => s.repo === packet.repo);
  const packetSourceDir = packetSource ? (packet.rel ? `${packetSource.path}/${packet.rel}` : packetSource.path) : null;
  const pairs = new Map<string, string>();
  for (const s of sources) pairs.set(s.path, cloneOf(s.repo));
  for (const r of m.repositories) if (r.source && !pairs.has(r.source)) pairs.set(r.source, cloneOf(r.name));
  const authorPaths = (repo: Readonly<Repo>): string[] => {
    const c = repo.configuredPath;
    if (c === "") return [];
    if (c.startsWith("/")) return [normalize(c)];
    return packetSourceDir ? [normalize(`${packetSourceDir}/${c}`)] : [];
  };
  return {
    artifacts: Object.fromEntries(m.artifacts.map((a) => [a.id, paths.artifact(a.id)])),
    repoPath(repo) {
      if (repo.path !== "" && clones.some((c) => isInside(repo.path, c.path))) return repo.path;
      for (const author of authorPaths(repo)) {
        for (const candidate of new Set([author, canonicalPath(author)])) {
          const s = sources.find((x) => isInside(candidate, x.path));
          if (!s) continue;
          const mapped = candidate === s.path ? cloneOf(s.repo) : `${cloneOf(s.repo)}/${relUnder(candidate, s.path)}`;
          if (repo.configuredPath.startsWith("/")) pairs.set(author, mapped);
          return mapped;
        }
      }
      if (m.repositories.some((r) => r.name === repo.name)) {
        const mapped = cloneOf(repo.name);
        if (repo.configuredPath.startsWith("/")) pairs.set(normalize(repo.configuredPath), mapped);
        return mapped;
      }
      throw new PacketError(
        "workspace_repo_unmapped",
        `${packet.dir}/${PACKET_MANIFEST}: repos.${repo.name}: path "${repo.configuredPath}" does not correspond to ` +
          `a repository of workspace "${m.id}"; expected one of the names ${
            m.repositories.map((r) => r.name).join(", ")
          } or a path inside a repository's source`,
        { file: `${packet.dir}/${PACKET_MANIFEST}`, key: `repos.${repo.name}` },
      );
    },
    rewriteText(text) {
      const froms = [...pairs.keys()].filter((f) => f !== "/" && f !== pairs.get(f)).sort((a, b) =>
        b.length - a.length
      );
      if (froms.length === 0) return text;
      const re = new RegExp(`(${froms.map(escapeRe).join("|")})(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])`, "g");
      return text.replace(re, (hit) => pairs.get(hit) ?? hit);
    },
  };
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Resolve a workspace target. Returns null when an id / the cwd does not name a registered workspace (packet rules
 * then apply). Errors: unknown workspace or not prepared (exit 4), ambiguous discovery, missing binding or a packet
 * outside the clones (exit 2), a write location inside a `source` tree (exit 3).
 */
export async function resolveWorkspaceTarget(
  input: WorkspaceInput,
  env: EnvGet = tolerantEnv,
): Promise<WorkspaceTarget | null> {
  const m = await manifestFor(input, env);
  if (!m) return null;
  if (!(await isPrepared(m, env))) throw notPrepared(m);
  const paths = workspacePaths(m, env);
  const clones = clonesOf(m, paths);
  const sources = sourceTrees(m.repositories);
  let packetFlag = input.packetFlag;
  if (packetFlag === null && input.kind === "discover" && (await exists(`${input.cwd}/${PACKET_MANIFEST}`))) {
    packetFlag = input.cwd;
  }
  let where: { repo: string; rel: string };
  if (packetFlag !== null) where = await locatePacket(m, clones, sources, packetFlag, input.cwd);
  else if (m.packet) where = { repo: m.packet.repo, rel: m.packet.path };
  else {
    if (input.requirePacketBinding) throw bindingRequired(m);
    const root = await newestStoreRoot(paths);
    const info = root ? await readStoreInfo(root) : null;
    if (!info) throw bindingRequired(m);
    where = await locatePacket(m, clones, [], info.packet_dir, input.cwd);
  }
  const clone = clones.find((c) => c.repo === where.repo)!;
  const dirRaw = where.rel ? `${clone.path}/${where.rel}` : clone.path;
  if (!(await exists(`${dirRaw}/${PACKET_MANIFEST}`))) {
    throw new NotFoundError(
      "target_not_found",
      `${dirRaw} is not a packet: ${PACKET_MANIFEST} not found in clone ${where.repo} of workspace "${m.id}"`,
      { hints: [`the clone may be behind; run: prompt_runner workspace prepare ${m.path}`] },
    );
  }
  const packetDir = canonicalPath(dirRaw);
  if (!isInside(packetDir, clone.path)) {
    throw new UsageError("packet_outside_workspace", `${dirRaw} resolves outside clone ${where.repo} (${packetDir})`);
  }
  const rel = relUnder(packetDir, clone.path);
  const bound = m.packet !== null && m.packet.repo === where.repo && normalize(`/${m.packet.path}`) === `/${rel}`;
  const storeRoot = canonicalPath(
    bound ? paths.boundStoreRoot : await packetStoreRoot(paths, where.repo, rel, packetDir),
  );
  assertNotInSource(storeRoot, sources, "store root");
  assertNotInSource(packetDir, sources, "packet directory");
  const create = typeof input.createStore === "function" ? input.createStore(storeRoot) : input.createStore === true;
  if (create && !(await exists(storePaths(storeRoot).storeJson))) {
    ensureStoreRoot(storeRoot, { kind: "workspace", packetDir, workspaceId: m.id, manifest: m.path });
  }
  return {
    manifest: m,
    paths,
    packetDir,
    repo: where.repo,
    packetPath: rel,
    bound,
    storeRoot,
    remap: buildRepoRemap(m, paths, { repo: where.repo, rel, dir: packetDir }),
    keepGoing: m.failurePolicy === "continue_independent",
    commitMode: m.commits.mode,
    containment: m.containment,
  };
}
