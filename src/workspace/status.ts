/** The workspace part of the status rollup (docs/reference/workspace.md §8): one fact line per clone. */
import { runGit } from "./git.ts";
import type { WorkspaceManifest } from "./manifest.ts";
import { type EnvGet, workspacePaths } from "./paths.ts";
import { stripAnsi } from "../render/ansi.ts";
import { escapeControl } from "../util/escape.ts";

/** One clone as `workspace status` reports it. */
export interface CloneFacts {
  name: string;
  path: string;
  /** Full commit id of HEAD, or null when unreadable. */
  head: string | null;
  /** Checked-out branch, or null when detached or unreadable. */
  branch: string | null;
  /** Number of `git status --porcelain` entries; null when it could not be computed (no git allowed). */
  dirty: number | null;
}

/** The `workspace` section of `prompt_runner.status/v1` (docs/reference/workspace.md §8.2). */
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
function cloneLine(c: CloneFacts): string {
  const head = c.head ? c.head.slice(0, 8) : "unknown";
  // Read from the clone's files: shown with its control characters escaped.
  return escapeControl(`${c.name} ${head} (${c.branch ?? "detached"})${c.dirty ? ` · ${c.dirty} dirty` : ""}`);
}

/** A `.git` file's text, or null. Deliberately tolerant: display only, an unreadable one shows as `unknown`. */
async function readText(path: string): Promise<string | null> {
  try {
    return (await Deno.readTextFile(path)).trim();
  } catch {
    return null;
  }
}

/** HEAD and branch of a clone read from its `.git` files alone (for commands that may not spawn git). */
export async function cloneHeadFromFiles(clone: string): Promise<{ head: string | null; branch: string | null }> {
  const git = `${clone}/.git`;
  const headText = await readText(`${git}/HEAD`);
  if (headText === null) return { head: null, branch: null };
  const ref = /^ref: (refs\/heads\/.+)$/.exec(headText)?.[1];
  if (!ref) return { head: /^[0-9a-f]{40,64}$/.test(headText) ? headText : null, branch: null };
  const branch = ref.slice("refs/heads/".length);
  const loose = await readText(`${git}/${ref}`);
  if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return { head: loose, branch };
  const packed = await readText(`${git}/packed-refs`);
  const line = packed?.split("\n").find((l) => l.endsWith(` ${ref}`));
  return { head: line ? line.split(" ")[0]! : null, branch };
}

/**
 * The `workspace` section without running git: HEAD and branch from the clone's files, `dirty` null. Used by
 * `status`, whose permissions do not include spawning processes (docs/reference/cli.md §6); `workspace status` runs git.
 */
export async function workspaceSectionFromFiles(m: WorkspaceManifest, env?: EnvGet): Promise<WorkspaceSection> {
  const paths = workspacePaths(m, env);
  const repositories: CloneFacts[] = [];
  for (const r of m.repositories) {
    const path = paths.clone(r.name);
    repositories.push({ name: r.name, path, ...(await cloneHeadFromFiles(path)), dirty: null });
  }
  return { id: m.id, manifest: m.path, repositories };
}

/** Insert the `workspace` lines (label padded to 11, continuation indented 13) before the `service` line (pure). */
export function withCloneLines(report: string, section: WorkspaceSection, dim: (s: string) => string): string {
  const lines = report.replace(/\n$/, "").split("\n");
  const clone = section.repositories.map((c, i) =>
    i === 0 ? `  ${dim("workspace".padEnd(11))}${cloneLine(c)}` : `${" ".repeat(13)}${cloneLine(c)}`
  );
  const service = lines.findIndex((l) => /^\s{2}service\b/.test(stripAnsi(l)));
  const at = service >= 0 ? service : lines.length;
  lines.splice(at, 0, ...clone);
  return lines.join("\n") + "\n";
}
