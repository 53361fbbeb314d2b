/**
 * The recovery step of a run (docs/crash_recovery.md): gather progress.log, state.json and git facts, plan with
 * {@link planRecovery}, then apply the plan — progress lines first (the source of truth), state.json after — and
 * say what was corrected. Runs once per run under the lease, before anything else runs.
 */
import type { Packet, Prompt } from "../packet/mod.ts";
import { readProgress } from "../store/progress.ts";
import { appendProgress } from "../store/progress_append.ts";
import { StateStore } from "./state.ts";
import { readCurrentRun } from "../store/run_record.ts";
import { porcelain, runGit } from "./git.ts";
import { uncommittedPaths } from "./dirty.ts";
import { outsideStore, ridingRecords } from "./commit_records.ts";
import { nowIso } from "../util/time.ts";
import {
  type CommitFacts,
  inFlightPrompt,
  planRecovery,
  type RecoveryPlan,
  type RepoFacts,
  suffixShas,
} from "./crash_recovery.ts";

/** The repos a prompt commits in: its targets, else the packet's default repo, else the packet directory. */
export function promptRepos(packet: Packet, prompt: Prompt): { name: string; path: string }[] {
  const byName = new Map(packet.repos.map((r) => [r.name, r.path]));
  const named = prompt.targets.map((t) => ({ name: t, path: byName.get(t) ?? "" })).filter((r) => r.path !== "");
  if (named.length) return named;
  if (packet.defaultRepo) return [{ name: packet.defaultRepo.name, path: packet.defaultRepo.path }];
  return [{ name: "default", path: packet.dir }];
}

const SEP = "\x1f";

/** Facts of one commit (`rev` may be a sha or HEAD); null when it is not a reachable commit of the repo. */
async function commitFacts(repo: string, rev: string): Promise<CommitFacts | null> {
  const format = `--format=%H${SEP}%(trailers:key=Prompt-Runner-Prompt,valueonly,separator=%x2c)${SEP}` +
    `%(trailers:key=Prompt-Runner-Run,valueonly,separator=%x2c)`;
  try {
    const r = await runGit(repo, ["log", "-1", "--no-walk", format, `${rev}^{commit}`, "--"]);
    if (!r.ok) return null;
    const [sha, prompt, run] = r.stdout.replace(/\n+$/, "").split(SEP);
    if (!sha) return null;
    const reachable = rev === "HEAD" || (await runGit(repo, ["merge-base", "--is-ancestor", sha, "HEAD"])).ok;
    if (!reachable) return null;
    return { sha, prompt: prompt?.trim() || null, run: run?.trim() || null };
  } catch {
    return null;
  }
}

async function shaValidity(packet: Packet, progress: Awaited<ReturnType<typeof readProgress>>) {
  const valid = new Map<string, boolean>();
  for (const [id, rec] of progress) {
    if (rec.status !== "completed") continue;
    const shas = suffixShas(rec.suffix);
    const prompt = packet.prompts.find((p) => p.id === id);
    if (shas.length === 0 || !prompt) continue;
    const repos = promptRepos(packet, prompt);
    let ok = true;
    for (const s of shas) {
      const repo = s.repo === null ? repos[0] : (packet.repos.find((r) => r.name === s.repo) ?? repos[0]);
      const facts = repo ? await commitFacts(repo.path, s.sha) : null;
      // Commits made before trailers existed (or by the session) carry no prompt trailer: reachable is enough.
      if (!facts || (facts.prompt !== null && facts.prompt !== id)) ok = false;
    }
    valid.set(id, ok);
  }
  return valid;
}

