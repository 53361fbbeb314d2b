/** Contract lint rules (docs/reference/contract.md §11) with the message formats of docs/reference/cli.md §3.8. Static: no git, no commands. */
import { CLAUSES, type Contract } from "./types.ts";
import type { Finding, Packet, Prompt } from "../packet/mod.ts";
import { isLegacyCommand, isRecord, pick, validateEntry } from "./entries.ts";
import { packetContract } from "./packet_contract.ts";
import { canonicalJoin, canonicalPath, isWithin, parsePathString, repoForScope } from "./paths.ts";
import { compilePattern, sourcePatterns } from "./clauses/patterns.ts";
import { globProblem, hasGlobChars, loadGlobMatcher } from "./clauses/glob_matcher.ts";
import { repoIndex } from "./context.ts";
import { closest, editDistance } from "../util/edit_distance.ts";
import { PROMPT_KEYS } from "../packet/prompt_file.ts";

const KNOWN = new Set<string>(CLAUSES);
const CONTENT_CLAUSES = ["commands", "contains", "matches", "doc"];
/** Clauses whose entries name a path: all but the two that name commands or repos. */
const PATH_CLAUSES = new Set<string>(CLAUSES.filter((c) => c !== "commands" && c !== "repos_clean"));

/** Levenshtein distance (small strings only; lives in util/edit_distance.ts). */
export { editDistance };

