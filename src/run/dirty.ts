/**
 * The user's files are the user's (docs/keep_going.md): which paths of a target repo are uncommitted, the run
 * preflight that refuses dirty target repos unless `--allow-dirty`, and the per-prompt baseline — the paths that
 * were already dirty when a prompt started, which are kept out of `changed_paths_only`, the commit and every repair
 * prompt.
 */
import { relative } from "../util/path.ts";
import { changedPaths } from "../contract/clauses/git_clauses.ts";
import { branchStatus, gitIn, parsePorcelainZ } from "../contract/git.ts";
import type { HidingRead } from "../contract/mod.ts";
import { meterSpawn } from "../util/read_meter.ts";
import { canonicalPath, isWithin } from "../contract/paths.ts";
import type { Packet, Prompt } from "../packet/mod.ts";

/** A target repo of a prompt. */
export interface TargetRepo {
  name: string;
  path: string;
}

/**
 * The target repos of a prompt (docs/reference/runner.md §9): its `targets` in order (each a configured repo), else the default
 * repo, else the packet dir as repo `default`.
 */
export function promptRepos(packet: Packet, prompt: Prompt): TargetRepo[] {
  const byName = new Map(packet.repos.map((r) => [r.name, r.path]));
  const named = prompt.targets.map((t) => ({ name: t, path: byName.get(t) ?? "" })).filter((r) => r.path !== "");
  if (named.length) return named;
  if (packet.defaultRepo) return [{ name: packet.defaultRepo.name, path: packet.defaultRepo.path }];
  return [{ name: "default", path: packet.dir }];
}

/** Repo-relative path of the store root when it lies inside the repo (its files are never the user's work). */
export function storeRelative(root: string, storeRoot: string | null): string | null {
  if (!storeRoot) return null;
  return canonicalRelative(canonicalPath(root), canonicalPath(storeRoot));
}

/** {@link storeRelative} of paths already canonical (no realpath made). */
function canonicalRelative(r: string, s: string | null): string | null {
  return s !== null && isWithin(r, s) && s !== r ? relative(r, s) : null;
}

/**
 * Uncommitted paths of a work tree (modified, staged, deleted, untracked; both sides of renames), store-root paths
 * excluded, sorted. Null when `root` is not a git work tree or git fails.
 */
export async function uncommittedPaths(root: string, storeRoot: string | null): Promise<string[] | null> {
  const r = await gitIn(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]);
  if (!r.ok) return null;
  return changedPaths(parsePorcelainZ(r.stdout), storeRelative(root, storeRoot));
}

/** `a, b, c` with the first `max` and `and <n> more`. */
export function listPaths(paths: string[], max = 20): string {
  const shown = paths.slice(0, max).join(", ");
  return paths.length > max ? `${shown}, and ${paths.length - max} more` : shown;
}

/** Paths a prompt's failed commit left (src/run/commit_pending.ts), keyed by canonical repo root. */
export interface PendingClaim {
  prompt: Prompt;
  /** Canonical repo root → the prompt's pending paths there. */
  byRoot: Map<string, Set<string>>;
}

/** A target repo with uncommitted changes. */
export interface DirtyRepo {
  repo: string;
  paths: string[];
  /** One human line: the repo, its paths and how to proceed. */
  message: string;
}

/**
 * Run preflight: target repos of the selected prompts with uncommitted changes, each naming the repo and its paths
 * (none with `allowDirty`, or when every target repo is clean). Repos that do not exist or are not git work trees
 * are left to the repo check.
 *
 * It must run after crash recovery has claimed an interrupted prompt's leftovers (those are that prompt's work, not
 * the user's): `claimed` lists the prompts whose leftovers were claimed, and their repos are not refused. `pending`
 * lists the paths of prompts whose commit failed (src/run/commit_pending.ts): a selected prompt's are its own work,
 * never refused; another prompt's are refused naming that prompt and how to commit them.
 */
