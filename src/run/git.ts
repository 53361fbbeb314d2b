/** Small git helpers for the runner: porcelain status, add/commit/rev-parse, with the repo's own identity. */
import { runHelper } from "../util/helper.ts";
import { gitIn } from "../contract/git.ts";

/** Result of one git invocation. */
export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** Deadline of one runner git call (a hung git — a lock, a hook waiting on input — fails instead of hanging). */
const RUN_GIT_TIMEOUT_MS = 5 * 60 * 1000;

/** Run git in a directory (never throws for a non-zero exit; throws only when git cannot start). */
export async function runGit(cwd: string, args: string[], timeoutMs = RUN_GIT_TIMEOUT_MS): Promise<GitResult> {
  const out = await runHelper("git", { args, cwd, timeoutMs });
  const dec = new TextDecoder();
  const stderr = dec.decode(out.stderr) +
    (out.timedOut ? `\ngit ${args[0] ?? ""} did not finish within ${timeoutMs} ms` : "");
  return { ok: out.success, code: out.code ?? -1, stdout: dec.decode(out.stdout), stderr };
}

/**
 * A read-only git query: through the run's helper shell when there is one (src/util/helper_shell.ts), else a cheap
 * spawn; never throws.
 */
export async function readGit(cwd: string, args: string[]): Promise<GitResult> {
  return await gitIn(cwd, args);
}

/** `git status --porcelain [-- paths]` lines; null when git fails. */
export async function porcelain(cwd: string, paths: string[] = []): Promise<string[] | null> {
  try {
    const r = await readGit(cwd, ["status", "--porcelain", ...(paths.length ? ["--", ...paths] : [])]);
    if (!r.ok) return null;
    return r.stdout.split("\n").filter((l) => l.trim() !== "");
  } catch {
    return null;
  }
}

/** Whether a directory is inside a git work tree. */
export async function insideWorkTree(cwd: string): Promise<boolean> {
  try {
    const r = await readGit(cwd, ["rev-parse", "--is-inside-work-tree"]);
    return r.ok && r.stdout.trim() === "true";
  } catch {
    return false;
  }
}
