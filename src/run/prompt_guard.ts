/**
 * The runner's hooks around one prompt (docs/keep_going.md): before it, capture the baseline of its target repos
 * (last good commit, the user's pre-existing dirty paths) and restore its preserved work from an earlier failure;
 * after it, preserve the work of a failed prompt under a named ref and return the repos to their last good commit,
 * so the next prompt's commit holds only its own files.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { nowIso } from "../util/time.ts";
import type { RunContext } from "./context.ts";
import { captureBaseline, dirtyRepos, listPaths, preexistingByRoot, promptRepos, type RepoBaseline } from "./dirty.ts";
import { type PreservedWork, preserveFailedWork, restorePreserved } from "./preserve.ts";
import type { PromptState, PromptStatus, StateDoc, StateStore } from "./state.ts";
import { RunFailedError } from "../errors.ts";
import { traceStage } from "../util/stage_trace.ts";
import { pendingClaims, pendingIn, pendingPaths } from "./commit_pending.ts";
import { dirtBeyondInterrupted, dirtBeyondMessage } from "./interrupted_work.ts";
import { captureHiding, changedSince, judgedRoots, startHidingReads } from "./hiding_baseline.ts";
import { clearLeftHiding, leftHidingOf, recordLeftHiding } from "./hiding_left.ts";
import { gitStatus, hidingDetails, hidingSince, type HidingState } from "../contract/mod.ts";

/** Final states whose leftovers are preserved and reset (an interrupted prompt's leftovers are resumed instead). */
const PRESERVED_STATUSES: ReadonlySet<PromptStatus> = new Set(["failed", "verification_failed", "verifier_fault"]);

/**
 * Whether a prompt left work behind when its runner stopped or died: crash recovery (src/run/recover_at_start.ts)
 * marked it `interrupted` — also when it died after verification, in the commit phase — or its latest attempt is
 * `running` or `interrupted`. That work is the prompt's own, claimed by its next run.
 */
export function hasLeftovers(state: StateDoc, promptId: string): boolean {
  return entryHasLeftovers(state.prompts[promptId]);
}

/** {@link hasLeftovers} of one prompt's entry. */
function entryHasLeftovers(entry: PromptState | undefined): boolean {
  const last = entry?.attempts.at(-1);
  return entry?.status === "interrupted" || last?.status === "running" || last?.status === "interrupted";
}

/**
 * The hiding baseline a prompt with leftovers keeps (docs/reference/contract.md §5.1): the state its interrupted
 * attempt's run recorded for each root it judges now. `missing`: the roots judged now that the record lacks (an older
 * record, a clause added since, a repo git could not read then) — read again, and said.
 */
export function keptHiding(
  entry: PromptState | undefined,
  judged: readonly string[],
): { roots: Record<string, HidingState>; missing: string[] } {
  const rec = entry?.hiding_baseline;
  const current = rec !== undefined && rec.run_id === entry?.attempts.at(-1)?.run_id ? rec.roots : {};
  const roots: Record<string, HidingState> = {};
  const missing: string[] = [];
  for (const root of judged) {
    const state = Object.hasOwn(current, root) ? current[root] : undefined;
    if (state !== undefined) roots[root] = state;
    else missing.push(root);
  }
  return { roots, missing };
}

function recordedBaseline(ctx: RunContext, prompt: Prompt): Record<string, string[]> | null {
  // An interrupted prompt keeps the baseline recorded when the run of its last attempt started it (none: nothing
  // was dirty then): its leftovers are its own, not the user's.
  const entry = ctx.state.entry(prompt.id);
  if (!entry || !entryHasLeftovers(entry)) return null;
  const rec = entry.preexisting;
  return rec && rec.run_id === entry.attempts.at(-1)?.run_id ? rec.repos : {};
}

/**
 * Refuse dirty target repos unless `allowDirty` (docs/keep_going.md). Called after the lease, and it must run after
 * crash recovery: the repos of prompts with leftovers ({@link hasLeftovers}) are claimed by those prompts. It runs
 * even under `--skip-preflight`, because it guards the record, not the setup.
 */
export async function refuseDirtyRepos(
  packet: Packet,
  prompts: Prompt[],
  storeRoot: string,
  allowDirty: boolean,
  state: StateStore | null,
): Promise<void> {
  const claimed = state ? prompts.filter((p) => entryHasLeftovers(state.entry(p.id))) : [];
  const pending = state ? pendingClaims(packet, (id) => pendingIn(state, id) ? state.entry(id) : undefined) : [];
  const dirty = (await dirtyRepos(packet, prompts, storeRoot, allowDirty, claimed, pending)).map((d) => d.message);
  // A prompt interrupted with its runner alive recorded its work: dirt beyond it is not its own.
  if (!allowDirty && state) {
    for (const p of claimed) {
      for (const d of await dirtBeyondInterrupted(packet, p, state.entry(p.id), storeRoot)) {
        dirty.push(dirtBeyondMessage(p.id, d));
      }
    }
  }
  if (dirty.length) throw new RunFailedError("preflight_failed", "preflight failed", { hints: dirty });
}

