/** Path resolution for contract entries (docs/reference/contract.md §2): the repo index, entry forms and canonical paths. */
import { existsSync, isAbsolute, join, normalize, relative, sep } from "../util/path.ts";

/** Repo index: name → canonical root (includes `packet`). */
export type RepoIndex = Record<string, string>;

/** Where an entry points before resolution: an explicit repo name (or null for the default scope) and a path. */
export interface EntryRef {
  /** Explicit repo name from `name:rel` or `{repo}`; null means the default scope. */
  repo: string | null;
  path: string;
}

/** A resolved entry path. `error` is set (and `resolved_path` absent) for an unknown repo. */
export interface ResolvedRef {
  repo: string | null;
  path: string;
  root: string;
  resolved_path?: string;
  /** Whether `resolved_path` was there when it was resolved ({@link PathAt}); absent when unknown. */
  exists?: boolean;
  /**
   * True when the path as written lies inside a repo of the index but a symlink on it leads outside every one: the
   * repository, not the packet, would choose what is checked.
   */
  escapes?: boolean;
  error?: string;
}

/** Split a string entry into `name:rel` when `name` is a repo-index key; otherwise it is an ordinary path. */
export function parsePathString(s: string, repos: RepoIndex): EntryRef {
  const colon = s.indexOf(":");
  if (colon > 0) {
    const name = s.slice(0, colon);
    if (Object.hasOwn(repos, name)) return { repo: name, path: s.slice(colon + 1) };
  }
  return { repo: null, path: s };
}

/** The repo whose root equals or contains `scope` (the deepest such root), or null. */
export function repoForScope(scope: string, repos: RepoIndex): string | null {
  let best: string | null = null;
  let bestLen = -1;
  for (const [name, root] of Object.entries(repos)) {
    if (isWithin(root, scope) && root.length > bestLen) {
      best = name;
      bestLen = root.length;
    }
  }
  return best;
}

/** Whether `path` lies within any root of the index. */
export function withinRepos(repos: RepoIndex, path: string): boolean {
  for (const root of Object.values(repos)) if (isWithin(root, path)) return true;
  return false;
}

/** Whether `path` equals `root` or lies beneath it (both normalised absolute paths). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Join `rel` onto `base`, normalise, and resolve symlinks in the longest existing prefix, so that a path through a
 * symlinked directory is reported where it really lives. Missing tails are appended verbatim.
 */
export function canonicalJoin(
  base: string,
  rel: string,
  canonical: (path: string) => string = canonicalPath,
): string {
  return canonical(joined(base, rel));
}

/** `rel` joined onto `base` (unless absolute) and normalised, without a trailing slash. */
function joined(base: string, rel: string): string {
  return normalize(isAbsolute(rel) ? rel : join(base, rel)).replace(/(.)\/+$/, "$1");
}

/**
 * Resolve symlinks of the longest existing prefix of an absolute, normalised path. `parent`, when given, resolves the
 * parent of a missing path instead of the walk below (the same answer: a remembered resolver, {@link
 * rememberedCanonicalPath} in lint.ts, asks the file system once per directory).
 */
export function canonicalPath(abs: string, parent?: (path: string) => string): string {
  return resolvePath(abs, parent).path;
}

/** {@link canonicalPath}, with whether the whole path was there. */
export interface PathAt {
  path: string;
  /**
   * The whole path resolved (true: it is there, following links as `stat` does) or was missing (false: not found, or
   * a file above it), at the moment it was resolved; null when its realpath failed otherwise (unknown).
   */
  exists: boolean | null;
}

/**
 * {@link canonicalPath} and what its first realpath learned: whether the path is there. `files_exist` reads that
 * answer instead of asking the file system a second time (docs/bench.md, "Eighth pass").
 */
export function resolvePath(abs: string, parent?: (path: string) => string): PathAt {
  const parts = abs.split(sep);
  // The whole path first: the common case (it exists) costs one realpath instead of a stat and a realpath; when it is
  // missing, the walk starts at its parent, so a missing path costs what it did.
  let from = parts.length;
  try {
    return { path: Deno.realPathSync(abs || sep), exists: true };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) from = parts.length - 1;
  }
  const exists = from < parts.length ? false : null;
  return { path: walkUp(abs, parts, from, parent), exists };
}

/** The canonical form of a path whose first `from` components are the longest prefix that may exist. */
function walkUp(abs: string, parts: string[], from: number, parent?: (path: string) => string): string {
  if (parent && from < parts.length && from > 0) {
    const real = parent(parts.slice(0, from).join(sep) || sep);
    return join(real, parts[from]!);
  }
  // Each prefix costs one realpath: a prefix that is missing (or has a file above it) fails it as it would fail a
  // stat, so no stat comes first; any other failure asks stat whether the prefix is there, as before.
  for (let i = from; i > 0; i--) {
    const prefix = parts.slice(0, i).join(sep) || sep;
    let real: string;
    try {
      real = Deno.realPathSync(prefix);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) continue;
      if (!existsSync(prefix)) continue;
      return abs;
    }
    const rest = parts.slice(i);
    return rest.length ? join(real, ...rest) : real;
  }
  return abs;
}

/** Resolve an entry reference against the repo index and default scope (docs/reference/contract.md §2 table). */
export function resolveRef(ref: EntryRef, repos: RepoIndex, scope: string): ResolvedRef {
  if (ref.repo !== null) {
    const root = repos[ref.repo];
    if (root === undefined) return { repo: ref.repo, path: ref.path, root: scope, error: `unknown repo: ${ref.repo}` };
    return { repo: ref.repo, path: ref.path, root, ...resolvedAt(root, ref.path, repos) };
  }
  return { repo: repoForScope(scope, repos), path: ref.path, root: scope, ...resolvedAt(scope, ref.path, repos) };
}

/** {@link canonicalJoin} as `resolved_path`, with `exists` when the realpath told and `escapes` when it is true. */
function resolvedAt(
  base: string,
  rel: string,
  repos: RepoIndex,
): { resolved_path: string; exists?: boolean; escapes?: true } {
  const lexical = joined(base, rel);
  const at = resolvePath(lexical);
  const out: { resolved_path: string; exists?: boolean; escapes?: true } = { resolved_path: at.path };
  if (at.exists !== null) out.exists = at.exists;
  if (at.path !== lexical && !withinRepos(repos, at.path) && withinRepos(repos, lexical)) out.escapes = true;
  return out;
}
