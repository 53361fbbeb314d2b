/**
 * The file walk behind the `glob` clause (docs/reference/contract.md §3): the paths under a root that a pattern
 * matches, files and directories alike, dot entries only where the pattern names them, symlinked directories
 * followed once. It replaces an npm glob walker whose `node:fs`/`node:url` imports loaded Deno's Node compatibility
 * layer at the start of every bundled run (docs/bench.md, the `cli` case); tests/contract/glob_walk_test.ts checks
 * it gives that walker's results.
 */
import { join, normalize } from "../../util/path.ts";
import { loadGlobMatcher } from "./glob_matcher.ts";

/**
 * The relative paths under `cwd` that `pattern` matches (directories without a trailing slash), sorted. `inside`, when
 * given, says whether a symlink's real path is inside the repos: the walk follows a symlinked directory only there (a
 * link to `/` under a `**` would walk the whole machine), and a matching symlink to anything else that leads outside is
 * not a match but is handed to `outside` (the clause fails on it: its path is in the tree, what it names is not).
 */
export async function globPaths(
  pattern: string,
  cwd: string,
  inside: (real: string) => boolean = () => true,
  outside: (path: string) => void = () => {},
): Promise<string[]> {
  const picomatch = await loadGlobMatcher();
  const scan = picomatch.scan(pattern);
  if (!scan.isGlob) {
    const path = normalize(pattern).replace(/\/$/, "");
    return (await existsAt(join(cwd, path))) ? [path] : [];
  }
  const base = scan.base === "" ? "" : normalize(scan.base).replace(/\/$/, "").replace(/^\.$/, "");
  const isMatch = picomatch(scan.glob, { dot: false });
  const segments: string[] = scan.glob.split("/");
  const maxDepth = segments.some((s) => s.includes("**")) ? Infinity : segments.length;
  const explicitDot = segments.some((s) => s.startsWith("."));
  const out: string[] = [];
  // Each symlinked directory's target is entered once (a symlink cycle ends at its second turn); the link itself is
  // not a match, what is under it is.
  const linkTargets = new Set<string>();
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(dir)) entries.push(e);
    } catch {
      return;
    }
    for (const e of entries) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      const full = join(dir, e.name);
      let isDir = e.isDirectory;
      if (e.isSymlink) {
        const target = await realPathOrNull(full);
        if (target === null) continue;
        isDir = await isDirectory(target);
        if (isDir) {
          if (linkTargets.has(target) || !inside(target)) continue;
          linkTargets.add(target);
        } else if (!inside(target)) {
          if (isMatch(path)) outside(base === "" ? path : `${base}/${path}`);
          continue;
        }
      }
      if (!(e.isSymlink && isDir) && isMatch(path)) out.push(base === "" ? path : `${base}/${path}`);
      if (!isDir || depth + 1 >= maxDepth || (e.name.startsWith(".") && !explicitDot)) continue;
      await walk(full, path, depth + 1);
    }
  };
  const start = base === "" ? cwd : join(cwd, base);
  if (base !== "" && scan.glob === "**" && await isDirectory(start)) out.push(base);
  await walk(start, "", 0);
  return out.sort();
}

async function realPathOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}

async function existsAt(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