/** Gather the facts and plan (no writes). */
async function gatherRecovery(packet: Packet, state: StateStore): Promise<RecoveryPlan> {
  const progress = await readProgress(state.storeRoot);
  const doc = state.current;
  const flight = inFlightPrompt(doc);
  const prompt = flight ? packet.prompts.find((p) => p.id === flight.promptId) : undefined;
  const repos: RepoFacts[] = [];
  if (prompt) {
    // The user's paths already dirty when the dead run started the prompt (`--allow-dirty`) are not its work: they
    // neither make its committed work "leftovers" nor stop its commit from being adopted.
    const pre = doc.prompts[prompt.id]?.preexisting;
    const users = pre && pre.run_id === flight!.runId ? pre.repos : {};
    for (const r of promptRepos(packet, prompt)) {
      // The store root is never the work (nor dirt), even where it lives inside the repo.
      const outside = outsideStore(
        await ridingRecords(r.path, { storeRoot: state.storeRoot, promptId: prompt.id, carry: false }),
      );
      const theirs = new Set(users[r.name] ?? []);
      const dirty = theirs.size === 0
        ? ((await porcelain(r.path, outside)) ?? []).length > 0
        : ((await uncommittedPaths(r.path, state.storeRoot)) ?? []).some((p) => !theirs.has(p));
      repos.push({ name: r.name, head: await commitFacts(r.path, "HEAD"), dirty });
    }
  }
  return planRecovery({
    order: packet.prompts.map((p) => p.id),
    progress,
    state: doc,
    repos,
    shaValid: await shaValidity(packet, progress),
  });
}

/**
 * Recover before the run starts: apply progress corrections, then state.json fixes; `say` gets one line per
 * correction. Returns the plan (its `leftovers` tell the runner which prompt to continue first).
 */
export async function recoverAtStart(
  packet: Packet,
  state: StateStore,
  say: (line: string) => void,
): Promise<RecoveryPlan> {
  const plan = await gatherRecovery(packet, state);
  for (const a of plan.appends) {
    await appendProgress(state.storeRoot, a.id, a.status, a.suffix);
    say(`recovered: prompt ${a.id} marked ${a.status} in progress.log (${a.why})`);
  }
  if (plan.fixes.length > 0) {
    await state.update((doc) => {
      for (const f of plan.fixes) {
        const p = doc.prompts[f.id] ??= { status: f.status, updated_at: nowIso(), attempts: [] };
        for (const a of p.attempts) {
          if (a.status !== "running") continue;
          a.status = f.status === "completed" ? "completed" : "interrupted";
          a.completed_at ??= nowIso();
        }
        p.status = f.status;
        p.updated_at = nowIso();
        if (f.status === "completed" && p.result?.status !== "completed") {
          const last = p.attempts.at(-1);
          p.result = {
            status: "completed",
            run_id: last?.run_id ?? doc.last_run_id ?? "",
            finished_at: nowIso(),
            source: "session",
            session_ran: true,
            attempts: p.attempts.filter((a) => a.run_id === last?.run_id).length,
            commit: commitRecordOf(f.suffix),
            failure_class: null,
            reason: `recovered from progress.log (${f.why})`,
            last_verifier: last?.verification ?? null,
            steered: false,
            amended: false,
          };
        }
      }
    });
    for (const f of plan.fixes) say(`recovered: prompt ${f.id} is ${f.status} in state.json (${f.why})`);
  }
  return plan;
}

function commitRecordOf(suffix: string | null) {
  const shas = suffixShas(suffix);
  if (shas.length === 0) return { status: "skip" as const, reason: suffix ?? "no_changes" };
  return {
    status: "ok" as const,
    repos: shas.map((s) => ({ repo: s.repo ?? "default", status: "ok" as const, sha: s.sha })),
  };
}

/**
 * Whether a run with nothing selected must still take the lease and recover: the current run record says
 * `running` (its runner died), or the recovery plan would correct something.
 */
export async function recoveryPending(packet: Packet, storeRoot: string): Promise<boolean> {
  if ((await readCurrentRun(storeRoot))?.state === "running") return true;
  const plan = await gatherRecovery(packet, await StateStore.open(storeRoot));
  return plan.appends.length > 0 || plan.fixes.length > 0 || plan.leftovers !== null;
}
