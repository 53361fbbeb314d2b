/**
 * Never into the author's checkout (docs/reference/workspace.md §6): a workspace's `source` trees are only ever read by
 * `git clone`. The guard refuses any write whose canonical path lies inside one of them.
 */
import { PacketError } from "../errors.ts";
import { normalize } from "./manifest.ts";

/** A `source` tree and the workspace repository it belongs to. */
export interface SourceTree {
  repo: string;
  path: string;
}

/** Whether `path` is `root` or lies below it (both absolute, normalised). */
export function isInside(path: string, root: string): boolean {
  const r = root.replace(/\/+$/, "") || "/";
  return path === r || r === "/" || path.startsWith(r + "/");
}

/**
 * Canonicalise a path that may not exist yet: the longest existing prefix has its symlinks resolved, the missing
 * rest is appended as written (`.`/`..` normalised first).
 */
export function canonicalPath(path: string): string {
  const abs = normalize(path.startsWith("/") ? path : `${Deno.cwd()}/${path}`);
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = Deno.realPathSync(cur);
      return missing.length ? `${real === "/" ? "" : real}/${missing.reverse().join("/")}` : real;
    } catch {
      if (cur === "/") return abs;
      missing.push(cur.slice(cur.lastIndexOf("/") + 1));
      cur = cur.slice(0, cur.lastIndexOf("/")) || "/";
    }
  }
}

/** The `source` trees among a manifest's repositories, canonicalised. */
export function sourceTrees(repositories: readonly { name: string; source: string | null }[]): SourceTree[] {
  return repositories.flatMap((r) => (r.source ? [{ repo: r.name, path: canonicalPath(r.source) }] : []));
}

/** The source tree holding `path` (canonicalised), or null. */
export function sourceHolding(path: string, sources: readonly SourceTree[]): SourceTree | null {
  const canon = canonicalPath(path);
  return sources.find((s) => isInside(canon, s.path)) ?? null;
}

/**
 * Refuse a write location inside a workspace's `source` tree (PacketError `workspace_write_into_source`, exit 3).
 * `what` names the write for the message, e.g. "store root".
 */
export function assertNotInSource(path: string, sources: readonly SourceTree[], what = "write"): void {
  const hit = sourceHolding(path, sources);
  if (hit) {
    throw new PacketError(
      "workspace_write_into_source",
      `refusing ${what} ${canonicalPath(path)}: it lies inside the source checkout of repository "${hit.repo}" ` +
        `(${hit.path}); a workspace never writes into the author's checkout`,
      {
        hints: [
          "point operator.workspace_root and operator.runtime_root outside every repositories.<name>.source",
          "address packets by their clone path or by a repository-relative --packet path",
        ],
      },
    );
  }
}