/**
 * Before a prompt: capture its baseline, then apply its preserved work (its partial progress) if any. `preserved`:
 * there was preserved work to apply (whether or not it applied), so the tree may have changed after the baseline.
 */
export async function beginPrompt(
  ctx: RunContext,
  packet: Packet,
  prompt: Prompt,
): Promise<{ baseline: RepoBaseline[]; restored: boolean; preserved: boolean }> {
  // The preserved-ref lookup runs beside the baseline's git read (it needs only the repos' paths); the refs are
  // listed once per run, so a prompt's start costs one git spawn per target repo.
  const repos = promptRepos(packet, prompt);
  const found = ctx.env.preserved.newest(repos, prompt.id);
  // A failed commit's paths are the prompt's own work, never its baseline (src/run/commit_pending.ts).
  const pending = pendingIn(ctx.state, prompt.id);
  const own = pending ? pendingPaths(pending) : null;
  const ahead = ctx.baselines.take(prompt.id); // read when the previous prompt's work was final, if it was
  if (ahead === null) traceStage("baseline_read", prompt.id);
  let recorded = recordedBaseline(ctx, prompt);
  if (recorded) {
    // Under --allow-dirty, paths that became dirty after the prompt's interrupt are the user's: kept out of its work.
    for (const d of await dirtBeyondInterrupted(packet, prompt, ctx.state.entry(prompt.id), ctx.storeRoot || null)) {
      if (!d.foreign.length) continue;
      recorded = { ...recorded, [d.repo]: [...new Set([...(recorded[d.repo] ?? []), ...d.foreign])] };
    }
  }
  // The hiding state of the repos its git clauses judge: its git queries go out beside the status read. A prompt that
  // continues its interrupted attempt keeps the state recorded when that attempt's run started it.
  const judged = await judgedRoots(ctx.packet, prompt, ctx.storeRoot);
  const kept = recorded ? keptHiding(ctx.state.entry(prompt.id), judged) : null;
  // A repo a failed prompt left hiding more than before is judged from the state before that prompt (hiding_left.ts).
  const left = leftHidingOf(ctx.state, judged.filter((r) => !kept?.roots[r]));
  const reads = startHidingReads(judged.filter((r) => !kept?.roots[r] && !left[r]), ahead?.hiding);
  const baseline = await captureBaseline(packet, prompt, ctx.storeRoot, recorded, own, ahead, new Set(reads.keys()));
  traceStage("captured_baseline", prompt.id);
  ctx.slot.beginPreexisting(preexistingByRoot(baseline));
  const fresh = await captureHiding(reads, baseline);
  if (reads.size) {
    // A repo changed since the run started, before this prompt, is judged from the run's state (hiding_run.ts).
    const runStart = await ctx.runHiding.of(Object.keys(fresh));
    for (const root of Object.keys(await changedSince(reads, fresh, runStart))) fresh[root] = runStart[root]!;
  }
  const hiding = { ...kept?.roots, ...left, ...fresh };
  ctx.slot.beginHiding(hiding);
  if (kept?.missing.length) {
    ctx.err(
      `warning: prompt ${prompt.id} continues an interrupted attempt whose run recorded no hiding baseline for ` +
        `${kept.missing.join(", ")}: what its session hid from git status before the interrupt is taken as it is now`,
    );
  }
  // Recorded before any session of the prompt starts, so a run that dies from here on leaves it for the next.
  if (Object.keys(hiding).length > 0 || kept !== null) {
    await ctx.state.updatePrompt(prompt.id, (p) => {
      p.hiding_baseline = { run_id: ctx.runId, roots: hiding };
    });
  }
  const user = baseline.filter((b) => b.dirty.length > 0);
  if (user.length) {
    await ctx.state.updatePrompt(prompt.id, (p) => {
      p.preexisting = { run_id: ctx.runId, repos: Object.fromEntries(baseline.map((b) => [b.name, b.dirty])) };
    });
    for (const b of user) {
      ctx.say(
        `Leaving the uncommitted paths already in ${b.name} out of prompt ${prompt.id}: ${listPaths(b.dirty, 5)}`,
      );
    }
  }
  const restored = await restorePreserved(baseline, prompt.id, found).catch((e) => ({
    ref: null,
    repos: [],
    skipped: (e as Error).message,
  }));
  // A restore (even a failed one) may have moved refs to refs/prompt_runner/restored/: list these repos again.
  if (await found !== null) ctx.env.preserved.invalidate(repos);
  if (restored.skipped) {
    ctx.err(`warning: prompt ${prompt.id} has preserved work that was not restored: ${restored.skipped}`);
  }
  if (restored.ref) {
    const where = restored.repos.map((r) => `${r.repo}: ${r.paths.length} path(s)`).join(", ");
    ctx.say(`Restored the preserved work of prompt ${prompt.id} from ${restored.ref} (${where})`);
    await ctx.state.updatePrompt(prompt.id, (p) => {
      const prev = p.preserved;
      if (prev && prev.ref === restored.ref) delete p.preserved;
      p.restored = {
        ref: restored.ref!,
        run_id: ctx.runId,
        at: nowIso(),
        repos: restored.repos.map((r) => ({ repo: r.repo, sha: r.sha, paths: r.paths })),
      };
    });
  }
  return { baseline, restored: restored.ref !== null, preserved: await found !== null };
}

