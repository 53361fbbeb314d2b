/**
 * Commits a stopped run already made of a prompt's work (docs/crash_recovery.md): a run killed while committing a
 * multi-repo prompt may have committed some of its repos. The next run that commits the prompt finds those repos
 * with nothing left to commit; their HEAD commits, which name the prompt and the stopped run, join its commit record
 * and its progress suffix instead of being left off the record.
 */
import type { Prompt } from "../packet/mod.ts";
import type { RunContext } from "./context.ts";
import type { CommitRecord } from "./state.ts";
import { runGit } from "./git.ts";
import { commitSuffix } from "./commit.ts";

/** The target repos (all, or those named) whose HEAD is a commit naming the prompt and the run `runId`. */
export async function commitsNaming(
  ctx: RunContext,
  prompt: Prompt,
  runId: string,
  only: ReadonlySet<string> | null,
): Promise<{ repo: string; status: "ok"; sha: string }[]> {
  const repos: { repo: string; status: "ok"; sha: string }[] = [];
  for (const repo of ctx.reposFor(prompt)) {
    if (only && !only.has(repo.name)) continue;
    const r = await runGit(repo.path, [
      "log",
      "-1",
      "--format=%H%x1f%(trailers:key=Prompt-Runner-Prompt,valueonly)%x1f%(trailers:key=Prompt-Runner-Run,valueonly)",
    ]);
    const [sha, id, run] = r.ok ? r.stdout.trim().split("\x1f").map((x) => x.trim()) : [];
    if (sha && id === prompt.id && run === runId) repos.push({ repo: repo.name, status: "ok", sha });
  }
  return repos;
}

/**
 * The repos of this commit that the stopped run `stoppedRun` had already committed: each repo with nothing left to
 * commit (`skip`) whose HEAD names the prompt and that run joins the commit record and its progress suffix
 * (`app=<sha>,lib=<sha>`), and is said as such. Returns the result's reason naming them, or null for none.
 */
export async function earlierCommits(
  ctx: RunContext,
  prompt: Prompt,
  stoppedRun: string,
  c: { record: CommitRecord; suffix: string },
): Promise<string | null> {
  const skipped = new Set((c.record.repos ?? []).filter((r) => r.status === "skip").map((r) => r.repo));
  if (skipped.size === 0) return null;
  const found = new Map((await commitsNaming(ctx, prompt, stoppedRun, skipped)).map((r) => [r.repo, r]));
  if (found.size === 0) return null;
  const repos = (c.record.repos ?? []).map((r) => found.get(r.repo) ?? r);
  c.record = { ...c.record, status: "ok", repos };
  c.suffix = commitSuffix(repos);
  const named = [...found.values()].map((r) => `${r.repo} ${r.sha.slice(0, 8)}`).join(", ");
  ctx.say(`Prompt ${prompt.id}: committed earlier by run ${stoppedRun}, which stopped while committing: ${named}`);
  return `recovered: run ${stoppedRun} committed ${[...found.keys()].join(", ")} of this commit before it stopped`;
}
