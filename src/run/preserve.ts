/**
 * Failed work is kept, never mixed in (docs/keep_going.md): when a prompt ends without completing, its changes in
 * every target repo are committed under `refs/prompt_runner/preserved/<run id>/<prompt id>` through a temporary
 * index (the user's index and branch are untouched), then exactly those paths go back to the prompt's last good
 * commit. Paths that were dirty before the prompt started are the user's: never preserved, reset or deleted. A later
 * run of the prompt applies the preserved changes again before its first attempt and moves the ref to
 * `refs/prompt_runner/restored/…`.
 */
import { dirname, join } from "../util/path.ts";
import { failpoint } from "../util/failpoint.ts";
import { gitLiteral as git, type GitRun as Git, type RepoBaseline, storeRelative } from "./dirty.ts";

/** Namespace of preserved work. */
const PRESERVED_PREFIX = "refs/prompt_runner/preserved/";
/** Namespace of preserved work a later run applied again. */
const RESTORED_PREFIX = "refs/prompt_runner/restored/";

/** One repo's share of preserved work. */
export interface PreservedRepo {
  repo: string;
  /** The preserved commit (its first parent is the last good commit). */
  sha: string;
  /** Paths the failed prompt changed. */
  paths: string[];
}

/** Preserved work of one failed prompt (recorded in state.json as the prompt's `preserved`). */
export interface PreservedWork {
  ref: string;
  run_id: string;
  prompt_id: string;
  at: string;
  repos: PreservedRepo[];
}

function firstLine(r: Git): string {
  return (r.stderr || r.stdout).trim().split("\n")[0] || `git exited ${r.code}`;
}

const nul = (s: string) => s.split("\0").filter((p) => p !== "");

/** The ref that holds a prompt's preserved work of one run. */
function preservedRef(runId: string, promptId: string): string {
  return `${PRESERVED_PREFIX}${runId}/${promptId}`;
}

/** Paths the prompt changed since `head` (tracked and untracked), minus the user's and the store's. */
async function promptPaths(b: RepoBaseline, head: string, storeRoot: string | null): Promise<string[] | null> {
  const work = await git(b.path, ["diff", "--name-only", "-z", "--no-renames", head]);
  const staged = await git(b.path, ["diff", "--cached", "--name-only", "-z", "--no-renames", head]);
  const untracked = await git(b.path, ["ls-files", "-z", "--others", "--exclude-standard"]);
  if (!work.ok || !staged.ok || !untracked.ok) return null;
  const store = storeRelative(b.path, storeRoot);
  const user = new Set(b.dirty);
  const all = new Set([...nul(work.stdout), ...nul(staged.stdout), ...nul(untracked.stdout)]);
  return [...all].filter((p) => !user.has(p) && !(store !== null && (p === store || p.startsWith(store + "/"))))
    .sort();
}

