/**
 * Contract artifacts as `workspace plan` and `workspace doctor` see them (docs/reference/workspace.md §10): what prepare
 * would build and install, and whether the installed copies are still the ones prepare recorded. Read-only.
 */
import { findOnPath } from "../util/mod.ts";
import type { WorkspaceArtifact, WorkspaceManifest } from "./manifest.ts";
import type { WorkspacePaths } from "./paths.ts";

/** One artifact in a plan. */
export interface PlannedArtifact {
  id: string;
  type: WorkspaceArtifact["type"];
  repo: string;
  project: string;
  /** Where prepare installs it (`@artifact:<id>`). */
  path: string;
  /** What prepare would run, in order. */
  steps: string[];
  /** Why prepare would refuse it, or null (a project inside a clone not made yet cannot be checked). */
  problem: string | null;
}

/** One artifact in a doctor report. */
export interface ArtifactCheck {
  id: string;
  path: string;
  ready: boolean;
  /** The sha256 prepare recorded in the lock, or null. */
  lock_sha256: string | null;
  /** The installed file's sha256, or null when it is missing. */
  sha256: string | null;
  error: string | null;
}

async function sha256Of(path: string): Promise<string | null> {
  try {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  } catch {
    return null;
  }
}

async function kindOf(path: string): Promise<"file" | "dir" | "missing" | "other"> {
  const st = await Deno.stat(path).catch(() => null);
  return st === null ? "missing" : st.isFile ? "file" : st.isDirectory ? "dir" : "other";
}

/** What prepare would do for each artifact of `m` (in id order), and what would make it refuse. */
export async function planArtifacts(
  m: WorkspaceManifest,
  paths: WorkspacePaths,
  pathVar: string,
): Promise<PlannedArtifact[]> {
  const out: PlannedArtifact[] = [];
  for (const a of [...m.artifacts].sort((x, y) => x.id.localeCompare(y.id))) {
    const clone = paths.clone(a.repo);
    const project = `${clone}/${a.project}`;
    const dest = paths.artifact(a.id);
    const cloned = (await kindOf(clone)) === "dir";
    const kind = cloned ? await kindOf(project) : "missing";
    let problem: string | null = null;
    let steps: string[];
    if (a.type === "command") {
      steps = [`install a copy of ${a.repo}/${a.project} (0755) → ${dest}`];
      if (cloned && kind !== "file") problem = `${a.project} is not a file in clone ${a.repo}`;
    } else {
      steps = [`mix escript.build in ${a.repo}/${a.project} (MIX_ENV=prod)`, `install the escript → ${dest}`];
      if (await findOnPath("mix", pathVar) === null) problem = "needs Elixir's mix on PATH; not found";
      else if (cloned && (await kindOf(`${project}/mix.exs`)) !== "file") problem = `${a.project} has no mix.exs`;
    }
    out.push({ id: a.id, type: a.type, repo: a.repo, project: a.project, path: dest, steps, problem });
  }
  return out;
}

/** Whether each declared artifact is installed as prepare recorded it (`lock`: the lock record's artifacts). */
export async function checkArtifacts(
  m: WorkspaceManifest,
  paths: WorkspacePaths,
  lock: Record<string, { sha256?: unknown }> | null,
): Promise<ArtifactCheck[]> {
  const out: ArtifactCheck[] = [];
  for (const a of [...m.artifacts].sort((x, y) => x.id.localeCompare(y.id))) {
    const path = paths.artifact(a.id);
    const recorded = lock?.[a.id]?.sha256;
    const lockSha = typeof recorded === "string" ? recorded : null;
    const sha = (await kindOf(path)) === "file" ? await sha256Of(path) : null;
    let error: string | null = null;
    if (sha === null) error = "not installed; run: prompt_runner workspace prepare";
    else if (lockSha === null) error = "not in the lock record; run: prompt_runner workspace prepare";
    else if (sha !== lockSha) {
      error = `changed since prepare installed it (sha256 ${sha.slice(0, 12)}, recorded ${lockSha.slice(0, 12)})`;
    }
    out.push({ id: a.id, path, ready: error === null, lock_sha256: lockSha, sha256: sha, error });
  }
  return out;
}
