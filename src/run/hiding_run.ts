/**
 * What `git status` hides, as a run found it (docs/reference/contract.md §5.1, "Earlier in the run"). A prompt's hiding
 * baseline is the state at its own start, and what was there then is the user's. Within a run that would take as the
 * user's a change an earlier prompt's session made: a prompt whose contract has no git clause is not compared, so its
 * session could add an exclude pattern, complete, and hide the next prompt's work from that prompt's clauses and commit.
 * So when the runner starts (or resumes) a run it reads the state of every repo a selected prompt's git clauses judge
 * (two git queries per repo, once per run; nothing for a packet without such clauses), and a prompt whose start finds a
 * repo changed since then is judged from the run's state instead (marked `since_run`): its clause fails, naming it.
 *
 * Across runners: the states are kept in `<store>/hiding_start.json` while the run goes on. A runner that closes
 * compares each repo with its kept state: back as it was, the repo is dropped from the file (the next run takes it as
 * it finds it); changed — by a session after the last judged prompt, or by hand — it stays, with a warning, and the
 * next runner takes that older state for it. A runner that dies leaves the file whole, so the run that follows (with
 * `--remaining` or not) is judged from the state before the dead one.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { amendedPromptIds, gitStatus, hidingChangeList, hidingSince, type HidingState } from "../contract/mod.ts";
import { isRecord } from "../util/is_record.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { atomicWriteStoreText, lstatStoreSync } from "../util/safe_fs.ts";
import { storePaths } from "../store/paths.ts";
import { captureHiding, judgedRoots, startHidingReads } from "./hiding_baseline.ts";

/** One repo's kept state: the run whose runner first read it, and the state. */
interface Kept {
  run_id: string;
  state: HidingState;
}

/** `hiding_start.json`: canonical root → its kept state. */
interface KeptFile {
  schema: typeof SCHEMA;
  roots: Record<string, Kept>;
}

const SCHEMA = "prompt_runner.hiding_start/v1";

/** The kept states of a store's file; empty when there is none or it cannot be read as one (a warning says why). */
async function readKept(storeRoot: string, warn: (line: string) => void): Promise<Record<string, Kept>> {
  const path = storePaths(storeRoot).hidingStart;
  let text: string | null;
  try {
    text = await readStoreTextOrNull(path);
  } catch (e) {
    warn(`warning: ${path}: ${(e as Error).message}; the judged repos are taken as they are now`);
    return {};
  }
  if (text === null) return {};
  try {
    const doc = JSON.parse(text);
    if (!isRecord(doc) || doc.schema !== SCHEMA || !isRecord(doc.roots)) throw new Error(`expected schema ${SCHEMA}`);
    const out: Record<string, Kept> = {};
    for (const [root, k] of Object.entries(doc.roots)) {
      if (isRecord(k) && typeof k.run_id === "string" && isRecord(k.state) && isRecord(k.state.flags)) {
        out[root] = k as unknown as Kept;
      }
    }
    return out;
  } catch (e) {
    warn(
      `warning: ${path} is not a hiding record (${(e as Error).message}); the judged repos are taken as they are now`,
    );
    return {};
  }
}

async function writeKept(storeRoot: string, roots: Record<string, Kept>): Promise<void> {
  const path = storePaths(storeRoot).hidingStart;
  if (Object.keys(roots).length === 0) {
    if (lstatStoreSync(path, "file") !== null) await Deno.remove(path);
    return;
  }
  const doc: KeptFile = { schema: SCHEMA, roots };
  await atomicWriteStoreText(path, JSON.stringify(doc) + "\n", { fsync: true });
}

/** The hiding state of the judged repos when the run started (see the module note). */
export class RunHiding {
  #kept: Promise<Record<string, Kept>> = Promise.resolve({});
  #storeRoot = "";

  /**
   * Start reading the state of every repo the git clauses of `prompts` judge (their enforced contracts as they are now;
   * a clause an amendment adds later has no run state, and is judged from the prompt's start as before). A repo the
   * store's file keeps (a runner that died, or closed with the repo changed) keeps that state. `storeRoot` empty: a run
   * without a store keeps nothing.
   */
  start(packet: Packet, prompts: readonly Prompt[], storeRoot: string, runId: string, warn: (l: string) => void): void {
    this.#storeRoot = storeRoot;
    const amended = storeRoot ? amendedPromptIds(storeRoot) : new Set<string>();
    this.#kept = (async () => {
      const roots = new Set<string>();
      for (const prompt of prompts) {
        for (const root of await judgedRoots(packet, prompt, storeRoot, amended)) roots.add(root);
      }
      const earlier = storeRoot ? await readKept(storeRoot, warn) : {};
      const fresh = [...roots].filter((r) => !Object.hasOwn(earlier, r));
      const read = fresh.length ? await captureHiding(startHidingReads(fresh), []) : {};
      const kept: Record<string, Kept> = { ...earlier };
      for (const [root, state] of Object.entries(read)) kept[root] = { run_id: runId, state };
      if (storeRoot && Object.keys(read).length) await writeKept(storeRoot, kept);
      return kept;
    })().catch((e) => {
      warn(`warning: the judged repos' hiding state could not be kept (${(e as Error).message})`);
      return {};
    });
  }

  /** The run's state of each of `roots` it has, marked with its run (the baseline to take where they differ). */
  async of(roots: readonly string[]): Promise<Record<string, HidingState>> {
    const kept = await this.#kept;
    const out: Record<string, HidingState> = {};
    for (const root of roots) {
      const k = Object.hasOwn(kept, root) ? kept[root] : undefined;
      if (k !== undefined) out[root] = { ...k.state, since_run: k.run_id };
    }
    return out;
  }

  /**
   * The runner closes: each kept repo back at its kept state is dropped from the store's file; one that changed stays,
   * and `warn` names the change (the next runner is judged from the older state). Reads git only for kept repos.
   */
  async settle(warn: (line: string) => void): Promise<void> {
    const kept = await this.#kept;
    if (!this.#storeRoot || Object.keys(kept).length === 0) return;
    const stay: Record<string, Kept> = {};
    for (const [root, k] of Object.entries(kept)) {
      const st = await gitStatus(root, undefined, true);
      const found = st.ok ? await hidingSince(root, k.state, st.ignored) : { error: st.error };
      if ("changes" in found && found.changes.length === 0) continue;
      stay[root] = k;
      const what = "changes" in found
        ? `repo ${root}: what git status hides changed since the runner started on run ${k.run_id}: ` +
          hidingChangeList(found.changes)
        : `repo ${root}: what git status hides could not be read (${found.error})`;
      warn(
        `warning: ${what}; the next run is judged from the state before it until the change is undone ` +
          `(docs/reference/contract.md §5.1, "Earlier in the run")`,
      );
    }
    await writeKept(this.#storeRoot, stay);
  }
}