export async function dirtyRepos(
  packet: Packet,
  prompts: Prompt[],
  storeRoot: string | null,
  allowDirty: boolean,
  claimed: Prompt[] = [],
  pending: PendingClaim[] = [],
): Promise<DirtyRepo[]> {
  if (allowDirty) return [];
  // Repos of prompts whose leftovers recovery claimed: that dirt is the interrupted prompt's work.
  const seen = new Set(claimed.flatMap((p) => promptRepos(packet, p).map((r) => canonicalPath(r.path))));
  const selected = new Set(prompts.map((p) => p.id));
  const out: DirtyRepo[] = [];
  // The prompts share their few repos: each resolved once per check, not once per prompt (linear at a run's start).
  const keys = new Map<string, string>();
  for (const prompt of prompts) {
    for (const repo of promptRepos(packet, prompt)) {
      let key = keys.get(repo.path);
      if (key === undefined) keys.set(repo.path, key = canonicalPath(repo.path));
      if (seen.has(key)) continue;
      seen.add(key);
      let dirty = await uncommittedPaths(repo.path, storeRoot);
      if (dirty === null || dirty.length === 0) continue;
      for (const claim of pending) {
        const own = claim.byRoot.get(key);
        if (!own) continue;
        const theirs = dirty.filter((p) => own.has(p));
        dirty = dirty.filter((p) => !own.has(p));
        if (theirs.length === 0 || selected.has(claim.prompt.id)) continue;
        const id = claim.prompt.id;
        out.push({
          repo: repo.name,
          paths: theirs,
          message: `repo ${repo.name}: prompt ${id} verified ${theirs.length} uncommitted path(s) but its commit ` +
            `failed: ${listPaths(theirs)}; run prompt ${id} again to commit them in its own commit ` +
            `(\`prompt_runner run <target> ${id}\` or \`run --remaining\`); --allow-dirty keeps them out of the ` +
            "selected prompts",
        });
      }
      if (dirty.length === 0) continue;
      out.push({
        repo: repo.name,
        paths: dirty,
        message: `repo ${repo.name}: ${dirty.length} uncommitted path(s) that are not any prompt's work: ` +
          `${listPaths(dirty)}; commit or stash them, or pass --allow-dirty to keep them out of every prompt's ` +
          "changes, commits and repair prompts",
      });
    }
  }
  return out;
}

/** One target repo at the moment a prompt started. */
export interface RepoBaseline extends TargetRepo {
  /** Canonical root (the verifier's key). */
  root: string;
  /** HEAD when the prompt started (its last good commit); null when unborn or not a repo. */
  head: string | null;
  /** Paths already uncommitted when the prompt started: the user's, never the prompt's. */
  dirty: string[];
  /** Its ignored paths, when read for the hiding state (src/run/hiding_baseline.ts); absent otherwise. */
  ignored?: string[];
}

/** The result of one repo's baseline read (`branchStatus()` of src/contract/git.ts). */
export type StatusRead = ReturnType<typeof branchStatus>;

/** Baseline reads started ahead of a prompt's start (src/run/baseline_prefetch.ts). */
export interface PrefetchedReads {
  /** Canonical repo root → its status read. */
  status: ReadonlyMap<string, StatusRead>;
  /** The roots whose status was read with the ignored paths (for the hiding state). */
  ignored: ReadonlySet<string>;
  /** Canonical root → its hiding read (src/contract/hiding.ts), for the roots the prompt's git clauses judge. */
  hiding: ReadonlyMap<string, Promise<HidingRead>>;
}

/**
 * Capture the baseline of each target repo of a prompt: HEAD and the uncommitted paths from ONE
 * `git status --porcelain=v2 --branch -z` per repo (a git spawn of the large runner process is most of a trivial
 * prompt's cost, docs/bench.md `scale`). With `recorded` (an interrupted prompt's own baseline) only HEAD is used;
 * `own` (repo name → paths) are the prompt's own work (a failed commit's), never in its baseline. `prefetched`: reads
 * of some of these repos started when the previous prompt's work was final (src/run/baseline_prefetch.ts); the
 * others are read here. `hiding`: the canonical roots whose hiding state the prompt's baseline records — their status
 * is read with the ignored paths (`ignored`), in the same git status.
 */
