/** Read-only git queries used by the verifier (never writes the index: `GIT_OPTIONAL_LOCKS=0`). */
import { runBounded } from "./bounded_process.ts";
import { runHelper } from "../util/helper.ts";
import { activeHelperShell, HelperShell } from "../util/helper_shell.ts";

/** Result of one git invocation. */
export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/** Deadline of one verifier git query. */
const GIT_QUERY_TIMEOUT_MS = 5 * 60 * 1000;

/** The environment of every read-only git query (no optional locks, no prompts, stable output). */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
  LC_ALL: "C",
};

/** Run `git -C root …args` and capture its output. */
export async function gitIn(root: string, args: string[]): Promise<GitResult> {
  try {
    const req = { command: "git", args: ["-C", root, ...args], env: GIT_ENV, timeoutMs: GIT_QUERY_TIMEOUT_MS };
    // Inside a run, through its helper shell (src/util/helper_shell.ts); else, or when the shell is gone, spawned.
    const shell = activeHelperShell();
    const served = shell && HelperShell.accepts(req) ? await shell.run(req) : null;
    const out = served ?? await runHelper("git", {
      args: req.args,
      env: GIT_ENV,
      timeoutMs: GIT_QUERY_TIMEOUT_MS,
      viaSetsid: true, // read-only: safe to start again
    });
    const dec = new TextDecoder();
    const late = out.timedOut ? `\ngit did not finish within ${GIT_QUERY_TIMEOUT_MS} ms` : "";
    return {
      ok: out.success,
      code: out.code ?? -1,
      stdout: dec.decode(out.stdout),
      stderr: dec.decode(out.stderr) + late,
    };
  } catch (e) {
    return { ok: false, code: -1, stdout: "", stderr: e instanceof Error ? e.message : String(e) };
  }
}

/** Run git under a deadline (used for `ls-remote`); `timedOut` when the deadline fired. */
export async function gitBounded(
  root: string,
  args: string[],
  timeoutMs: number,
): Promise<GitResult & { timedOut: boolean }> {
  const res = await runBounded({
    argv: ["git", "-C", root, ...args],
    cwd: root,
    env: GIT_ENV,
    timeoutMs,
    killGraceMs: 500,
  });
  return {
    ok: res.outcome === "exited" && res.code === 0,
    code: res.code ?? -1,
    stdout: res.output,
    stderr: res.error ?? res.output,
    timedOut: res.outcome === "timeout",
  };
}

/** One entry of `git status --porcelain=v1 -z`: its status letters and path(s). */
export interface StatusEntry {
  xy: string;
  path: string;
  /** The original path of a rename or copy. */
  orig?: string;
}

/** Parse `git status --porcelain=v1 -z` output (renames and copies carry their source as the next field). */
export function parsePorcelainZ(out: string): StatusEntry[] {
  const fields = out.split("\0");
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const xy = f.slice(0, 2);
    const entry: StatusEntry = { xy, path: f.slice(3) };
    if (xy.includes("R") || xy.includes("C")) {
      const orig = fields[i + 1];
      if (orig !== undefined) entry.orig = orig;
      i++;
    }
    entries.push(entry);
  }
  return entries;
}

/**
 * Memo of read-only git queries keyed by root and argv. One verification owns one cache (so two clauses on the
 * same repo share a `git status`); `verify` over many prompts shares one across prompts. Anything that may change
 * a work tree (a `commands` item) must {@link GitCache.clear} it.
 */
export class GitCache {
  #memo = new Map<string, Promise<GitResult>>();

  /** Run (or reuse) `git -C root …args`. */
  run(root: string, args: string[]): Promise<GitResult> {
    const key = JSON.stringify([root, ...args]);
    let p = this.#memo.get(key);
    if (!p) {
      p = gitIn(root, args);
      this.#memo.set(key, p);
    }
    return p;
  }

  /** Forget everything (the work trees may have changed). */
  clear(): void {
    this.#memo.clear();
  }
}

/**
 * `git status --porcelain=v1 -z --untracked-files=all` of a work tree. With `ignored`, also `--ignored=matching`: the
 * ignored paths come apart in `ignored` (an ignored directory as `dir/`, never walked), never among the changes.
 */
