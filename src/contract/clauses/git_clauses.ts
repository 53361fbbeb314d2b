/** `changed_paths_only` (docs/reference/contract.md §5) and `repos_clean` (§6): judgements on the git state of target repos. */
import { join, normalize, relative } from "../../util/path.ts";
import picomatch from "picomatch";
import { type ClauseEnv, fail, fault, makeItem, pass, refOf, type Verdict } from "./_common.ts";
import { hasGlobChars } from "./glob.ts";
import { isRecord } from "../entries.ts";
import { isWithin } from "../paths.ts";
import { branchStatus, gitBounded, type GitCache, gitIn, gitStatus, type StatusEntry } from "../git.ts";
import { hidingDetails, hidingSince } from "../hiding.ts";
import type { ReportItem } from "../types.ts";

/** Default `remote_timeout_ms` of `repos_clean` with `network: true`. */
const DEFAULT_REMOTE_TIMEOUT_MS = 90_000;

/** Changed paths of a status listing: both sides of renames and copies, store-root paths excluded, sorted. */
export function changedPaths(entries: StatusEntry[], storeRel: string | null): string[] {
  const out = new Set<string>();
  for (const e of entries) {
    for (const p of [e.path, e.orig]) {
      if (p === undefined) continue;
      if (storeRel !== null && (p === storeRel || p.startsWith(storeRel + "/"))) continue;
      out.add(p);
    }
  }
  return [...out].sort();
}

/** Whether an allow-list entry allows a changed path (docs/reference/contract.md §5: equal, `dir/` prefix, or [P2] a glob). */
export function pathAllowed(allowed: string, path: string): boolean {
  const a = allowed.replace(/^(\.\/)+/, "");
  const p = path.replace(/^(\.\/)+/, "");
  if (a === p) return true;
  if (a.endsWith("/") && p.startsWith(a)) return true;
  if (a === "" || a === ".") return false;
  if (hasGlobChars(a)) {
    try {
      return picomatch(a, { dot: true })(p);
    } catch {
      return false;
    }
  }
  return false;
}

/** `disallowed: a, b` with the first 20 and `and <n> more`. */
export function disallowedDetails(paths: string[]): string {
  const shown = paths.slice(0, 20).join(", ");
  return `disallowed: ${shown}${paths.length > 20 ? `, and ${paths.length - 20} more` : ""}`;
}

/** The repo an entry of `repos_clean` judges (a string names it; else its `repo`, else the default scope's). */
function reposCleanRepo(entry: unknown, env: ClauseEnv): string {
  const obj = isRecord(entry) ? entry : {};
  return typeof entry === "string" ? entry : typeof obj.repo === "string" ? obj.repo : env.scopeRepo ?? "packet";
}

/**
 * The canonical roots whose git state the `changed_paths_only` and `repos_clean` entries of `contract` judge, in
 * order (pure apart from the roots `env` resolved): where a prompt's baseline records the hiding state
 * (src/contract/hiding.ts). Empty for a contract with neither clause, which then reads no git state at all.
 */
export function gitClauseRoots(contract: Record<string, unknown[] | undefined>, env: ClauseEnv): string[] {
  const names = [
    ...(contract.changed_paths_only ?? []).map((e) => refOf(e, env.repos)?.repo ?? env.scopeRepo ?? "packet"),
    ...(contract.repos_clean ?? []).map((e) => reposCleanRepo(e, env)),
  ];
  const roots = names.map((n) => env.repos[n]).filter((r): r is string => r !== undefined);
  return [...new Set(roots)];
}