/** The closest clause name to a misspelling, or null when none is close. */
export function suggestClause(name: string): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of CLAUSES) {
    const d = editDistance(name, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

/**
 * Why a top-level front-matter key the loader does not know is a lost check (`stray_verify_key`), or null: `verify`
 * misspelt or in another case (`verfy`, `Verify`, `verifiy`), or a verify clause written beside `verify:` instead of
 * under it (`files_exist`, or one close to a clause name: `file_exist`). Other unknown keys stay warnings
 * (`unknown_front_matter_key`): sdk packets carry keys of their own.
 */
export function strayVerifyKey(key: string): string | null {
  if (PROMPT_KEYS.has(key)) return null;
  if (key.length >= 4 && editDistance(key.toLowerCase(), "verify") <= 2) {
    return `${key} is not a front-matter key; did you mean "verify"? As written, none of its checks run`;
  }
  const lower = key.toLowerCase();
  const clause = CLAUSES.find((c) => c === lower) ??
    // Fuzzy only for longer names: short sdk keys (`docs`, `jsons`) are too close to `doc`, `json` to mean them.
    (key.length >= 6 ? closest(key, CLAUSES.filter((c) => c.length >= 6)) : null);
  if (clause === null) return null;
  return clause === key
    ? `${key} is a verify clause; it belongs under verify: (at the top level it checks nothing)`
    : `${key} looks like the verify clause "${clause}"; it belongs under verify: (at the top level it checks nothing)`;
}

/** The repo an entry names explicitly (for `unknown_verify_repo`), or null. */
function namedRepo(clause: string, entry: unknown, repoNames: Set<string>): string | null {
  if (clause === "repos_clean" && typeof entry === "string") return entry;
  if (isRecord(entry) && typeof entry.repo === "string") return entry.repo;
  if (typeof entry === "string" && PATH_CLAUSES.has(clause)) {
    const colon = entry.indexOf(":");
    // `name:rel` only names a repo when `name` is a key; otherwise the string is an ordinary path.
    if (colon > 0 && repoNames.has(entry.slice(0, colon))) return entry.slice(0, colon);
  }
  return null;
}

function regexProblems(clause: string, entry: unknown): { what: string; source: string; error: string }[] {
  const out: { what: string; source: string; error: string }[] = [];
  const check = (what: string, source: string, flags: string) => {
    const r = compilePattern(source, flags);
    if (typeof r === "string") out.push({ what, source, error: r });
  };
  if (clause === "matches" && isRecord(entry)) check("pattern", String(pick(entry, "pattern", "matches")), "u");
  if (clause === "source_absent") { for (const p of sourcePatterns(entry)) check("pattern", p, "u"); }
  if (clause === "commands" && isRecord(entry) && typeof entry.stdout_matches === "string") {
    check("stdout_matches", entry.stdout_matches, "iu");
  }
  return out;
}

function countItems(contract: Contract): number {
  let n = 0;
  for (const c of CLAUSES) n += (contract[c] ?? []).length;
  return n;
}

/**
 * `canonicalPath` remembered per path: a packet's prompts share their working directory and repos, so `packet lint`
 * resolves each once instead of once per prompt. An entry (it differs per prompt) costs its own realpath; when it is
 * missing, its directory is resolved through the same memory, so prompts writing into one directory resolve it once.
 */
export function rememberedCanonicalPath(): (path: string) => string {
  const known = new Map<string, string>();
  const canonical = (path: string): string => {
    let real = known.get(path);
    if (real === undefined) known.set(path, real = canonicalPath(path, canonical));
    return real;
  };
  return canonical;
}

/**
 * Every contract lint finding of one prompt (errors and warnings of docs/reference/contract.md §11). `canonical`
 * resolves the prompt's working directory and the packet's repos (see {@link rememberedCanonicalPath}).
 */
export async function lintContract(
  prompt: Prompt,
  packet: Packet,
  canonical: (path: string) => string = canonicalPath,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const add = (kind: string, severity: Finding["severity"], key: string | null, message: string) =>
    findings.push({ kind, severity, prompt_id: prompt.id, file: prompt.relFile, key, message });
  const repos = repoIndex(packet);
  const repoNames = new Set(Object.keys(repos));
  const scope = canonical(prompt.cwd);
  const canonRepos: Record<string, string> = {};
  for (const [k, v] of Object.entries(repos)) canonRepos[k] = canonical(v);
  const scopeRepo = repoForScope(scope, canonRepos);
  const verify: Record<string, unknown> = isRecord(prompt.verify) ? prompt.verify : {};
  // Only these clauses hold globs; the matcher is loaded for them alone.
  const matcher = "glob" in verify || "changed_paths_only" in verify ? await loadGlobMatcher() : null;

  const emptyClauses: string[] = [];
  for (const [clause, value] of Object.entries(verify)) {
    if (!KNOWN.has(clause)) {
      const hint = suggestClause(clause);
      add(
        "unknown_verify_clause",
        "error",
        `verify.${clause}`,
        hint
          ? `"${clause}" is not a verify clause; did you mean "${hint}"?`
          : `"${clause}" is not a verify clause; expected one of: ${CLAUSES.join(", ")}`,
      );
      continue;
    }
    const entries = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
    if (entries.length === 0) emptyClauses.push(clause);
    entries.forEach((entry, i) => {
      const at = `${clause}[${i + 1}]`;
      const key = `verify.${at}`;
      const problem = validateEntry(clause, entry);
      if (problem === "source_absent requires at least one pattern") {
        add(
          "source_absent_without_patterns",
          "error",
          key,
          `${at} has no patterns; source_absent requires at least one`,
        );
        return;
      }
      if (problem !== null) {
        add("invalid_verify_entry", "error", key, `${at}: ${problem}`);
        return;
      }
      const repo = namedRepo(clause, entry, repoNames);
      if (repo !== null && !repoNames.has(repo)) {
        add(
          "unknown_verify_repo",
          "error",
          key,
          `${at} names unknown repo "${repo}"; known: ${[...repoNames].sort().join(", ")}`,
        );
        return;
      }
      for (const r of regexProblems(clause, entry)) {
        add("invalid_regex", "error", key, `${at} ${r.what} /${r.source}/ is invalid: ${r.error}`);
      }
      const pathStr = PATH_CLAUSES.has(clause)
        ? typeof entry === "string" ? parsePathString(entry, repos).path : isRecord(entry) ? String(entry.path) : null
        : null;
      const isGlob = clause === "glob" ||
        (clause === "changed_paths_only" && pathStr !== null && hasGlobChars(pathStr));
      if (isGlob && pathStr !== null && matcher !== null) {
        const g = globProblem(pathStr, matcher);
        if (g !== null) add("invalid_glob", "error", key, `${at} glob "${pathStr}" is invalid: ${g}`);
      }
      if (clause === "contains") {
        const text = isRecord(entry) ? pick(entry, "text", "contains") : "";
        if (text === "") {
          add("contains_without_text", "warning", key, `${at} has no text; it passes whenever the file is readable`);
        }
      }
      if (clause === "commands") {
        if (isLegacyCommand(entry)) {
          add("legacy_shell_command", "warning", key, `${at} is a shell string run with bash -c; prefer {exec, args}`);
        } else if (isRecord(entry) && entry.timeout_ms === undefined) {
          add("verify_command_without_timeout", "warning", key, `${at} relies on the 10-minute default timeout`);
        }
      }
      if (pathStr !== null && !isGlob) {
        const explicit = repo !== null ? canonRepos[repo] : undefined;
        const base = explicit ?? scope;
        const root = explicit ?? (scopeRepo !== null ? canonRepos[scopeRepo]! : scope);
        const rel = pathStr.replace(/\/+$/, "") || ".";
        if (!isWithin(root, canonicalJoin(base, rel, canonical))) {
          add(
            "verify_path_escapes_repo",
            "warning",
            key,
            `${at} path "${pathStr}" resolves outside its repo root ${root}`,
          );
        }
      }
    });
  }

  for (const key of Object.keys(prompt.frontMatter)) {
    const stray = strayVerifyKey(key);
    if (stray !== null) add("stray_verify_key", "error", key, stray);
  }

  const contract = packetContract(prompt);
  const items = countItems(contract);
  if (items === 0 && Object.hasOwn(prompt.frontMatter, "verify")) {
    // A written `verify:` that checks nothing (`{}`, only empty lists, only unknown clauses) is a mistake, not a
    // choice: `run` refuses it (docs/lint.md) instead of completing on a verdict that checked nothing.
    add(
      "contract_without_items",
      "error",
      "verify",
      "verify: has no evaluable item (empty, only empty lists, or only unknown clauses); nothing would be checked",
    );
  } else if (items === 0) {
    add("prompt_without_verify", "warning", "verify", "prompt has no verification items; nothing checks its work");
  }
  if (items > 0 && !CONTENT_CLAUSES.some((c) => (contract[c] ?? []).length > 0)) {
    add(
      "contract_without_commands",
      "warning",
      "verify",
      "contract checks only presence and git state; add commands, contains, matches or doc to check content",
    );
  }
  // Beside clauses that check something, an empty clause checks nothing (a contract of empty clauses only is
  // contract_without_items above); `changed_paths_only: []` reads as "nothing may change" but allows anything.
  for (const clause of items > 0 ? emptyClauses : []) {
    const meant = clause === "changed_paths_only"
      ? '; it does not mean "nothing may change" (for that, use repos_clean)'
      : "";
    add(
      "empty_verify_clause",
      "warning",
      `verify.${clause}`,
      `verify.${clause} has no entries, so it checks nothing${meant}; write its entries or remove it`,
    );
  }
  if ((contract.changed_paths_only ?? []).length > 0 && (contract.repos_clean ?? []).length > 0) {
    add(
      "changed_paths_only_vacuous",
      "warning",
      "verify.changed_paths_only",
      "changed_paths_only passes vacuously when the session commits its own work, which repos_clean requires",
    );
  }
  return findings;
}