export async function gitStatus(
  root: string,
  cache: GitCache = new GitCache(),
  ignored = false,
): Promise<{ ok: true; entries: StatusEntry[]; ignored: string[] } | { ok: false; error: string }> {
  const args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", ...(ignored ? [IGNORED_ARG] : [])];
  const r = await cache.run(root, args);
  if (!r.ok) return { ok: false, error: r.stderr.trim() || `exit ${r.code}` };
  const all = parsePorcelainZ(r.stdout);
  return {
    ok: true,
    entries: all.filter((e) => e.xy !== "!!"),
    ignored: all.filter((e) => e.xy === "!!").map((e) => e.path),
  };
}

/**
 * The status argument that lists ignored paths as well, cheaply: `matching` names an ignored directory without walking
 * it, so it costs what the untracked walk costs (the hiding check of src/contract/hiding.ts reads it).
 */
export const IGNORED_ARG = "--ignored=matching";

/** Branch facts and changes from `git status --porcelain=v2 --branch -z`. */
export interface BranchStatus {
  /** Full HEAD sha, or null before the first commit. */
  oid: string | null;
  /** Branch name, `HEAD` when detached. */
  branch: string;
  /** Upstream such as `origin/main`, or null. */
  upstream: string | null;
  /** Changes as v1-style entries (`XY` with spaces for unmodified). */
  entries: StatusEntry[];
  /** Ignored paths (only when read with {@link IGNORED_ARG}). */
  ignored: string[];
}

/** Parse `git status --porcelain=v2 --branch -z --untracked-files=all` output. */
function parsePorcelainV2(out: string): BranchStatus {
  const fields = out.split("\0");
  const res: BranchStatus = { oid: null, branch: "HEAD", upstream: null, entries: [], ignored: [] };
  const xyOf = (s: string) => s.replaceAll(".", " ");
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.startsWith("# branch.oid ")) {
      const v = f.slice(13);
      res.oid = v === "(initial)" ? null : v;
    } else if (f.startsWith("# branch.head ")) {
      const v = f.slice(14);
      res.branch = v === "(detached)" ? "HEAD" : v;
    } else if (f.startsWith("# branch.upstream ")) res.upstream = f.slice(18);
    else if (f.startsWith("1 ")) {
      const parts = f.split(" ");
      res.entries.push({ xy: xyOf(parts[1]!), path: parts.slice(8).join(" ") });
    } else if (f.startsWith("2 ")) {
      const parts = f.split(" ");
      const orig = fields[++i];
      res.entries.push({
        xy: xyOf(parts[1]!),
        path: parts.slice(9).join(" "),
        ...(orig !== undefined ? { orig } : {}),
      });
    } else if (f.startsWith("u ")) {
      const parts = f.split(" ");
      res.entries.push({ xy: parts[1]!, path: parts.slice(10).join(" ") });
    } else if (f.startsWith("? ")) res.entries.push({ xy: "??", path: f.slice(2) });
    else if (f.startsWith("! ")) res.ignored.push(f.slice(2));
  }
  return res;
}

/**
 * The arguments of {@link branchStatus}'s `git status` (after `-C <root>`). Without the ahead/behind counts against the
 * upstream, which nothing here reads: git works them out by walking the history between the branch and its upstream,
 * on every read — a prompt's baseline among them (18.1 against 5.9 ms for a branch 3,000 commits behind its upstream;
 * docs/bench.md, "Per-prompt cost").
 */
export const BRANCH_STATUS_ARGS: readonly string[] = [
  "status",
  "--porcelain=v2",
  "--branch",
  "--no-ahead-behind",
  "-z",
  "--untracked-files=all",
];

/**
 * Branch status of a work tree; `notRepo` when `root` is missing or not inside a work tree. With `ignored`, read with
 * {@link IGNORED_ARG} (the ignored paths in `status.ignored`).
 */
export async function branchStatus(
  root: string,
  cache: GitCache = new GitCache(),
  ignored = false,
): Promise<{ ok: true; status: BranchStatus } | { ok: false; notRepo: boolean; error: string }> {
  try {
    if (!Deno.statSync(root).isDirectory) return { ok: false, notRepo: true, error: "not a directory" };
  } catch {
    return { ok: false, notRepo: true, error: "missing" };
  }
  const r = await cache.run(root, [...BRANCH_STATUS_ARGS, ...(ignored ? [IGNORED_ARG] : [])]);
  if (r.ok) return { ok: true, status: parsePorcelainV2(r.stdout) };
  const error = r.stderr.trim() || `exit ${r.code}`;
  return { ok: false, notRepo: /not a git repository/i.test(error), error };
}
