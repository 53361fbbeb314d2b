/**
 * The synchronous path diff that offline `replay` renders with (docs/reference/events-and-rendering.md §8): the current
 * `git diff` of a file, mapped to `+ x` / `- x` / `  x` lines. Apart from the live runner's asynchronous prefetch
 * (./git_diff.ts, which re-exports it) so that `replay` loads no helper-process code.
 */
import { formatMappedLine, parseUnifiedDiff } from "./diff.ts";

const decoder = new TextDecoder();

function git(cwd: string, args: string[]): { code: number; stdout: string } {
  const out = new Deno.Command("git", {
    args: ["-c", "core.quotePath=false", ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return { code: out.code, stdout: decoder.decode(out.stdout) };
}

/**
 * A `pathDiff` for a session cwd: `git diff --no-color -- <path>` for tracked files, `git diff --no-color
 * --no-index -- /dev/null <path>` for untracked ones. Null on any error, a non-zero exit (except the `--no-index`
 * "differences" status 1) or an empty diff.
 */
export function gitPathDiff(cwd: string): (path: string) => string[] | null {
  return (path: string) => {
    if (cwd === "") return null;
    try {
      const tracked = git(cwd, ["ls-files", "--error-unmatch", "--", path]).code === 0;
      const r = tracked
        ? git(cwd, ["diff", "--no-color", "--no-ext-diff", "--", path])
        : git(cwd, ["diff", "--no-color", "--no-ext-diff", "--no-index", "--", "/dev/null", path]);
      if (r.code !== 0 && !(r.code === 1 && !tracked)) return null;
      const lines = parseUnifiedDiff(r.stdout).map(formatMappedLine);
      return lines.length ? lines : null;
    } catch {
      return null;
    }
  };
}