/** `changed_paths_only`: one item per repo named by the entries (default scope's repo for unnamed entries). */
export async function checkChangedPathsOnly(entries: unknown[], env: ClauseEnv): Promise<ReportItem[]> {
  const groups = new Map<string, string[]>();
  const order: string[] = [];
  for (const entry of entries) {
    const ref = refOf(entry, env.repos);
    const repo = ref?.repo ?? env.scopeRepo ?? "packet";
    let allowed = ref?.path ?? "";
    if (ref !== null && ref.repo === null) {
      // Paths written against the default scope become relative to that repo's root.
      const root = env.repos[repo];
      if (root !== undefined && root !== env.scope) {
        const trailing = allowed.endsWith("/") ? "/" : "";
        allowed = relative(root, normalize(join(env.scope, allowed))) + trailing;
      }
    }
    if (!groups.has(repo)) {
      groups.set(repo, []);
      order.push(repo);
    }
    if (ref !== null) groups.get(repo)!.push(allowed);
  }
  const items: ReportItem[] = [];
  for (const repo of order) {
    const allowed = groups.get(repo)!;
    const head = {
      id: `changed_paths_only@${repo}`,
      clause: "changed_paths_only" as const,
      kind: "changed_paths_only",
      repo,
    };
    const root = env.repos[repo];
    if (root === undefined) {
      items.push(makeItem(head, fail(`missing repo: ${repo}`), { allowed_paths: allowed, changed_paths: [] }));
      continue;
    }
    const watched = env.ctx.hiding?.[root] !== undefined;
    const st = await gitStatus(root, env.git, watched);
    if (!st.ok) {
      items.push(
        makeItem(head, fault(`git status failed: ${st.error}`), { allowed_paths: allowed, changed_paths: [] }),
      );
      continue;
    }
    const hidden = await hidingCheck(root, st.ignored, env);
    if (hidden !== null && "error" in hidden) {
      items.push(makeItem(head, fault(hidden.error), { allowed_paths: allowed, changed_paths: [] }));
      continue;
    }
    const store = env.ctx.storeRoot;
    const storeRel = store && isWithin(root, store) && store !== root ? relative(root, store) : null;
    const user = new Set(env.ctx.preexisting?.[root] ?? []);
    const all = changedPaths(st.entries, storeRel);
    const changed = all.filter((p) => !user.has(p));
    const bad = changed.filter((p) => !allowed.some((a) => pathAllowed(a, p)));
    const hides = hidden?.changes ?? [];
    const problems = [
      ...(hides.length ? [hidingDetails(repo, hides, env.ctx.hiding?.[root])] : []),
      ...(bad.length ? [disallowedDetails(bad)] : []),
    ];
    const verdict = uncompared(root, env, problems.length ? fail(problems.join("; ")) : pass());
    const extra = {
      ...(user.size ? { preexisting_paths: all.filter((p) => user.has(p)) } : {}),
      ...(hides.length ? { hiding_changes: hides } : {}),
      ...(unbaselined(root, env) ? { hiding_compared: false } : {}),
    };
    items.push(makeItem(head, verdict, { allowed_paths: allowed, changed_paths: changed, ...extra }));
  }
  return items;
}

/**
 * The hiding check of one repo (src/contract/hiding.ts): what changed since the prompt's baseline that can hide work
 * from `git status`, null when the prompt recorded no baseline for it (`verify`, a clause on a repo its start did not
 * judge), or the git error that kept it from being read (a fault, as a failed `git status` is). `ignored`: the ignored
 * paths of the status read just made.
 */
function hidingCheck(
  root: string,
  ignored: string[],
  env: ClauseEnv,
): Promise<{ changes: string[] } | { error: string }> | null {
  const before = env.ctx.hiding?.[root];
  return before === undefined ? null : hidingSince(root, before, ignored, env.git);
}

/** In a run, a judged repo whose hiding state the prompt's start did not record (see `hidingBaselined`). */
function unbaselined(root: string, env: ClauseEnv): boolean {
  return env.ctx.hidingBaselined === true && env.ctx.hiding?.[root] === undefined;
}

/** What an item says of a repo {@link unbaselined}: its verdict's details name what was not compared, and why. */
export const HIDING_NOT_COMPARED = "what git status hides was not compared: the prompt's baseline has no record of " +
  "this repo (an amendment made during the prompt brought it under this clause, or git could not read it then)";

function uncompared(root: string, env: ClauseEnv, verdict: Verdict): Verdict {
  return unbaselined(root, env) ? { ...verdict, details: `${verdict.details}; ${HIDING_NOT_COMPARED}` } : verdict;
}

function porcelainLine(e: StatusEntry): string {
  return e.orig !== undefined ? `${e.xy} ${e.orig} -> ${e.path}` : `${e.xy} ${e.path}`;
}

