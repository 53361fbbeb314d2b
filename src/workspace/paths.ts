/** Workspace paths (docs/reference/workspace.md §3): XDG data/state homes, clones, store roots, registry entries. */
import type { WorkspaceManifest } from "./manifest.ts";

/** Environment reader (injectable for tests). */
export type EnvGet = (name: string) => string | undefined;

const denoEnv: EnvGet = (n) => Deno.env.get(n);

function home(env: EnvGet): string {
  const h = env("HOME");
  if (!h) throw new Error("HOME is not set; cannot locate the XDG data and state directories");
  return h;
}

/** `$XDG_DATA_HOME/prompt_runner` (fallback `~/.local/share/prompt_runner`). */
function dataHome(env: EnvGet = denoEnv): string {
  return `${env("XDG_DATA_HOME") || `${home(env)}/.local/share`}/prompt_runner`;
}

/** `$XDG_STATE_HOME/prompt_runner` (fallback `~/.local/state/prompt_runner`). */
function stateHome(env: EnvGet = denoEnv): string {
  return `${env("XDG_STATE_HOME") || `${home(env)}/.local/state`}/prompt_runner`;
}

/** The registry directory holding `<id>.json` entries. */
export function registryDir(env: EnvGet = denoEnv): string {
  return `${dataHome(env)}/workspace-references`;
}

/** Resolved directories of one workspace. */
export interface WorkspacePaths {
  workspaceRoot: string;
  runtimeRoot: string;
  lockFile: string;
  registryEntry: string;
  clone(name: string): string;
  /** Store root of the bound packet (`<runtime_root>/packet`). */
  boundStoreRoot: string;
  /** Store root of another packet of a clone (`-` and `%` escaped: distinct packets never share one). */
  storeRootFor(repo: string, relPath: string): string;
  /**
   * The name earlier releases gave that store root (`/` → `-` only, so `a/b-c` and `a-b/c` shared it); read only to
   * keep such a store when its `store.json` names the same packet.
   */
  legacyStoreRootFor(repo: string, relPath: string): string;
  /** Installed contract artifact `<workspace_root>/artifacts/<id>` (`@artifact:<id>` in verifier argv). */
  artifact(id: string): string;
}

/** A repository-relative path as one directory name: `/` → `-` (surrounding slashes dropped). */
function flatten(relPath: string): string {
  return relPath.replace(/^\/+|\/+$/g, "").replaceAll("/", "-");
}

/** `%` → `%25`, `-` → `%2D`: after it, the only `-` in a store root's name are the separator and the flattened `/`. */
function escapeName(s: string): string {
  return s.replaceAll("%", "%25").replaceAll("-", "%2D");
}

/** Compute a workspace's paths from its manifest. */
export function workspacePaths(m: WorkspaceManifest, env: EnvGet = denoEnv): WorkspacePaths {
  const workspaceRoot = m.workspaceRoot === "auto" ? `${dataHome(env)}/workspaces/${m.id}` : m.workspaceRoot;
  const runtimeRoot = m.runtimeRoot === "auto" ? `${stateHome(env)}/workspaces/${m.id}` : m.runtimeRoot;
  return {
    workspaceRoot,
    runtimeRoot,
    lockFile: `${workspaceRoot}/workspace.lock.json`,
    registryEntry: `${registryDir(env)}/${m.id}.json`,
    clone: (name) => `${workspaceRoot}/repos/${name}`,
    boundStoreRoot: `${runtimeRoot}/packet`,
    storeRootFor: (repo, relPath) => `${runtimeRoot}/packets/${escapeName(repo)}--${flatten(escapeName(relPath))}`,
    legacyStoreRootFor: (repo, relPath) => `${runtimeRoot}/packets/${repo}--${flatten(relPath)}`,
    artifact: (id) => `${workspaceRoot}/artifacts/${id}`,
  };
}
