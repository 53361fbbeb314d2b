/**
 * What `git status` hides, as a run found it (docs/reference/contract.md §5.1, "Earlier in the run"). A prompt's hiding
 * baseline is the state at its own start, and what was there then is the user's. Within a run that would take as the
 * user's a change an earlier prompt's session made: a prompt whose contract has no git clause is not compared, so its
 * session could add an exclude pattern, complete, and hide the next prompt's work from that prompt's clauses and commit.
 * So when the runner starts (or resumes) a run it reads the state of every repo a selected prompt's git clauses judge (two git queries per
 * repo, once per run; nothing for a packet without such clauses), and a prompt whose start finds a repo changed since
 * then is judged from the run's state instead (marked `since_run`): its clause fails, naming the change.
 *
 * Not across runs: a run started after a crash takes the state as it finds it, except for a prompt that continues its
 * interrupted attempt (its recorded baseline) and what a failed prompt left (src/run/hiding_left.ts).
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { amendedPromptIds, enforcedContract, type HidingState, packetContract } from "../contract/mod.ts";
import { captureHiding, hidingRoots, judgesGit, startHidingReads } from "./hiding_baseline.ts";

/** The hiding state of the judged repos when the run started (see the module note). */
export class RunHiding {
  #states: Promise<Record<string, HidingState>> = Promise.resolve({});
  #runId = "";

  /**
   * Start reading the state of every repo the git clauses of `prompts` judge (their enforced contracts as they are now;
   * a clause an amendment adds later has no run state, and is judged from the prompt's start as before).
   */
  start(packet: Packet, prompts: readonly Prompt[], storeRoot: string, runId: string): void {
    this.#runId = runId;
    const amended = storeRoot ? amendedPromptIds(storeRoot) : new Set<string>();
    this.#states = (async () => {
      const roots = new Set<string>();
      for (const prompt of prompts) {
        const contract = amended === null || amended.has(prompt.id)
          ? await enforcedContract(prompt, storeRoot).then((e) => e.contract, () => packetContract(prompt))
          : packetContract(prompt);
        if (!judgesGit(contract)) continue;
        for (const root of hidingRoots(packet, prompt, contract)) roots.add(root);
      }
      if (roots.size === 0) return {};
      return await captureHiding(startHidingReads([...roots]), []);
    })().catch(() => ({})); // a repo git cannot read has no run state: its prompts are judged from their starts
  }

  /** The run's state of each of `roots` it has, marked with the run (the baseline to take where they differ). */
  async of(roots: readonly string[]): Promise<Record<string, HidingState>> {
    const states = await this.#states;
    const out: Record<string, HidingState> = {};
    for (const root of roots) {
      const s = Object.hasOwn(states, root) ? states[root] : undefined;
      if (s !== undefined) out[root] = { ...s, since_run: this.#runId };
    }
    return out;
  }
}