/** `repos_clean`: the repo has no uncommitted changes; optionally HEAD is pushed. */
export async function checkReposClean(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const obj = isRecord(entry) ? entry : {};
  const repo = reposCleanRepo(entry, env);
  const pushed = obj.pushed === true;
  const network = obj.network === true;
  const t = obj.remote_timeout_ms ?? obj.fetch_timeout_ms;
  const remoteTimeout = typeof t === "number" && Number.isInteger(t) && t > 0 ? t : DEFAULT_REMOTE_TIMEOUT_MS;
  const head = { id, clause: "repos_clean" as const, kind: "repos_clean", repo };
  const root = env.repos[repo];
  const fields: Record<string, unknown> = {
    path: root ?? null,
    pushed,
    branch: null,
    head: null,
    upstream: null,
    dirty_count: 0,
  };
  if (root === undefined) return makeItem(head, fail(`missing repo: ${repo}`), fields);
  const bs = await branchStatus(root, env.git, env.ctx.hiding?.[root] !== undefined);
  if (!bs.ok) {
    return makeItem(
      head,
      bs.notRepo ? fail(`not a git repository: ${root}`) : fault(`git status failed: ${bs.error}`),
      fields,
    );
  }
  const hidden = await hidingCheck(root, bs.status.ignored, env);
  if (hidden !== null && "error" in hidden) return makeItem(head, fault(hidden.error), fields);
  const hides = hidden?.changes ?? [];
  if (hides.length) fields.hiding_changes = hides;
  if (unbaselined(root, env)) fields.hiding_compared = false;
  const { oid, branch, upstream } = bs.status;
  // The store root is runtime state, never the work: records committed with a prompt and appended to since do not
  // make the repo dirty (the same exclusion as changed_paths_only).
  const store = env.ctx.storeRoot;
  const storeRel = store && isWithin(root, store) && store !== root ? relative(root, store) : null;
  // The user's pre-existing paths (`run --allow-dirty`) are not the prompt's to clean up.
  const user = new Set(env.ctx.preexisting?.[root] ?? []);
  const work = bs.status.entries.filter((e) => changedPaths([e], storeRel).length > 0);
  const entries = work.filter((e) => !user.has(e.path) && (e.orig === undefined || !user.has(e.orig)));
  if (user.size) fields.preexisting_paths = work.length - entries.length;
  const short = oid ? oid.slice(0, 7) : "(no commits)";
  Object.assign(fields, { branch, head: short, upstream, dirty_count: entries.length });
  if (entries.length || hides.length) {
    const lines = entries.map(porcelainLine);
    const more = lines.length > 10 ? `, and ${lines.length - 10} more` : "";
    const problems = [
      ...(hides.length ? [hidingDetails(repo, hides, env.ctx.hiding?.[root])] : []),
      ...(lines.length ? [`uncommitted changes (${lines.length}): ${lines.slice(0, 10).join(", ")}${more}`] : []),
    ];
    return makeItem(head, uncompared(root, env, fail(problems.join("; "))), fields);
  }
  let verdict: Verdict;
  if (upstream === null) {
    verdict = pushed
      ? fail(`no upstream for branch ${branch} at ${short}; pushed: true requires one`)
      : pass(`ok: ${branch} at ${short} (local only, no upstream)`);
  } else if (!pushed) {
    verdict = pass(`ok: ${branch} at ${short} (upstream ${upstream}, push not asserted)`);
  } else {
    const { sha, note } = await upstreamSha(root, branch, network, remoteTimeout, env.git);
    verdict = sha !== null && sha === oid ? pass(`ok: ${branch} at ${short} (pushed to ${upstream})${note}`) : fail(
      `not pushed: ${branch} HEAD ${short} does not match ${upstream} ${sha ? sha.slice(0, 7) : "(unresolved)"}${note}`,
    );
  }
  return makeItem(head, uncompared(root, env, verdict), fields);
}

async function upstreamSha(
  root: string,
  branch: string,
  network: boolean,
  timeoutMs: number,
  cache: GitCache,
): Promise<{ sha: string | null; note: string }> {
  const cached = async () => {
    const r = await cache.run(root, ["rev-parse", "@{u}"]);
    return r.ok ? r.stdout.trim() : null;
  };
  if (!network) return { sha: await cached(), note: " [compared with cached upstream; network disabled]" };
  const remote = (await gitIn(root, ["config", `branch.${branch}.remote`])).stdout.trim() || "origin";
  const r = await gitBounded(root, ["ls-remote", "--exit-code", remote, `refs/heads/${branch}`], timeoutMs);
  if (r.ok) {
    const sha = r.stdout.trim().split(/\s+/)[0] ?? "";
    return { sha: /^[0-9a-f]{40,64}$/.test(sha) ? sha : null, note: "" };
  }
  if (!r.timedOut && r.code === 2) return { sha: null, note: ` [refs/heads/${branch} is absent from ${remote}]` };
  const why = r.timedOut ? `timed out after ${timeoutMs} ms` : `failed (exit ${r.code})`;
  return {
    sha: await cached(),
    note: ` [ls-remote ${why}; compared with cached upstream, which can only be behind]`,
  };
}
