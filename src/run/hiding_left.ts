/**
 * What a failed prompt left hidden (docs/reference/contract.md §5.1, "Left by a failed prompt"). A prompt that fails
 * after its session changed what `git status` hides — an exclude pattern, a skip-worktree flag, a config key — leaves
 * that change in place: the preserve-and-reset sees only what `git status` shows, and undoing a session's git state is
 * not the runner's to guess. Taken as the user's by the next baseline, it would hide the next prompts' work from their
 * git clauses and their commits (under `--keep-going` the next prompt starts at once). So the failed prompt's entry
 * records, per canonical repo root, the state its baseline held (`hiding_left`), and every later prompt whose
 * git clauses judge that repo — in this run or a later one — takes that state as its baseline (marked `left_by`): its
 * clauses fail, naming the change and the prompt that left it, until someone undoes it. The first prompt to end with
 * the repo back at that state clears the record.
 *
 * Cost: the records are found once per run (a text search of the entries at rest); a prompt reads nothing more unless
 * a record names one of its repos.
 */
import type { HidingState } from "../contract/mod.ts";
import { nowIso } from "../util/time.ts";
import type { StateStore } from "./state.ts";

interface Index {
  generation: number;
  /** Canonical root → the state before the failed prompt, marked with it. */
  roots: Map<string, HidingState>;
}

const indexes = new WeakMap<StateStore, Index>();

function indexOf(state: StateStore): Map<string, HidingState> {
  const held = indexes.get(state);
  if (held && held.generation === state.generation) return held.roots;
  const roots = new Map<string, HidingState>();
  for (const id of state.ids()) {
    if (!state.mayHold(id, "hiding_left")) continue;
    const left = state.entry(id)?.hiding_left;
    if (left === null || typeof left !== "object") continue;
    for (const [root, rec] of Object.entries(left)) {
      if (roots.has(root) || rec === null || typeof rec !== "object" || typeof rec.before !== "object") continue;
      roots.set(root, { ...rec.before, left_by: { prompt: id, run_id: rec.run_id } });
    }
  }
  indexes.set(state, { generation: state.generation, roots });
  return roots;
}

/** The recorded state of each of `roots` that a failed prompt left changed (the baseline to take instead). */
export function leftHidingOf(state: StateStore, roots: readonly string[]): Record<string, HidingState> {
  const out: Record<string, HidingState> = {};
  if (roots.length === 0) return out; // a prompt that judges no git: the entries are not searched
  const index = indexOf(state);
  for (const root of roots) {
    const rec = index.get(root);
    if (rec !== undefined) out[root] = rec;
  }
  return out;
}

/**
 * Record that prompt `promptId` failed in run `runId` leaving `root` changed from `before` (its baseline there): kept on
 * its entry until {@link clearLeftHiding}. A root already recorded keeps its record (its state is the older one).
 */
export async function recordLeftHiding(
  state: StateStore,
  promptId: string,
  runId: string,
  root: string,
  before: HidingState,
): Promise<void> {
  const index = indexOf(state);
  if (index.has(root)) return;
  const { left_by: _, since_run: _run, ...plain } = before;
  await state.updatePrompt(promptId, (p) => {
    p.hiding_left = { ...p.hiding_left, [root]: { run_id: runId, at: nowIso(), before: plain } };
  });
  index.set(root, { ...plain, left_by: { prompt: promptId, run_id: runId } });
}

/** The repo at `root` is back at its recorded state: drop the record from the entry that holds it. */
export async function clearLeftHiding(state: StateStore, root: string): Promise<void> {
  const index = indexOf(state);
  const rec = index.get(root);
  if (rec?.left_by === undefined) return;
  await state.updatePrompt(rec.left_by.prompt, (p) => {
    if (!p.hiding_left) return;
    const rest = Object.fromEntries(Object.entries(p.hiding_left).filter(([r]) => r !== root));
    if (Object.keys(rest).length) p.hiding_left = rest;
    else delete p.hiding_left;
  });
  index.delete(root);
}
