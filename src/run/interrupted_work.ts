/**
 * An interrupted prompt's work (docs/crash_recovery.md, "A prompt interrupted by Ctrl-C or stop"). A runner killed
 * outright cannot say which uncommitted paths its prompt wrote, so its next run gives all of the prompt's dirt to the
 * prompt. A runner stopped by Ctrl-C or `stop` is alive when the prompt ends `interrupted`: it records the prompt's
 * uncommitted paths then, with their content digests (`interrupted_work`, the user's pre-existing paths left out).
 * The next run claims exactly those. A path that became dirty since is not the prompt's: the run is refused naming
 * it, or with `--allow-dirty` it is kept out of the prompt's changes and commit. A path of the prompt's edited since
 * stays the prompt's (the two cannot be told apart), and is refused the same way without `--allow-dirty`.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import type { RunContext } from "./context.ts";
import { listPaths, promptRepos, uncommittedPaths } from "./dirty.ts";
import { contentDigest, pendingWork } from "./commit_pending.ts";
import type { PromptState } from "./state.ts";

/** Record the prompt's uncommitted paths as its interrupted work (its runner is alive to say so). */
export async function recordInterruptedWork(ctx: RunContext, prompt: Prompt): Promise<void> {
  if (!ctx.persist) return;
  const at = nowIso();
  const repos = promptRepos(ctx.packet, prompt);
  const work = await pendingWork(repos, ctx.preexisting, ctx.storeRoot || null, { status: "skip" }, ctx.runId, at);
  await ctx.state.updatePrompt(prompt.id, (p) => {
    p.interrupted_work = work ?? { run_id: ctx.runId, at, repos: {} };
  });
}

/** Dirt in one repo of an interrupted prompt that its record does not account for. */
export interface DirtBeyond {
  repo: string;
  /** Paths dirty now that were not the prompt's when it was interrupted (nor the user's before it started). */
  foreign: string[];
  /** Paths of the prompt's whose content changed since. */
  changed: string[];
}

/** What dirt of an interrupted prompt's repos its recorded work does not account for (empty without a record). */
export async function dirtBeyondInterrupted(
  packet: Packet,
  prompt: Prompt,
  entry: PromptState | undefined,
  storeRoot: string | null,
): Promise<DirtBeyond[]> {
  const rec = entry?.status === "interrupted" ? entry.interrupted_work : undefined;
  if (!rec) return [];
  const users = entry?.preexisting?.run_id === rec.run_id ? entry.preexisting.repos : {};
  const out: DirtBeyond[] = [];
  const seen = new Set<string>();
  for (const repo of promptRepos(packet, prompt)) {
    if (seen.has(repo.name)) continue;
    seen.add(repo.name);
    const own = rec.repos[repo.name] ?? {};
    const user = new Set(users[repo.name] ?? []);
    const foreign: string[] = [];
    const changed: string[] = [];
    for (const p of (await uncommittedPaths(repo.path, storeRoot)) ?? []) {
      if (user.has(p)) continue;
      const was = own[p];
      if (was === undefined) foreign.push(p);
      else if (await contentDigest(repo.path, p) !== was) changed.push(p);
    }
    if (foreign.length || changed.length) out.push({ repo: repo.name, foreign, changed });
  }
  return out;
}

/** The refusal line of one repo's {@link DirtBeyond}. */
export function dirtBeyondMessage(promptId: string, d: DirtBeyond): string {
  const parts: string[] = [];
  if (d.foreign.length) parts.push(`${d.foreign.length} path(s) not its own: ${listPaths(d.foreign)}`);
  if (d.changed.length) parts.push(`${d.changed.length} of its path(s) edited since: ${listPaths(d.changed)}`);
  return `repo ${d.repo}: prompt ${promptId} was interrupted, and its repo has changed since — ${parts.join("; ")}; ` +
    `commit or stash those, or pass --allow-dirty to keep paths not its own out of prompt ${promptId}'s changes ` +
    "and commit";
}