/**
 * After a prompt, what git status hides in each repo its baseline recorded (hiding_left.ts). A failed prompt that changed
 * it leaves that change, and the work it hides, where they are: the preserve-and-reset below sees only what git status
 * shows, and undoing a session's git state is not the runner's to guess. So the state before it is recorded, and every
 * later baseline of the repo takes that state until the change is undone; the warning says so. A prompt that ends with a
 * recorded repo back at that state clears the record. Costs git queries only for a failed prompt or a recorded repo.
 */
async function settleHiding(
  ctx: RunContext,
  prompt: Prompt,
  baseline: RepoBaseline[],
  hiding: Record<string, HidingState>,
  failed: boolean,
): Promise<void> {
  for (const [root, before] of Object.entries(hiding)) {
    if (!failed && before.left_by === undefined) continue;
    const st = await gitStatus(root, undefined, true);
    if (!st.ok) continue;
    const found = await hidingSince(root, before, st.ignored);
    if (!("changes" in found)) continue;
    const repo = baseline.find((b) => b.root === root)?.name ?? root;
    if (found.changes.length === 0) {
      if (before.left_by === undefined) continue;
      await clearLeftHiding(ctx.state, root);
      ctx.say(
        `Repo ${repo}: what prompt ${before.left_by.prompt} left hidden from git status is undone; later baselines ` +
          "take the repo as it is",
      );
      continue;
    }
    if (!failed) continue;
    const origin = before.left_by?.prompt ?? prompt.id;
    if (before.left_by === undefined) await recordLeftHiding(ctx.state, prompt.id, ctx.runId, root, before);
    ctx.err(
      `warning: ${hidingDetails(repo, found.changes, before)}; prompt ${prompt.id} failed, and what that ` +
        `hides is neither preserved nor reset: until it is undone, every later prompt whose git clauses judge repo ` +
        `${repo} is judged from the state before prompt ${origin} and fails`,
    );
  }
}

/** After a prompt: preserve a failed prompt's work and reset its repos; returns what was preserved. */
export async function endPrompt(
  ctx: RunContext,
  prompt: Prompt,
  baseline: RepoBaseline[],
  outcome: { status: PromptStatus; reason: string | null },
): Promise<PreservedWork | null> {
  ctx.slot.endPreexisting();
  const hiding = ctx.hiding;
  ctx.slot.endHiding();
  const failed = PRESERVED_STATUSES.has(outcome.status);
  if (outcome.status !== "interrupted") await settleHiding(ctx, prompt, baseline, hiding, failed);
  if (!failed) return null;
  const { work, errors } = await preserveFailedWork(baseline, {
    runId: ctx.runId,
    promptId: prompt.id,
    storeRoot: ctx.storeRoot || null,
    reason: `${outcome.status}: ${outcome.reason ?? outcome.status}`,
  });
  ctx.env.preserved.invalidate(baseline); // a ref may have been written, even in a repo that then failed
  for (const e of errors) ctx.err(`warning: ${e}`);
  if (!work) return null;
  const where = work.repos.map((r) => `${r.repo}: ${r.paths.length} path(s)`).join(", ");
  ctx.say(`Preserved the work of prompt ${prompt.id} under ${work.ref} (${where}); back at the last good commit`);
  await ctx.state.updatePrompt(prompt.id, (p) => {
    p.preserved = work;
  });
  return work;
}
