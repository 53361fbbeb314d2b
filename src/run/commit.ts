/**
 * Per-prompt commits (docs/reference/runner.md §9): one commit per target repo with changes, the prompt's message plus trailers,
 * never pushing, amending or rewriting. Returns the commit record and the progress suffix.
 */
import type { CommitRecord } from "./state.ts";
import { type GitResult, porcelain, readGit, runGit } from "./git.ts";
import { outsideStore, type RecordsSource, type RidingRecords, ridingRecords } from "./commit_records.ts";
import { commitOwnPaths } from "./dirty.ts";
import { failpoint } from "../util/failpoint.ts";

/** A repo to commit in. */
export interface CommitRepo {
  name: string;
  path: string;
  /** Paths dirty before the prompt started (`--allow-dirty`): the user's, never committed. */
  exclude?: string[];
}

/** Trailer inputs. */
export interface TrailerInfo {
  runId: string;
  promptId: string;
  steerCount: number;
  amendmentClasses: string[];
}

/** The commit message: the prompt's message, a blank line, then the trailers (docs/reference/runner.md §9). */
export function commitMessage(message: string, t: TrailerInfo): string {
  const trailers = [`Prompt-Runner-Run: ${t.runId}`, `Prompt-Runner-Prompt: ${t.promptId}`];
  if (t.steerCount > 0) {
    trailers.push(`Prompt-Runner-Steered: ${t.steerCount} (interventions/${t.promptId}.jsonl)`);
  }
  if (t.amendmentClasses.length > 0) {
    const classes = [...new Set(t.amendmentClasses)].join(", ");
    trailers.push(`Prompt-Runner-Amended: ${t.amendmentClasses.length} (${classes})`);
  }
  return `${message.replace(/\s+$/, "")}\n\n${trailers.join("\n")}\n`;
}

/** The progress suffix for per-repo results (single repo → sha; several → `name=sha,…`; none → no_changes). */
export function commitSuffix(repos: { repo: string; status: string; sha?: string }[]): string {
  const committed = repos.filter((r) => r.status === "ok" && r.sha);
  if (committed.length === 0) return "no_changes";
  if (repos.length === 1) return committed[0]!.sha!;
  return committed.map((r) => `${r.repo}=${r.sha}`).join(",");
}

/** Outcome of {@link commitPrompt}. */
export interface CommitOutcome {
  ok: boolean;
  record: CommitRecord;
  suffix: string;
  /** First error message when not ok. */
  error: string | null;
}

/**
 * Commit the work of a prompt in each repo, printing one line per repo through `say`. With `records`, a repo that
 * holds the packet-local store root also gets the prompt's intervention and amendment records (see
 * `./commit_records.ts`); the rest of the store root is never staged nor counted as a change.
 */
export async function commitPrompt(
  repos: CommitRepo[],
  message: string,
  say: (line: string) => void,
  records: RecordsSource | null = null,
): Promise<CommitOutcome> {
  const results: NonNullable<CommitRecord["repos"]> = [];
  let error: string | null = null;
  const tmp = await Deno.makeTempFile({ prefix: "prompt-runner-commit-" });
  try {
    await Deno.writeTextFile(tmp, message);
    for (const repo of repos) {
      const riding = records ? await ridingRecords(repo.path, records) : null;
      const status = await porcelain(repo.path, outsideStore(riding));
      if (status === null) {
        error ??= `git status failed in ${repo.name}`;
        results.push({ repo: repo.name, status: "failed", error: "git_status_failed" });
        break;
      }
      const own = repo.exclude?.length && status.length
        ? await commitOwnPaths(repo.path, repo.exclude, tmp, riding)
        : undefined;
      if (status.length === 0 || own === null) {
        say(`No changes in ${repo.name}`);
        results.push({ repo: repo.name, status: "skip" });
        continue;
      }
      const add = own ?? await addWork(repo.path, riding);
      if (own === undefined) failpoint("commit.before_git_commit");
      const commit = own ?? (add.ok ? await runGit(repo.path, ["commit", "-q", "--file", tmp]) : add);
      if (!commit.ok) {
        const msg = (commit.stderr || commit.stdout).trim().split("\n")[0] || `git commit failed (exit ${commit.code})`;
        error ??= `commit failed in ${repo.name}: ${msg}`;
        results.push({ repo: repo.name, status: "failed", error: msg });
        break;
      }
      failpoint("commit.after_git_commit");
      const head = await readGit(repo.path, ["rev-parse", "HEAD"]);
      const sha = head.stdout.trim();
      say(`Committed to ${repo.name}: ${sha.slice(0, 8)}`);
      results.push({ repo: repo.name, status: "ok", sha });
    }
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  const ok = error === null;
  const record: CommitRecord = ok
    ? { status: results.some((r) => r.status === "ok") ? "ok" : "skip", repos: results }
    : { status: "failed", reason: error!, repos: results };
  return { ok, record, suffix: commitSuffix(results), error };
}

/** Stage the work (`add -A`, the store root excluded), then force-add the prompt's riding records. */
async function addWork(cwd: string, riding: RidingRecords | null): Promise<GitResult> {
  const spec = outsideStore(riding);
  const add = await runGit(cwd, ["add", "-A", ...(spec.length ? ["--", ...spec] : [])]);
  if (!add.ok || !riding || riding.files.length === 0) return add;
  return await runGit(cwd, ["add", "-f", "--", ...riding.files]);
}