async function withTempFile<T>(fn: (path: string) => Promise<T>): Promise<T> {
  const tmp = await Deno.makeTempFile({ prefix: "prompt-runner-preserve-" });
  try {
    return await fn(tmp);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

async function commitTree(cwd: string, tree: string, parents: string[], message: string): Promise<Git> {
  const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-m", message];
  const first = await git(cwd, args);
  if (first.ok) return first;
  // A repo without a configured identity still gets its work preserved, under the runner's name.
  return await git(cwd, ["-c", "user.name=prompt_runner", "-c", "user.email=prompt_runner@localhost", ...args]);
}

/** Commit one repo's prompt paths (on top of the last good commit) through a temporary index. */
async function preserveRepo(
  b: RepoBaseline & { head: string },
  paths: string[],
  headNow: string,
  ref: string,
  message: string,
): Promise<string> {
  return await withTempFile(async (index) => {
    await Deno.remove(index);
    const read = await git(b.path, ["read-tree", b.head], { index });
    if (!read.ok) throw new Error(`read-tree failed: ${firstLine(read)}`);
    if (paths.length) {
      const add = await git(b.path, ["add", "-A", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"], {
        index,
        input: paths.join("\0") + "\0",
      });
      if (!add.ok) throw new Error(`git add failed: ${firstLine(add)}`);
    }
    const tree = await git(b.path, ["write-tree"], { index });
    if (!tree.ok) throw new Error(`write-tree failed: ${firstLine(tree)}`);
    const parents = headNow !== b.head ? [b.head, headNow] : [b.head];
    const commit = await commitTree(b.path, tree.stdout.trim(), parents, message);
    if (!commit.ok) throw new Error(`commit-tree failed: ${firstLine(commit)}`);
    const sha = commit.stdout.trim();
    const upd = await git(b.path, ["update-ref", "-m", "prompt_runner: preserve failed work", ref, sha]);
    if (!upd.ok) throw new Error(`update-ref failed: ${firstLine(upd)}`);
    return sha;
  });
}

/** Return the prompt's paths (and the branch, when the session committed) to the last good commit. */
async function resetRepo(b: RepoBaseline & { head: string }, paths: string[], headNow: string): Promise<void> {
  if (headNow !== b.head) {
    const mv = await git(b.path, [
      "update-ref",
      "-m",
      "prompt_runner: back to last good commit",
      "HEAD",
      b.head,
      headNow,
    ]);
    if (!mv.ok) throw new Error(`could not move HEAD back to ${b.head.slice(0, 8)}: ${firstLine(mv)}`);
  }
  if (paths.length === 0) return;
  const input = paths.join("\0") + "\0";
  const reset = await git(b.path, ["reset", "-q", b.head, "--pathspec-from-file=-", "--pathspec-file-nul"], { input });
  if (!reset.ok && reset.code !== 1) throw new Error(`git reset failed: ${firstLine(reset)}`);
  const check = await git(b.path, ["cat-file", "--batch-check"], {
    input: paths.map((p) => `${b.head}:${p}\n`).join(""),
  });
  if (!check.ok) throw new Error(`cat-file failed: ${firstLine(check)}`);
  const lines = check.stdout.split("\n");
  const tracked = paths.filter((_, i) => !(lines[i] ?? "").endsWith(" missing"));
  const fresh = paths.filter((_, i) => (lines[i] ?? "").endsWith(" missing"));
  if (tracked.length) {
    const co = await git(b.path, ["checkout", b.head, "--pathspec-from-file=-", "--pathspec-file-nul"], {
      input: tracked.join("\0") + "\0",
    });
    if (!co.ok) throw new Error(`git checkout failed: ${firstLine(co)}`);
  }
  for (const p of fresh) {
    const abs = join(b.path, p);
    await Deno.remove(abs).catch(() => {});
    // Like `git clean -d`, but only for directories the prompt emptied.
    for (let d = dirname(abs); d.startsWith(b.path + "/") && d !== b.path; d = dirname(d)) {
      try {
        await Deno.remove(d);
      } catch {
        break;
      }
    }
  }
}

/**
 * Preserve a failed prompt's work in every target repo under one ref, then return each repo to its last good
 * commit. A repo whose preservation failed is not reset (nothing is lost); the error names it. Returns null when
 * the prompt changed nothing.
 */
export async function preserveFailedWork(
  baseline: RepoBaseline[],
  info: { runId: string; promptId: string; storeRoot: string | null; reason: string },
): Promise<{ work: PreservedWork | null; errors: string[] }> {
  const ref = preservedRef(info.runId, info.promptId);
  const message = `prompt_runner: preserved work of failed prompt ${info.promptId}\n\n${info.reason}\n\n` +
    `Prompt-Runner-Run: ${info.runId}\nPrompt-Runner-Prompt: ${info.promptId}\n`;
  const repos: PreservedRepo[] = [];
  const errors: string[] = [];
  const plans: { b: RepoBaseline & { head: string }; paths: string[]; headNow: string }[] = [];
  for (const b of baseline) {
    if (b.head === null) continue;
    const now = await git(b.path, ["rev-parse", "--verify", "-q", "HEAD"]);
    const paths = await promptPaths(b, b.head, info.storeRoot);
    if (!now.ok || paths === null) {
      errors.push(`repo ${b.name}: could not list the failed prompt's changes; they stay in the work tree`);
      continue;
    }
    const headNow = now.stdout.trim();
    if (paths.length === 0 && headNow === b.head) continue;
    plans.push({ b: { ...b, head: b.head }, paths, headNow });
  }
  for (const p of plans) {
    try {
      const sha = await preserveRepo(p.b, p.paths, p.headNow, ref, message);
      repos.push({ repo: p.b.name, sha, paths: p.paths });
    } catch (e) {
      errors.push(
        `repo ${p.b.name}: could not preserve the failed prompt's changes (${(e as Error).message}); ` +
          "they stay in the work tree",
      );
      continue;
    }
    failpoint("preserve.after_ref");
    try {
      await resetRepo(p.b, p.paths, p.headNow);
    } catch (e) {
      errors.push(`repo ${p.b.name}: preserved under ${ref} but not reset (${(e as Error).message})`);
    }
  }
  if (repos.length === 0) return { work: null, errors };
  return {
    work: { ref, run_id: info.runId, prompt_id: info.promptId, at: new Date().toISOString(), repos },
    errors,
  };
}

/** The preserved refs of one repo (`for-each-ref` under {@link PRESERVED_PREFIX}), or null when git failed. */
async function listPreserved(path: string): Promise<string[] | null> {
  const r = await git(path, ["for-each-ref", "--format=%(refname)", PRESERVED_PREFIX]);
  return r.ok ? r.stdout.split("\n").filter((ref) => ref !== "") : null;
}

/** The newest of `refs` that holds `promptId`'s work (`<prefix><run id>/<prompt id>`), or null. */
function newestOf(refs: Iterable<string>, promptId: string): string | null {
  let best: string | null = null;
  for (const ref of refs) {
    if (!ref.endsWith(`/${promptId}`) || ref.slice(PRESERVED_PREFIX.length).split("/").length !== 2) continue;
    if (best === null || ref > best) best = ref;
  }
  return best;
}

/**
 * The newest preserved ref of a prompt across its repos, or null (never throws: git failures read as no ref). Takes
 * only the repos' paths, so a prompt's start can look it up beside its baseline's own git reads.
 */
export async function newestPreserved(repos: readonly { path: string }[], promptId: string): Promise<string | null> {
  const all: string[] = [];
  for (const b of repos) all.push(...(await listPreserved(b.path)) ?? []);
  return newestOf(all, promptId);
}

/**
 * A run's memo of the preserved refs of its target repos: each repo's refs are listed once per run (one
 * `for-each-ref`, not one per prompt start). Sound because within a run only this runner, holding the lease, writes
 * refs under {@link PRESERVED_PREFIX}, and it calls {@link PreservedRefs.invalidate} for a repo whenever it
 * preserves or restores work there (the next lookup lists that repo again). A ref deleted behind the run's back is
 * caught where it matters: {@link restorePreserved} reads each ref again before applying it.
 */
export class PreservedRefs {
  #byRepo = new Map<string, Promise<string[] | null>>();
  /** `for-each-ref` calls made (tests hold it to one per repo per run). */
  listings = 0;

  /** The newest preserved ref of a prompt across its repos, or null (as {@link newestPreserved}). */
  async newest(repos: readonly { path: string }[], promptId: string): Promise<string | null> {
    const all: string[] = [];
    for (const b of repos) {
      let refs = this.#byRepo.get(b.path);
      if (!refs) {
        this.listings++;
        refs = listPreserved(b.path);
        this.#byRepo.set(b.path, refs);
      }
      const got = await refs;
      // A failed listing is not remembered: the next prompt asks git again.
      if (got === null) this.#byRepo.delete(b.path);
      else all.push(...got);
    }
    return newestOf(all, promptId);
  }

  /** Forget what is known of these repos (this run just wrote preserved refs there, or moved them). */
  invalidate(repos: readonly { path: string }[]): void {
    for (const b of repos) this.#byRepo.delete(b.path);
  }
}

/** Outcome of {@link restorePreserved}. */
export interface RestoreOutcome {
  /** The ref applied (now under {@link RESTORED_PREFIX}), or null. */
  ref: string | null;
  repos: PreservedRepo[];
  /** Why preserved work was found but not applied (it stays under its ref). */
  skipped: string | null;
}

/**
 * Apply a prompt's newest preserved work onto the work trees (never the index) before its first attempt. All repos
 * are checked first; any conflict (a path the user has dirty, or a patch that no longer applies) applies nothing.
 * `found` is the lookup of {@link newestPreserved} when the caller started it already.
 */
export async function restorePreserved(
  baseline: RepoBaseline[],
  promptId: string,
  found: Promise<string | null> = newestPreserved(baseline, promptId),
): Promise<RestoreOutcome> {
  const ref = await found;
  if (ref === null) return { ref: null, repos: [], skipped: null };
  const plans: { b: RepoBaseline; sha: string; patch: string; paths: string[] }[] = [];
  for (const b of baseline) {
    const sha = await git(b.path, ["rev-parse", "--verify", "-q", ref]);
    if (!sha.ok) continue;
    const id = sha.stdout.trim();
    const names = await git(b.path, ["diff", "--name-only", "-z", "--no-renames", `${id}^1`, id]);
    const patch = await git(b.path, ["diff", "--binary", "--no-renames", "--full-index", `${id}^1`, id]);
    if (!names.ok || !patch.ok) return { ref: null, repos: [], skipped: `repo ${b.name}: cannot read ${ref}` };
    const paths = nul(names.stdout);
    const mine = paths.filter((p) => b.dirty.includes(p));
    if (mine.length) {
      return {
        ref: null,
        repos: [],
        skipped: `repo ${b.name}: uncommitted user paths overlap it (${mine.join(", ")})`,
      };
    }
    if (patch.stdout !== "") {
      const check = await git(b.path, ["apply", "--check", "--binary", "-"], { input: patch.stdout });
      if (!check.ok) return { ref: null, repos: [], skipped: `repo ${b.name}: does not apply (${firstLine(check)})` };
    }
    plans.push({ b, sha: id, patch: patch.stdout, paths });
  }
  // The ref is gone from every repo (deleted since it was looked up): nothing to restore.
  if (plans.length === 0) return { ref: null, repos: [], skipped: null };
  const repos: PreservedRepo[] = [];
  for (const p of plans) {
    if (p.patch !== "") {
      const apply = await git(p.b.path, ["apply", "--binary", "-"], { input: p.patch });
      if (!apply.ok) throw new Error(`repo ${p.b.name}: applying ${ref} failed: ${firstLine(apply)}`);
    }
    failpoint("restore.after_apply");
    const restored = RESTORED_PREFIX + ref.slice(PRESERVED_PREFIX.length);
    const mv = await git(p.b.path, ["update-ref", "--stdin"], {
      input: `update ${restored} ${p.sha}\ndelete ${ref} ${p.sha}\n`,
    });
    if (!mv.ok) throw new Error(`repo ${p.b.name}: moving ${ref} to ${restored} failed: ${firstLine(mv)}`);
    repos.push({ repo: p.b.name, sha: p.sha, paths: p.paths });
  }
  return { ref, repos, skipped: null };
}
