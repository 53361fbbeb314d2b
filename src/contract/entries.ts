/**
 * Entry shape checks (docs/reference/contract.md §3) shared by `packet lint` and the amend API (docs/reference/control-plane.md §9.2), plus the
 * path-escape test used for amendments and the `verify_path_escapes_repo` lint.
 */
import { isAbsolute, join } from "../util/path.ts";
import { canonicalJoin, canonicalPath, isWithin } from "./paths.ts";
import { isRecord } from "../util/is_record.ts";
import { closest } from "../util/edit_distance.ts";

export { isRecord };

/**
 * Substitute `@repo:NAME` and `@repo:NAME/rel` (unknown names stay verbatim). Here, not with the `commands` clause,
 * so `plan` reads the `--allow-run` list without loading the command runner.
 */
export function substituteRepo(value: string, repos: Record<string, string>): string {
  const m = /^@repo:([^/]+)(?:\/(.*))?$/.exec(value);
  if (!m) return value;
  const root = repos[m[1]!];
  if (root === undefined) return value;
  return m[2] !== undefined && m[2] !== "" ? join(root, m[2]) : root;
}

/** The first defined value among `keys` of an object (primary key first, then aliases). */
export function pick(obj: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined) return obj[k];
  return undefined;
}

const isStr = (v: unknown): v is string => typeof v === "string";
const isNonEmptyStr = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";
const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const isPosInt = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v > 0;
const isNonNegInt = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isScalar = (v: unknown): boolean => ["string", "number", "boolean"].includes(typeof v);

function pathEntry(clause: string, entry: unknown, allowString: boolean): string | null {
  if (typeof entry === "string") {
    if (!allowString) return `${clause} entries must be maps with "path"; got a string`;
    return entry.trim() === "" ? `${clause} path must not be empty` : null;
  }
  if (!isRecord(entry)) return `${clause} entries must be ${allowString ? "a path string or " : ""}a map with "path"`;
  if (entry.repo !== undefined && !isNonEmptyStr(entry.repo)) return `${clause} "repo" must be a repo name string`;
  if (!isNonEmptyStr(entry.path)) return `${clause} entry is missing "path" (a non-empty string)`;
  return null;
}

function optional(
  entry: Record<string, unknown>,
  clause: string,
  key: string,
  ok: (v: unknown) => boolean,
  expected: string,
): string | null {
  const v = entry[key];
  return v === undefined || ok(v) ? null : `${clause} "${key}" must be ${expected}`;
}

function firstProblem(...checks: (string | null)[]): string | null {
  for (const c of checks) if (c !== null) return c;
  return null;
}

/** Whether a `commands` entry uses the legacy shell form (a string, or a map with `run`/`command` and no `exec`). */
export function isLegacyCommand(entry: unknown): boolean {
  if (typeof entry === "string") return true;
  return isRecord(entry) && pick(entry, "exec", "program") === undefined &&
    pick(entry, "run", "command") !== undefined;
}

function commandProblem(entry: unknown): string | null {
  if (typeof entry === "string") return entry.trim() === "" ? "commands entry must not be an empty string" : null;
  if (!isRecord(entry)) return 'commands entries must be a command string or a map with "exec"';
  if (entry.repo !== undefined && !isNonEmptyStr(entry.repo)) return `commands "repo" must be a repo name string`;
  const c = "commands";
  const common = firstProblem(
    optional(entry, c, "cwd", isStr, "a string"),
    optional(entry, c, "timeout_ms", isPosInt, "a positive integer (milliseconds)"),
    optional(
      entry,
      c,
      "fault_exit_codes",
      (v) => Array.isArray(v) && v.every((n) => Number.isInteger(n)),
      "a list of integers",
    ),
  );
  if (common) return common;
  if (isLegacyCommand(entry)) {
    const s = pick(entry, "run", "command");
    return isNonEmptyStr(s) ? null : `commands "run" must be a non-empty command string`;
  }
  const exec = pick(entry, "exec", "program");
  if (!isNonEmptyStr(exec)) return `commands entry is missing "exec" (a non-empty string)`;
  const args = pick(entry, "args", "argv");
  if (args !== undefined && !(Array.isArray(args) && args.every(isScalar))) {
    return `commands "args" must be a list of strings`;
  }
  const env = entry.env;
  if (env !== undefined && !(isRecord(env) && Object.values(env).every(isScalar))) {
    return `commands "env" must be a map of strings`;
  }
  return firstProblem(
    optional(entry, c, "stdout_contains", isStr, "a string"),
    optional(entry, c, "stdout_matches", isStr, "a string (regular expression)"),
    optional(entry, c, "regenerates", isStrList, "a list of paths"),
  );
}

