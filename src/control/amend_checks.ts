/**
 * Amendment refusals beyond the entry shapes of docs/reference/control-plane.md §9.2 (docs/amendments.md): an `amend` that adds an
 * entry the enforced contract already requires (`entry_already_required`), and any amendment after which the
 * contract can no longer pass (`unsatisfiable_contract`) — a file required to exist and to be absent, or a file the
 * session must create outside the `changed_paths_only` allow-list of its repo. Nothing runs: paths and git-free
 * file existence only.
 */
import { relative } from "../util/path.ts";
import { canonicalJson } from "../contract/canonical.ts";
import { type ClauseEnv, refOf } from "../contract/clauses/_common.ts";
import { pathAllowed } from "../contract/clauses/git_clauses.ts";
import { verifyContextFor } from "../contract/context.ts";
import { resolveRef } from "../contract/paths.ts";
import type { Contract } from "../contract/mod.ts";
import { clauseEnv } from "../contract/verify.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import { ControlError } from "./errors.ts";

const PATH_FORM_CLAUSES = new Set(["files_exist", "files_absent", "changed_paths_only"]);

/** A comparable key of an entry: path entries as `repo|path` (`./` and trailing `/` ignored), others as JSON. */
export function entryKey(clause: string, entry: unknown, repos: Record<string, string>): string {
  if (PATH_FORM_CLAUSES.has(clause)) {
    const ref = refOf(entry, repos);
    const plainObject = typeof entry === "string" ||
      (entry !== null && typeof entry === "object" && Object.keys(entry).every((k) => k === "path" || k === "repo"));
    if (ref && plainObject) {
      const path = ref.path.replace(/^(\.\/)+/, "").replace(/\/+$/, clause === "changed_paths_only" ? "/" : "");
      return `${ref.repo ?? ""}|${path}`;
    }
  }
  return canonicalJson(entry);
}

/** Refuse `add` entries the enforced contract already requires (or that repeat within the same amendment). */
export function refuseDuplicates(enforced: Contract, clause: string, entries: unknown[], env: ClauseEnv): void {
  const have = new Set((enforced[clause] ?? []).map((e) => entryKey(clause, e, env.repos)));
  entries.forEach((entry, index) => {
    const key = entryKey(clause, entry, env.repos);
    if (have.has(key)) {
      throw new ControlError(
        "entry_already_required",
        `entry ${index + 1}: ${clause} already requires ${JSON.stringify(entry)}; nothing would change`,
        { details: { index, clause, entry } },
      );
    }
    have.add(key);
  });
}

/** Refuse removing an entry the enforced contract does not require (`entry_not_required`): nothing would change. */
export function refuseAbsent(enforced: Contract, clause: string, entries: unknown[]): void {
  const have = (enforced[clause] ?? []).map(canonicalJson);
  entries.forEach((entry, index) => {
    const i = have.indexOf(canonicalJson(entry));
    if (i < 0) {
      throw new ControlError(
        "entry_not_required",
        `entry ${index + 1}: ${clause} does not require ${JSON.stringify(entry)}; nothing would be removed`,
        { details: { index, clause, entry } },
      );
    }
    have.splice(i, 1);
  });
}

interface Located {
  repo: string;
  rel: string;
  abs: string;
  label: string;
}

function locate(entry: unknown, env: ClauseEnv): Located | null {
  const raw = refOf(entry, env.repos);
  if (raw === null) return null;
  const ref = resolveRef(raw, env.repos, env.scope);
  if (ref.resolved_path === undefined || ref.error !== undefined) return null;
  const repo = ref.repo ?? env.scopeRepo ?? "packet";
  const root = env.repos[repo];
  if (root === undefined) return null;
  return { repo, rel: relative(root, ref.resolved_path), abs: ref.resolved_path, label: raw.path };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The reasons a contract cannot pass (empty when none is found). Reads file existence only. */
export function unsatisfiableReasons(contract: Contract, env: ClauseEnv): string[] {
  const out: string[] = [];
  const mustExist = (contract.files_exist ?? []).map((e) => locate(e, env)).filter((x): x is Located => x !== null);
  const absent = (contract.files_absent ?? []).map((e) => locate(e, env)).filter((x): x is Located => x !== null);
  for (const f of mustExist) {
    if (absent.some((a) => a.abs === f.abs)) out.push(`files_exist ${f.label} contradicts files_absent ${f.label}`);
  }
  const allowLists = new Map<string, string[]>();
  for (const e of contract.changed_paths_only ?? []) {
    const raw = refOf(e, env.repos);
    const loc = locate(e, env);
    const repo = loc?.repo ?? raw?.repo ?? env.scopeRepo ?? "packet";
    const list = allowLists.get(repo) ?? [];
    if (loc) list.push(loc.rel + (raw?.path.endsWith("/") ? "/" : ""));
    allowLists.set(repo, list);
  }
  for (const f of mustExist) {
    const allowed = allowLists.get(f.repo);
    if (allowed === undefined || exists(f.abs)) continue;
    if (!allowed.some((a) => pathAllowed(a, f.rel))) {
      out.push(
        `files_exist ${f.label} must be created, but changed_paths_only allows only ${
          allowed.length ? allowed.join(", ") : "no path"
        } in ${f.repo}`,
      );
    }
  }
  return out;
}

/** The clause environment of a prompt (repo index and default scope) for the checks above. */
export function promptEnv(packet: Packet, prompt: Prompt, storeRoot: string): ClauseEnv {
  return clauseEnv(verifyContextFor(packet, prompt, storeRoot, { runId: null, source: "manual", attempt: null }));
}

/** Refuse an amendment whose result has a reason to fail that the contract before it did not have. */
export function refuseUnsatisfiable(before: Contract, after: Contract, env: ClauseEnv): void {
  const had = new Set(unsatisfiableReasons(before, env));
  const added = unsatisfiableReasons(after, env).filter((r) => !had.has(r));
  if (added.length > 0) {
    throw new ControlError(
      "unsatisfiable_contract",
      `the amended contract could never pass: ${added.join("; ")}`,
      { details: { reasons: added } },
    );
  }
}
