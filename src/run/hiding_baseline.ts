/**
 * A prompt's hiding baseline (src/contract/hiding.ts, docs/reference/contract.md §5.1): at its start, the git state
 * that decides what `git status` shows — flagged index entries, exclude and attribute sources, the config keys that
 * bear on status, ignored `.gitignore` files — of each repo its `changed_paths_only` and `repos_clean` entries judge.
 * Those clauses compare it with the state at verification, so a session that hides its work from `git status` fails
 * them instead of passing on a tree that only looks clean.
 *
 * Cost: a prompt whose contract has neither clause reads none of it (no git, no file). Otherwise two git queries per
 * repo go out beside the baseline's own `git status` (which lists the ignored paths in the same read), and the
 * sources are read from their files.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { type Contract, enforcedContract, packetContract } from "../contract/mod.ts";
import { verifyContextFor } from "../contract/context.ts";
import { clauseEnv } from "../contract/verify.ts";
import {
  gitClauseRoots,
  gitStatus,
  hidingChanges,
  type HidingRead,
  type HidingState,
  ignoreFiles,
  isIgnoreFile,
  readHidingCore,
} from "../contract/mod.ts";
import type { RepoBaseline } from "./dirty.ts";

/** Whether a contract has an entry of `changed_paths_only` or `repos_clean` (pure). */
function judgesGit(contract: Contract): boolean {
  return (contract.changed_paths_only ?? []).length > 0 || (contract.repos_clean ?? []).length > 0;
}

/**
 * The canonical roots whose hiding state a prompt's baseline records: those its contract's git clauses judge. Empty —
 * and nothing resolved — for a contract with neither clause.
 */
export function hidingRoots(packet: Packet, prompt: Prompt, contract: Contract): string[] {
  if (!judgesGit(contract)) return [];
  const ctx = verifyContextFor(packet, prompt, packet.dir, { runId: null, source: "attempt", attempt: null });
  return gitClauseRoots(contract, clauseEnv(ctx));
}

/**
 * The roots whose hiding state a prompt's baseline records: from its enforced contract (an amendment may have added a
 * git clause); none — no git, no file read — when its packet contract and amendments have neither clause. A store whose
 * amendments cannot be read leaves it to the packet contract: the verification reports that store by name. `amended`
 * (the ids with an amendments file, listed once): a prompt not in it is not read for amendments.
 */
export async function judgedRoots(
  packet: Packet,
  prompt: Prompt,
  storeRoot: string,
  amended: ReadonlySet<string> | null = null,
): Promise<string[]> {
  const contract = amended !== null && !amended.has(prompt.id)
    ? packetContract(prompt)
    : await enforcedContract(prompt, storeRoot).then((e) => e.contract, () => packetContract(prompt));
  return hidingRoots(packet, prompt, contract);
}

/** Start the hiding reads of `roots` now (those read ahead are taken as they are). */
export function startHidingReads(
  roots: readonly string[],
  ahead: ReadonlyMap<string, Promise<HidingRead>> | null = null,
): Map<string, Promise<HidingRead>> {
  const reads = new Map<string, Promise<HidingRead>>();
  for (const root of roots) reads.set(root, ahead?.get(root) ?? readHidingCore(root));
  return reads;
}

/**
 * The hiding state of each root, from its started read and the prompt's baseline: the ignored paths its status read
 * listed (a root that is no target repo is read here) and the user's uncommitted `.gitignore` files, which every
 * clause leaves out as pre-existing, so their content is watched instead. A root git cannot read is left out: its
 * clause reports that itself.
 */
export async function captureHiding(
  reads: ReadonlyMap<string, Promise<HidingRead>>,
  baseline: readonly RepoBaseline[],
): Promise<Record<string, HidingState>> {
  const out: Record<string, HidingState> = {};
  for (const [root, pending] of reads) {
    const read = await pending;
    if (!read.ok) continue;
    const b = baseline.find((x) => x.root === root);
    let ignored = b?.ignored;
    if (ignored === undefined) {
      const st = await gitStatus(root, undefined, true);
      ignored = st.ok ? st.ignored : [];
    }
    const watch = [...ignored, ...(b?.dirty ?? [])].filter(isIgnoreFile);
    out[root] = { ...read.core, ignoreFiles: await ignoreFiles(read.top, watch) };
  }
  return out;
}

/**
 * What changed in each root between `since` (its state at an earlier moment) and `states` (captured now from `reads`,
 * {@link captureHiding}): the roots with a change, each with what changed. Reads nothing from git again.
 */
export async function changedSince(
  reads: ReadonlyMap<string, Promise<HidingRead>>,
  states: Readonly<Record<string, HidingState>>,
  since: Readonly<Record<string, HidingState>>,
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [root, before] of Object.entries(since)) {
    const pending = reads.get(root);
    const state = states[root];
    if (pending === undefined || state === undefined) continue;
    const read = await pending;
    if (!read.ok) continue;
    // Watch what either moment watched, so an ignore file seen at the earlier one is compared too.
    const watch = [...new Set([...Object.keys(before.ignoreFiles), ...Object.keys(state.ignoreFiles)])];
    const now = { ...state, ignoreFiles: await ignoreFiles(read.top, watch) };
    const changes = hidingChanges(before, now, read.flagged, read.top);
    if (changes.length) out[root] = changes;
  }
  return out;
}