function jsonProblem(entry: Record<string, unknown>): string | null {
  const c = "json";
  const air = entry.array_items_require;
  if (air !== undefined && !(isRecord(air) && Object.values(air).every(isStrList))) {
    return `json "array_items_require" must be a map of path → list of keys`;
  }
  const anm = entry.array_none_match;
  if (
    anm !== undefined &&
    !(Array.isArray(anm) && anm.every((m) => isRecord(m) && isNonEmptyStr(m.path) && isNonEmptyStr(m.field)))
  ) {
    return `json "array_none_match" must be a list of {path, field, equals}`;
  }
  return firstProblem(
    optional(entry, c, "root", (v) => v === "map" || v === "list", `"map" or "list"`),
    optional(entry, c, "required_paths", isStrList, "a list of dot paths"),
    optional(entry, c, "non_empty_paths", isStrList, "a list of dot paths"),
  );
}

/** The keys each clause's evaluator reads from a map entry (aliases included); any other key is a typo. */
const ENTRY_KEYS: Readonly<Record<string, readonly string[]>> = {
  files_exist: ["path", "repo"],
  files_absent: ["path", "repo"],
  changed_paths_only: ["path", "repo"],
  contains: ["path", "repo", "text", "contains"],
  matches: ["path", "repo", "pattern", "matches"],
  doc: ["path", "repo", "min_lines", "requires_sections", "forbids_markers"],
  yaml: ["path", "repo", "root"],
  json: ["path", "repo", "root", "required_paths", "non_empty_paths", "array_items_require", "array_none_match"],
  glob: ["path", "repo", "min_matches", "max_matches", "non_empty"],
  source_absent: ["path", "repo", "patterns", "pattern", "extensions", "prune"],
  commands: [
    "repo",
    "exec",
    "program",
    "args",
    "argv",
    "run",
    "command",
    "cwd",
    "env",
    "timeout_ms",
    "fault_exit_codes",
    "stdout_contains",
    "stdout_matches",
    "regenerates",
  ],
  repos_clean: ["repo", "pushed", "network", "remote_timeout_ms", "fetch_timeout_ms"],
};

/** An unknown key of a map entry: the verifier would ignore it, so the check it stands for would silently not happen. */
function unknownKeyProblem(clause: string, entry: unknown): string | null {
  const known = ENTRY_KEYS[clause];
  if (known === undefined || !isRecord(entry)) return null;
  const extra = Object.keys(entry).filter((k) => !known.includes(k));
  if (extra.length === 0) return null;
  const guesses = extra.map((k) => closest(k, known)).filter((g): g is string => g !== null);
  const hint = guesses.length ? ` (did you mean ${guesses.map((g) => `"${g}"`).join(", ")}?)` : "";
  return `${clause} entry has unknown key${extra.length > 1 ? "s" : ""} ${
    extra.map((k) => `"${k}"`).join(", ")
  }${hint}; expected: ${known.join(", ")}`;
}

/**
 * Check one entry against its clause's shape (docs/reference/contract.md §3). Returns the problem as a sentence, or null when the
 * entry is well formed. Unknown clauses are reported too.
 */
export function validateEntry(clause: string, entry: unknown): string | null {
  return validateEntryShape(clause, entry) ?? unknownKeyProblem(clause, entry);
}

