/**
 * A commit that failed (docs/crash_recovery.md, "A commit that failed"): when a prompt's contract passed but its
 * commit failed, the paths it would have committed are recorded on its state entry with their content digests
 * (`commit_pending`). Those paths are that prompt's verified work: the dirty check never calls them nobody's, every
 * other prompt leaves them out (they are in its baseline), and the prompt's next run claims and commits them
 * (src/run/commit_claim.ts).
 */
import { canonicalPath } from "../contract/paths.ts";
import type { Packet } from "../packet/mod.ts";
import { join } from "../util/path.ts";
import { type PendingClaim, promptRepos, uncommittedPaths } from "./dirty.ts";
import { type CommitPending, type CommitRecord, pendingOf, type PromptState, type StateStore } from "./state.ts";

/** A path's content as the record keeps it: `sha256:<hex>`, `link:<target>`, `absent` or `other`. */
export async function contentDigest(root: string, rel: string): Promise<string> {
  const full = join(root, rel);
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(full);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "absent";
    throw e;
  }
  if (info.isSymlink) return `link:${await Deno.readLink(full)}`;
  if (!info.isFile) return "other";
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", await Deno.readFile(full)));
  return "sha256:" + Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The paths a failed commit left uncommitted, per repo that was not committed (`record`: the failed commit's
 * per-repo results; a repo committed before the failure is done), with their digests now. `exclude`: canonical repo
 * root → the user's pre-existing paths, never the prompt's. Null when nothing was left.
 */
export async function pendingWork(
  repos: { name: string; path: string }[],
  exclude: Record<string, string[]>,
  storeRoot: string | null,
  record: CommitRecord,
  runId: string,
  at: string,
): Promise<CommitPending | null> {
  const committed = new Set((record.repos ?? []).filter((r) => r.status === "ok").map((r) => r.repo));
  const out: Record<string, Record<string, string>> = {};
  for (const repo of repos) {
    if (committed.has(repo.name) || out[repo.name]) continue;
    const dirty = await uncommittedPaths(repo.path, storeRoot);
    const user = new Set(exclude[canonicalPath(repo.path)] ?? []);
    const own = (dirty ?? []).filter((p) => !user.has(p));
    if (own.length === 0) continue;
    const digests: Record<string, string> = {};
    for (const p of own) digests[p] = await contentDigest(repo.path, p);
    out[repo.name] = digests;
  }
  return Object.keys(out).length ? { run_id: runId, at, repos: out } : null;
}

/** The pending commit of a prompt in the run's state (cheap for the many prompts without one). */
export function pendingIn(state: StateStore, promptId: string): CommitPending | null {
  return state.mayHoldCommitPending(promptId) ? pendingOf(state.entry(promptId)) : null;
}

/** Per repo name, the paths of a pending commit. */
export function pendingPaths(pending: CommitPending): Record<string, string[]> {
  return Object.fromEntries(Object.entries(pending.repos).map(([repo, files]) => [repo, Object.keys(files)]));
}

/** Every packet prompt with a pending commit (`entry`: a prompt's state entry), its paths keyed by canonical root. */
export function pendingClaims(packet: Packet, entry: (id: string) => PromptState | undefined): PendingClaim[] {
  const out: PendingClaim[] = [];
  for (const prompt of packet.prompts) {
    const pending = pendingOf(entry(prompt.id));
    if (!pending) continue;
    const byRoot = new Map<string, Set<string>>();
    for (const repo of promptRepos(packet, prompt)) {
      const paths = pending.repos[repo.name];
      if (paths) byRoot.set(canonicalPath(repo.path), new Set(Object.keys(paths)));
    }
    out.push({ prompt, byRoot });
  }
  return out;
}

/** What the claim finds now: the recorded paths still uncommitted, and those whose content changed since. */
export async function checkPending(
  repos: { name: string; path: string }[],
  pending: CommitPending,
  storeRoot: string | null,
): Promise<{ repos: Record<string, string[]>; changed: string[] }> {
  const still: Record<string, string[]> = {};
  const changed: string[] = [];
  for (const repo of repos) {
    const files = pending.repos[repo.name];
    if (!files || still[repo.name]) continue;
    const dirty = new Set((await uncommittedPaths(repo.path, storeRoot)) ?? []);
    const left = Object.keys(files).filter((p) => dirty.has(p));
    if (left.length) still[repo.name] = left;
    for (const [p, digest] of Object.entries(files)) {
      if (await contentDigest(repo.path, p) !== digest) changed.push(`${repo.name}:${p}`);
    }
  }
  return { repos: still, changed };
}
