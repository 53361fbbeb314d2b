/**
 * Interventions travel with the work (docs/reference/control-plane.md §5.3, §9): for a packet-local run whose store root lies inside
 * a target repo, a prompt's commit in that repo includes its `interventions/<prompt>.jsonl` and
 * `amendments/<prompt>.jsonl`, force-added past the store's `.gitignore`. Everything else under the store root stays
 * out of the runner's own staging and change detection — also records once committed and appended to later — so a
 * commit never carries another prompt's records. Workspace runs keep their store root outside every checkout:
 * nothing rides along and nothing is written there.
 */
import { relative } from "../util/path.ts";
import { storePaths, storeRootForPacket } from "../store/paths.ts";

/** What a prompt's commit may carry from the store root. */
export interface RecordsSource {
  storeRoot: string;
  promptId: string;
  /** Whether the prompt's records ride along (packet-local runs that persist); the store is excluded either way. */
  carry: boolean;
}

/** The store root as seen from one repo: its pathspec-safe relative path, and the prompt's files that exist. */
export interface RidingRecords {
  /** The store root relative to the repo directory (e.g. `packet/.prompt_runner`). */
  storeRel: string;
  /** The prompt's record files that exist, relative to the repo directory. */
  files: string[];
}

async function canonical(path: string): Promise<string> {
  return await Deno.realPath(path).catch(() => path.replace(/\/+$/, ""));
}

/** Whether a store root is the packet-local one of a packet directory (not a workspace's external state root). */
export async function isPacketLocalStore(storeRoot: string, packetDir: string): Promise<boolean> {
  return (await canonical(storeRoot)) === (await canonical(storeRootForPacket(packetDir)));
}

/** The store root's path relative to a repo directory when it lies strictly inside it, else null. */
export async function storeRelIn(repoPath: string, storeRoot: string): Promise<string | null> {
  const repo = await canonical(repoPath);
  const store = await canonical(storeRoot);
  if (store === repo || !store.startsWith(repo === "/" ? "/" : `${repo}/`)) return null;
  return relative(repo, store);
}

/**
 * The records of `source` that ride with a commit in `repoPath` (none unless `carry`), or null when its store root
 * is not inside the repo.
 */
export async function ridingRecords(repoPath: string, source: RecordsSource): Promise<RidingRecords | null> {
  const storeRel = await storeRelIn(repoPath, source.storeRoot);
  if (storeRel === null) return null;
  const p = storePaths(source.storeRoot);
  const files: string[] = [];
  if (!source.carry) return { storeRel, files };
  for (
    const [abs, rel] of [
      [p.interventionsFile(source.promptId), `interventions/${source.promptId}.jsonl`],
      [p.amendmentsFile(source.promptId), `amendments/${source.promptId}.jsonl`],
    ] as const
  ) {
    try {
      if ((await Deno.lstat(abs)).isFile) files.push(`${storeRel}/${rel}`);
    } catch { /* absent: nothing to carry */ }
  }
  return { storeRel, files };
}

/**
 * Pathspecs for "the whole work tree except the store root" (`:/` is the top of the work tree; the exclusion is
 * literal, relative to the repo directory). Empty when there is no store root inside the repo.
 */
export function outsideStore(riding: RidingRecords | null): string[] {
  return riding ? [":/", `:(exclude,literal)${riding.storeRel}`] : [];
}