function validateEntryShape(clause: string, entry: unknown): string | null {
  switch (clause) {
    case "files_exist":
    case "files_absent":
    case "changed_paths_only":
      return pathEntry(clause, entry, true);
    case "contains": {
      const p = pathEntry(clause, entry, true);
      if (p || typeof entry === "string" || !isRecord(entry)) return p;
      return isStr(pick(entry, "text", "contains")) ? null : `contains entry is missing "text" (a string)`;
    }
    case "matches": {
      const p = pathEntry(clause, entry, false);
      if (p || !isRecord(entry)) return p;
      return isNonEmptyStr(pick(entry, "pattern", "matches")) ? null : `matches entry is missing "pattern" (a string)`;
    }
    case "doc": {
      const p = pathEntry(clause, entry, true);
      if (p || !isRecord(entry)) return p;
      return firstProblem(
        optional(entry, clause, "min_lines", isNonNegInt, "a non-negative integer"),
        optional(entry, clause, "requires_sections", isStrList, "a list of strings"),
        optional(entry, clause, "forbids_markers", isStrList, "a list of strings"),
      );
    }
    case "yaml": {
      const p = pathEntry(clause, entry, true);
      if (p || !isRecord(entry)) return p;
      return optional(
        entry,
        clause,
        "root",
        (v) => v === "map" || v === "list" || v === "scalar",
        `"map", "list" or "scalar"`,
      );
    }
    case "json": {
      const p = pathEntry(clause, entry, true);
      if (p || !isRecord(entry)) return p;
      return jsonProblem(entry);
    }
    case "glob": {
      const p = pathEntry(clause, entry, true);
      if (p || !isRecord(entry)) return p;
      return firstProblem(
        optional(entry, clause, "min_matches", isNonNegInt, "a non-negative integer"),
        optional(entry, clause, "max_matches", isNonNegInt, "a non-negative integer"),
        optional(entry, clause, "non_empty", (v) => typeof v === "boolean", "true or false"),
      );
    }
    case "source_absent": {
      const p = pathEntry(clause, entry, true);
      if (p) return p;
      if (!isRecord(entry)) return "source_absent requires at least one pattern";
      const pats = pick(entry, "patterns", "pattern");
      if (pats === undefined || (Array.isArray(pats) && pats.length === 0)) {
        return "source_absent requires at least one pattern";
      }
      if (!isStr(pats) && !isStrList(pats)) return `source_absent "patterns" must be a list of strings`;
      return firstProblem(
        optional(entry, clause, "extensions", isStrList, 'a list of extensions such as ".ts"'),
        optional(entry, clause, "prune", isStrList, "a list of directory names"),
      );
    }
    case "commands":
      return commandProblem(entry);
    case "repos_clean": {
      if (typeof entry === "string") return entry.trim() === "" ? "repos_clean repo name must not be empty" : null;
      if (!isRecord(entry)) return "repos_clean entries must be a repo name or a map";
      return firstProblem(
        optional(entry, clause, "repo", isNonEmptyStr, "a repo name string"),
        optional(entry, clause, "pushed", (v) => typeof v === "boolean", "true or false"),
        optional(entry, clause, "network", (v) => typeof v === "boolean", "true or false"),
        optional(entry, clause, "remote_timeout_ms", isPosInt, "a positive integer (milliseconds)"),
        optional(entry, clause, "fetch_timeout_ms", isPosInt, "a positive integer (milliseconds)"),
      );
    }
    default:
      return `"${clause}" is not a verify clause`;
  }
}

/** Whether a relative path has a `..` segment or is absolute (the lexical half of {@link pathEscapes}). */
function pathEscapesLexically(rel: string): boolean {
  return isAbsolute(rel) || rel.split(/[\\/]+/).includes("..");
}

/**
 * Whether `rel` escapes `repoRoot`: absolute, containing a `..` segment, or resolving outside the root through
 * existing symlinked parents. Synchronous twin for lint, which must stay synchronous.
 */
function pathEscapesSync(repoRoot: string, rel: string): boolean {
  if (pathEscapesLexically(rel)) return true;
  return !isWithin(canonicalPath(repoRoot), canonicalJoin(repoRoot, rel));
}

/** Whether `rel` escapes `repoRoot` (docs/reference/control-plane.md §9.2 `path_escapes_repo`). */
export function pathEscapes(repoRoot: string, rel: string): Promise<boolean> {
  return Promise.resolve(pathEscapesSync(repoRoot, rel));
}
