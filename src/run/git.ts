/** Small git helpers for the runner: porcelain status, add/commit/rev-parse, with the repo's own identity. */

/** Result of one git invocation. */
export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** Run git in a directory (never throws for a non-zero exit; throws only when git cannot start). */
export async function runGit(cwd: string, args: string[]): Promise<GitResult> {
  const out = await new Deno.Command("git", { args, cwd, stdin: "null", stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { ok: out.success, code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `git status --porcelain [-- paths]` lines; null when git fails. */
export async function porcelain(cwd: string, paths: string[] = []): Promise<string[] | null> {
  try {
    const r = await runGit(cwd, ["status", "--porcelain", ...(paths.length ? ["--", ...paths] : [])]);
    if (!r.ok) return null;
    return r.stdout.split("\n").filter((l) => l.trim() !== "");
  } catch {
    return null;
  }
}

/** Whether a directory is inside a git work tree. */
export async function insideWorkTree(cwd: string): Promise<boolean> {
  try {
    const r = await runGit(cwd, ["rev-parse", "--is-inside-work-tree"]);
    return r.ok && r.stdout.trim() === "true";
  } catch {
    return false;
  }
}
