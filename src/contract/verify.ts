/** The verifier: evaluate an enforced contract against the workspace into the report of docs/reference/contract.md §7. */
import {
  type AmendmentRecord,
  type Clause,
  CLAUSES,
  type Contract,
  type ReportItem,
  type VerifyContext,
  type VerifyReport,
} from "./types.ts";
import { canonicalPath, repoForScope, type RepoIndex } from "./paths.ts";
import type { ClauseEnv, EntryEvaluator } from "./clauses/_common.ts";
import { checkFileAbsent, checkFileExists } from "./clauses/files.ts";
import { checkContains, checkMatches } from "./clauses/text.ts";
import { checkDoc } from "./clauses/doc.ts";
import { checkJson, checkYaml } from "./clauses/data.ts";
import { checkGlob } from "./clauses/glob.ts";
import { checkSourceAbsent } from "./clauses/source_absent.ts";
import { checkCommand } from "./clauses/commands.ts";
import { checkChangedPathsOnly, checkReposClean } from "./clauses/git_clauses.ts";
import { sha256Digest } from "./canonical.ts";
import { GitCache } from "./git.ts";
import { nowIso } from "../util/time.ts";

const EVALUATORS: Record<Exclude<Clause, "changed_paths_only">, EntryEvaluator> = {
  files_exist: checkFileExists,
  files_absent: checkFileAbsent,
  contains: checkContains,
  matches: checkMatches,
  doc: checkDoc,
  yaml: checkYaml,
  json: checkJson,
  glob: checkGlob,
  source_absent: checkSourceAbsent,
  commands: checkCommand,
  repos_clean: checkReposClean,
};

/** A clause value as a list (a single non-list value is a one-element list; null/absent is empty). */
function clauseEntries(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Build the clause environment: canonical repo roots and default scope. A path named twice (the default scope is
 * usually a repo's root) is resolved once: both answers come from the same moment.
 */
export function clauseEnv(ctx: VerifyContext): ClauseEnv {
  const resolved = new Map<string, string>();
  const canonical = (path: string): string => {
    let real = resolved.get(path);
    if (real === undefined) resolved.set(path, real = canonicalPath(path));
    return real;
  };
  const repos: RepoIndex = {};
  for (const [name, root] of Object.entries(ctx.repos)) repos[name] = canonical(root);
  if (repos.packet === undefined) repos.packet = canonical(ctx.packetDir);
  const scope = canonical(ctx.defaultScope);
  return { ctx, repos, scope, scopeRepo: repoForScope(scope, repos), git: ctx.gitCache ?? new GitCache() };
}

/** Evaluate every item of a contract, in clause order then entry order (no report envelope). */
export async function evaluateItems(contract: Contract, ctx: VerifyContext): Promise<ReportItem[]> {
  return (await evaluateUntil(contract, ctx, false))!;
}

/**
 * The items in clause order then entry order; with `stopAtMiss`, null as soon as one item does not pass (the rest are
 * not evaluated: no command runs, no file is read for them).
 */
async function evaluateUntil(
  contract: Contract,
  ctx: VerifyContext,
  stopAtMiss: boolean,
): Promise<ReportItem[] | null> {
  const env = clauseEnv(ctx);
  const items: ReportItem[] = [];
  const missed = (from: number) => stopAtMiss && items.slice(from).some((i) => i.status !== "pass");
  for (const clause of CLAUSES) {
    if (!Object.hasOwn(contract, clause)) continue;
    const entries = clauseEntries(contract[clause]);
    if (clause === "changed_paths_only") {
      const from = items.length;
      if (entries.length) items.push(...(await checkChangedPathsOnly(entries, env)));
      if (missed(from)) return null;
      continue;
    }
    const evaluate = EVALUATORS[clause];
    for (let i = 0; i < entries.length; i++) {
      items.push(await evaluate(entries[i], env, `${clause}#${i + 1}`));
      if (missed(items.length - 1)) return null;
    }
  }
  return items;
}

/** Assemble the report envelope around evaluated items (pure apart from the digest). */
async function buildReport(
  items: ReportItem[],
  contract: Contract,
  ctx: VerifyContext,
  amendments: AmendmentRecord[],
  verifiedAt: string = nowIso(),
): Promise<VerifyReport> {
  const failures = items.filter((i) => i.status === "fail").map((i) => i.id);
  const faults = items.filter((i) => i.status === "fault").map((i) => i.id);
  const status = faults.length ? "fault" : failures.length ? "fail" : "pass";
  return {
    schema: "prompt_runner.verify_report/v1",
    prompt_id: ctx.promptId,
    run_id: ctx.runId,
    source: ctx.source,
    attempt: ctx.attempt,
    verified_at: verifiedAt,
    status,
    pass: status === "pass",
    counts: {
      items: items.length,
      passed: items.filter((i) => i.status === "pass").length,
      failed: failures.length,
      faulted: faults.length,
    },
    items,
    failures,
    faults,
    amendments,
    contract_digest: await sha256Digest(contract),
  };
}

/**
 * Verify an (already enforced) contract against the workspace. Unknown clause names are skipped; an empty contract
 * passes with zero items. `amendments` are the records folded into `contract`, listed in the report.
 */
export async function verifyContract(
  contract: Contract,
  ctx: VerifyContext,
  amendments: AmendmentRecord[],
): Promise<VerifyReport> {
  const items = await evaluateItems(contract, ctx);
  return await buildReport(items, contract, ctx, amendments);
}

/**
 * The report of {@link verifyContract} when every item passes, else null — evaluated only up to the first item that
 * does not pass (the vacuous probe, src/run/vacuous.ts: a contract that already fails before the session, the usual
 * case, costs its first missing entry, not every clause, the digest and the report).
 */
export async function verifyIfPassing(
  contract: Contract,
  ctx: VerifyContext,
  amendments: AmendmentRecord[],
): Promise<VerifyReport | null> {
  const items = await evaluateUntil(contract, ctx, true);
  return items === null ? null : await buildReport(items, contract, ctx, amendments);
}
