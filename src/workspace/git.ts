/** Bounded git calls for workspace preparation. */
import { runHelper } from "../util/helper.ts";

/** Result of a git call. */
export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** Every git call of `workspace prepare` is bounded (docs/reference/workspace.md §4). */
const GIT_TIMEOUT_MS = 10 * 60 * 1000;

/** Run git with a deadline; never throws for a non-zero exit. */
export async function runGit(cwd: string, args: string[], timeoutMs = GIT_TIMEOUT_MS): Promise<GitResult> {
  // Bounded with SIGTERM → SIGKILL of git's whole group (a credential helper or ssh holding the pipes included).
  const out = await runHelper("git", { args, cwd, env: { GIT_TERMINAL_PROMPT: "0" }, timeoutMs });
  const dec = new TextDecoder();
  return {
    ok: out.success,
    code: out.code ?? -1,
    stdout: dec.decode(out.stdout).trim(),
    stderr: (dec.decode(out.stderr).trim() + (out.timedOut ? `\ngit did not finish within ${timeoutMs} ms` : ""))
      .trim(),
  };
}

/** Run git and throw an Error carrying stderr when it fails. */
export async function gitOrThrow(cwd: string, args: string[]): Promise<string> {
  const r = await runGit(cwd, args);
  if (!r.ok) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout;
}
