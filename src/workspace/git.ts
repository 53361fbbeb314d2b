/** Bounded git calls for workspace preparation. */

/** Result of a git call. */
export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** Every git call of `workspace prepare` is bounded (workspace.md §4). */
export const GIT_TIMEOUT_MS = 10 * 60 * 1000;

/** Run git with a deadline; never throws for a non-zero exit. */
export async function runGit(cwd: string, args: string[], timeoutMs = GIT_TIMEOUT_MS): Promise<GitResult> {
  const child = new Deno.Command("git", {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { GIT_TERMINAL_PROMPT: "0" },
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* already exited */ }
  }, timeoutMs);
  try {
    const out = await child.output();
    const dec = new TextDecoder();
    return {
      ok: out.success,
      code: out.code,
      stdout: dec.decode(out.stdout).trim(),
      stderr: dec.decode(out.stderr).trim(),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Run git and throw an Error carrying stderr when it fails. */
export async function gitOrThrow(cwd: string, args: string[]): Promise<string> {
  const r = await runGit(cwd, args);
  if (!r.ok) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout;
}
