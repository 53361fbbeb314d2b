/** The workspace part of the status rollup (workspace.md §8): one fact line per clone. */
import { runGit } from "./git.ts";
import type { WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, workspacePaths } from "./paths.ts";

/** One clone as `workspace status` reports it. */
export interface CloneFacts {
  name: string;
  path: string;
  /** Full commit id of HEAD, or null when unreadable. */
  head: string | null;
  /** Checked-out branch, or null when detached or unreadable. */
  branch: string | null;
  /** Number of `git status --porcelain` entries. */
  dirty: number;
}

/** The `workspace` section of `prompt_runner.status/v1` (workspace.md §8.2). */
export interface WorkspaceSection {
  id: string;
  manifest: string;
  repositories: CloneFacts[];
}

const STATUS_GIT_TIMEOUT_MS = 30_000;

/** Read HEAD, branch and dirtiness of every clone (git, bounded). */
export async function workspaceSection(m: WorkspaceManifest, env?: EnvGet): Promise<WorkspaceSection> {
  const paths = workspacePaths(m, env);
  const repositories: CloneFacts[] = [];
  for (const r of m.repositories) {
    const path = paths.clone(r.name);
    const head = await runGit(path, ["rev-parse", "HEAD"], STATUS_GIT_TIMEOUT_MS).catch(() => null);
    const branch = await runGit(path, ["symbolic-ref", "-q", "--short", "HEAD"], STATUS_GIT_TIMEOUT_MS)
      .catch(() => null);
    const status = await runGit(path, ["status", "--porcelain"], STATUS_GIT_TIMEOUT_MS).catch(() => null);
    repositories.push({
      name: r.name,
      path,
      head: head?.ok ? head.stdout : null,
      branch: branch?.ok && branch.stdout !== "" ? branch.stdout : null,
      dirty: status?.ok ? status.stdout.split("\n").filter((l) => l.trim() !== "").length : 0,
    });
  }
  return { id: m.id, manifest: m.path, repositories };
}

/** `<name> <short head> (<branch>)[ · <n> dirty]` (pure). */
export function cloneLine(c: CloneFacts): string {
  const head = c.head ? c.head.slice(0, 8) : "unknown";
  return `${c.name} ${head} (${c.branch ?? "detached"})${c.dirty > 0 ? ` · ${c.dirty} dirty` : ""}`;
}