export async function captureBaseline(
  packet: Packet,
  prompt: Prompt,
  storeRoot: string | null,
  recorded: Record<string, string[]> | null = null,
  own: Record<string, string[]> | null = null,
  prefetched: PrefetchedReads | null = null,
  hiding: ReadonlySet<string> = new Set(),
): Promise<RepoBaseline[]> {
  const out: RepoBaseline[] = [];
  const seen = new Set<string>();
  let store: string | null | undefined;
  for (const repo of promptRepos(packet, prompt)) {
    const root = canonicalPath(repo.path);
    if (seen.has(root)) continue;
    seen.add(root);
    // The store root's canonical path is taken once per prompt and the repo's is the one just taken (a realpath
    // each). They are pure path reads: nothing is written or recorded, so where they run cannot change the record.
    const ignored = hiding.has(root);
    const ahead = ignored && !prefetched?.ignored.has(root) ? undefined : prefetched?.status.get(root);
    const pending = ahead ?? branchStatus(repo.path, undefined, ignored);
    if (store === undefined) store = storeRoot ? canonicalPath(storeRoot) : null;
    const rel = canonicalRelative(root, store);
    const st = await pending;
    const head = st.ok ? st.status.oid : null;
    const found = st.ok ? changedPaths(st.status.entries, rel) : [];
    const mine = new Set(own?.[repo.name] ?? []);
    const dirty = recorded ? recorded[repo.name] ?? [] : found.filter((p) => !mine.has(p));
    out.push({ ...repo, root, head, dirty, ...(ignored && st.ok ? { ignored: st.status.ignored } : {}) });
  }
  return out;
}

/** The verifier's view of a baseline: canonical root → pre-existing dirty paths (repos with none left out). */
export function preexistingByRoot(baseline: RepoBaseline[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const b of baseline) if (b.dirty.length) out[b.root] = b.dirty;
  return out;
}

/** Result of {@link gitLiteral}. */
export interface GitRun {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** git with literal pathspecs, an optional temporary index and optional stdin (never throws). */
export async function gitLiteral(
  cwd: string,
  args: string[],
  opts: { index?: string; input?: string } = {},
): Promise<GitRun> {
  const env: Record<string, string> = { GIT_LITERAL_PATHSPECS: "1", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
  if (opts.index) env.GIT_INDEX_FILE = opts.index;
  meterSpawn("git");
  try {
    const child = new Deno.Command("git", {
      args,
      cwd,
      env,
      stdin: opts.input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (opts.input !== undefined) {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(opts.input));
      await w.close();
    }
    const out = await child.output();
    const dec = new TextDecoder();
    return { ok: out.success, code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  } catch (e) {
    return { ok: false, code: -1, stdout: "", stderr: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Commit only the prompt's own uncommitted paths (everything dirty except `exclude`, the user's pre-existing paths)
 * with `git commit --only` semantics, so the user's staged and unstaged changes stay exactly as they were. Returns
 * null when the prompt changed nothing.
 */
export async function commitOwnPaths(
  root: string,
  exclude: string[],
  messageFile: string,
  riding: { storeRel: string; files: string[] } | null = null,
): Promise<GitRun | null> {
  const dirty = await uncommittedPaths(root, null);
  if (dirty === null) return { ok: false, code: -1, stdout: "", stderr: "git status failed" };
  const skip = new Set(exclude);
  const store = riding?.storeRel ?? null;
  const own = dirty.filter((p) => !skip.has(p) && !(store !== null && (p === store || p.startsWith(store + "/"))));
  if (own.length === 0) return null;
  const from = ["--pathspec-from-file=-", "--pathspec-file-nul"];
  const add = await gitLiteral(root, ["add", "-A", ...from], { input: own.join("\0") + "\0" });
  if (!add.ok) return add;
  // The prompt's own records ride along past the store's .gitignore (src/run/commit_records.ts).
  const records = riding?.files ?? [];
  if (records.length) {
    const force = await gitLiteral(root, ["add", "-f", ...from], { input: records.join("\0") + "\0" });
    if (!force.ok) return force;
  }
  const input = [...own, ...records].join("\0") + "\0";
  return await gitLiteral(root, ["commit", "-q", "--file", messageFile, ...from], { input });
}

/** Commit repos with their pre-existing paths attached as exclusions. */
export function withExclusions(
  repos: TargetRepo[],
  preexisting: Record<string, string[]>,
): (TargetRepo & { exclude: string[] })[] {
  return repos.map((r) => ({ ...r, exclude: preexisting[canonicalPath(r.path)] ?? [] }));
}
