/**
 * The git state that decides what `git status` shows (docs/reference/contract.md §5.1): a session that changes it can
 * hide its work from `changed_paths_only`, `repos_clean` and the commit, which all read `git status`. Its parts:
 *
 * - index entries flagged skip-worktree or assume-unchanged (`git ls-files -v`: `S`/`s`, or a lowercase tag) — git
 *   no longer looks at such a file in the work tree;
 * - the exclude and attribute sources outside the tree: `info/exclude` and `info/attributes` of the repo's common git
 *   dir (shared by its worktrees), and the effective `core.excludesFile` and `core.attributesFile` (their XDG
 *   defaults when unset), each by path and content;
 * - the git config keys that change what status reports (`core.excludesFile`, `core.fsmonitor`, `core.worktree`,
 *   `submodule.<name>.ignore`, `filter.<driver>.clean`, …);
 * - `.gitignore` files that are themselves ignored (one that ignores itself, e.g. `*`, hides every new file beside
 *   it), found by the status read run with `--ignored=matching`, and the user's own uncommitted `.gitignore` files
 *   (kept out of every clause as pre-existing), each by content.
 *
 * A prompt's baseline records this state of each repo its git clauses judge; those clauses compare it with the state
 * at verification. Flags and sources already there at the start (a sparse checkout flags thousands of entries) are
 * the user's and never count: only what changed during the prompt does. Two git queries per repo (`ls-files -v`,
 * `config --get-regexp`); the rest is read from the files directly. A prompt whose contract has neither clause reads
 * none of it.
 */
import { join, normalize, relative, resolve } from "../util/path.ts";
import { readCapped } from "../util/fs.ts";
import { GitCache } from "./git.ts";
import { sha256 } from "./sha256.ts";

/** Flagged entries kept by name in a baseline; past this many only their count and digest are kept. */
export const FLAG_LIST_MAX = 200;

/** Ignore files kept by name in a baseline (ignored `.gitignore` files are few; a tree of thousands is not kept whole). */
export const IGNORE_FILES_MAX = 500;

/** Bytes of a source's text kept, so that a change can be told line by line; a larger one is kept as its digest. */
const SOURCE_TEXT_MAX = 8 * 1024;

/**
 * The config keys that change what `git status` reports (lowercase, as `git config --get-regexp` prints them):
 * which files are ignored or how attributes filter content, where the work tree is, which entries are sparse, who
 * answers "what changed" (fsmonitor), how stat data and modes count, and which submodule changes are shown.
 */
export const HIDING_CONFIG_KEYS =
  "^(core\\.(excludesfile|attributesfile|fsmonitor|worktree|sparsecheckout|sparsecheckoutcone|ignorecase|filemode|" +
  "trustctime|checkstat|symlinks)|diff\\.ignoresubmodules|submodule\\..*\\.ignore|filter\\..*\\.(clean|process))$";

/** The flagged index entries of a repo. */
export interface HidingFlags {
  /** Entries flagged skip-worktree or assume-unchanged. */
  count: number;
  /** SHA-256 of the sorted `<tag> <path>\0` lines. */
  digest: string;
  /** The first {@link FLAG_LIST_MAX} flagged paths, sorted: all of them when `paths.length === count`. */
  paths: string[];
}

/** One exclude or attribute source outside the tree. */
export interface HidingSource {
  /** `info/exclude`, `info/attributes`, `core.excludesFile` or `core.attributesFile`. */
  kind: string;
  /** Its absolute path; null when it has none (a key set to an empty value). */
  path: string | null;
  /** SHA-256 of its bytes; null when absent, `unreadable: <reason>` when it cannot be read. */
  digest: string | null;
  /** Its text when at most 8 KiB (a change is then named by its lines). */
  text?: string;
}

/** The hiding state of one repo (see the module comment). */
export interface HidingState {
  flags: HidingFlags;
  sources: HidingSource[];
  /** Config key → its values, for the keys of {@link HIDING_CONFIG_KEYS} that are set. */
  config: Record<string, string[]>;
  /** Watched ignore files (repo-relative) → SHA-256 of their content, null when absent, `unreadable: …`. */
  ignoreFiles: Record<string, string | null>;
  /**
   * Set when this is not the state at the prompt's start but the last state no failed prompt had changed: prompt
   * `prompt` failed in run `run_id` and left what git status hides changed (src/run/hiding_left.ts), so every later
   * baseline of the repo is this one until the change is undone.
   */
  left_by?: HidingLeftBy;
  /**
   * Set when this is the repo's state at the start of run `since_run`, taken instead of the state at the prompt's start
   * because the two differ: something before the prompt in this run (an earlier prompt's session, a change by hand)
   * changed what git status hides (src/run/hiding_run.ts).
   */
  since_run?: string;
}

/** The failed prompt whose hiding change a baseline does not take as the user's (see {@link HidingState.left_by}). */
export interface HidingLeftBy {
  prompt: string;
  run_id: string;
}

/** The part of the state read before the status read's ignored files are known. */
export type HidingCore = Omit<HidingState, "ignoreFiles">;

/**
 * A read of the hiding state: the state (`flagged`: every flagged path, of which the state keeps the first; `top`: the
 * work tree top), or why git could not give it.
 */
export type HidingRead = { ok: true; core: HidingCore; flagged: string[]; top: string } | { ok: false; error: string };

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const enc = new TextEncoder();
const dec = new TextDecoder();

/** The git queries of a hiding read (after `-C <root>`), in the order they are sent. */
export const HIDING_QUERIES: readonly (readonly string[])[] = [
  ["ls-files", "-v", "-z"],
  ["config", "-z", "--get-regexp", HIDING_CONFIG_KEYS],
];

/** Whether an `ls-files -v` tag flags its entry: lowercase is assume-unchanged, `S` (or `s`) skip-worktree. */
const flagging = (tag: string) => tag === "S" || (tag === tag.toLowerCase() && tag !== tag.toUpperCase());

/** Parse `git ls-files -v -z` into the flagged entries and every flagged path, sorted (pure). */
export function parseFlags(out: string): { flags: HidingFlags; all: string[] } {
  const lines: string[] = [];
  const paths: string[] = [];
  for (const f of out.split("\0")) {
    if (f.length < 3 || f[1] !== " " || !flagging(f[0]!)) continue;
    lines.push(`${f[0]} ${f.slice(2)}`);
    paths.push(f.slice(2));
  }
  lines.sort();
  paths.sort();
  const flags = {
    count: paths.length,
    digest: hex(sha256(enc.encode(lines.join("\0")))),
    paths: paths.slice(0, FLAG_LIST_MAX),
  };
  return { flags, all: paths };
}

/** Parse `git config -z --get-regexp` output (`key\nvalue\0`, or `key\0` for a key without a value) (pure). */
export function parseConfig(out: string): Record<string, string[]> {
  const config: Record<string, string[]> = {};
  for (const rec of out.split("\0")) {
    if (rec === "") continue;
    const nl = rec.indexOf("\n");
    const key = nl < 0 ? rec : rec.slice(0, nl);
    (config[key] ??= []).push(nl < 0 ? "" : rec.slice(nl + 1));
  }
  return config;
}

/** The work tree top and the common git dir of `root`, read from `.git` and `commondir` as git finds them. */
function gitDirsOf(root: string): { top: string; common: string } | null {
  const env = (k: string) => {
    try {
      return Deno.env.get(k);
    } catch {
      return undefined;
    }
  };
  // Set by the caller's environment, git would use them: let git answer instead.
  if (env("GIT_DIR") || env("GIT_COMMON_DIR")) return null;
  for (let dir = root;;) {
    const dotGit = join(dir, ".git");
    let st: Deno.FileInfo | null = null;
    try {
      st = Deno.statSync(dotGit);
    } catch { /* not here */ }
    if (st?.isDirectory) return { top: dir, common: commonOf(dotGit) };
    if (st?.isFile) {
      let text: string;
      try {
        text = Deno.readTextFileSync(dotGit);
      } catch {
        return null;
      }
      const m = /^gitdir: (.*)$/m.exec(text);
      if (!m) return null;
      return { top: dir, common: commonOf(resolve(dir, m[1]!.trim())) };
    }
    const up = normalize(join(dir, ".."));
    if (up === dir) return null;
    dir = up;
  }
}

/** A git dir's common dir: its `commondir` file (a linked worktree's), else itself. */
function commonOf(gitDir: string): string {
  try {
    return resolve(gitDir, Deno.readTextFileSync(join(gitDir, "commondir")).trim());
  } catch {
    return gitDir;
  }
}

/** The top and common dir from git itself (the fallback of {@link gitDirsOf}). */
async function gitDirsFromGit(root: string, cache: GitCache): Promise<{ top: string; common: string } | null> {
  const r = await cache.run(root, ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"]);
  const [top, common] = r.stdout.split("\n");
  return r.ok && top && common ? { top, common } : null;
}

/** A user-level default of git (`$XDG_CONFIG_HOME/git/<name>`, else `$HOME/.config/git/<name>`), or null. */
function xdgDefault(name: string): string | null {
  try {
    const xdg = Deno.env.get("XDG_CONFIG_HOME");
    if (xdg) return join(xdg, "git", name);
    const home = Deno.env.get("HOME");
    return home ? join(home, ".config", "git", name) : null;
  } catch {
    return null;
  }
}

/** A path-valued config value as git reads it: `~/` is the home dir, a relative path is taken from the top. */
function configPath(value: string, top: string): string | null {
  if (value === "") return null;
  if (value === "~" || value.startsWith("~/")) {
    try {
      const home = Deno.env.get("HOME");
      if (home) return join(home, value.slice(1));
    } catch { /* no home: as written */ }
  }
  return resolve(top, value);
}

/** The largest source or ignore file read (a larger one is a state of its own: `unreadable: too large`). */
const READ_MAX = 16 * 1024 * 1024;

/**
 * The bytes of a regular file: null when absent, else the reason it cannot be read. Only a regular file is opened (a
 * FIFO a session left in its place would block the read for good).
 */
async function readRegular(path: string): Promise<Uint8Array | string | null> {
  try {
    const st = Deno.statSync(path);
    if (!st.isFile) return "unreadable: not a regular file";
    const bytes = st.size > READ_MAX ? null : await readCapped(path, READ_MAX, st.size);
    return bytes ?? "unreadable: too large";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    return `unreadable: ${e instanceof Error ? e.name : String(e)}`;
  }
}

async function readSource(kind: string, path: string | null): Promise<HidingSource> {
  if (path === null) return { kind, path, digest: null };
  const r = await readRegular(path);
  if (!(r instanceof Uint8Array)) return { kind, path, digest: r };
  const out: HidingSource = { kind, path, digest: hex(sha256(r)) };
  if (r.length <= SOURCE_TEXT_MAX) out.text = dec.decode(r);
  return out;
}

/**
 * Read the flags, sources and config of `root` (the ignore files come from the status read: {@link ignoreFiles}).
 * Two git queries through `cache`; an error when git cannot answer (no repo: the clause says so itself).
 */
export async function readHidingCore(root: string, cache: GitCache = new GitCache()): Promise<HidingRead> {
  const [ls, cfg] = HIDING_QUERIES.map((q) => cache.run(root, [...q]));
  const dirs = gitDirsOf(root) ?? await gitDirsFromGit(root, cache);
  const lsr = await ls!;
  if (!lsr.ok) return { ok: false, error: `git ls-files failed: ${lsr.stderr.trim() || `exit ${lsr.code}`}` };
  const cr = await cfg!;
  // Exit 1: none of the keys is set.
  if (!cr.ok && cr.code !== 1) {
    return { ok: false, error: `git config failed: ${cr.stderr.trim() || `exit ${cr.code}`}` };
  }
  if (dirs === null) return { ok: false, error: "the repo's git dir could not be found" };
  const config = cr.ok ? parseConfig(cr.stdout) : {};
  const setting = (key: string, name: string) => {
    const v = config[key]?.at(-1);
    return v === undefined ? xdgDefault(name) : configPath(v, dirs.top);
  };
  const sources = await Promise.all([
    readSource("info/exclude", join(dirs.common, "info", "exclude")),
    readSource("core.excludesFile", setting("core.excludesfile", "ignore")),
    readSource("info/attributes", join(dirs.common, "info", "attributes")),
    readSource("core.attributesFile", setting("core.attributesfile", "attributes")),
  ]);
  const { flags, all } = parseFlags(lsr.stdout);
  return { ok: true, core: { flags, sources, config }, flagged: all, top: dirs.top };
}

/** Whether a repo-relative path names a `.gitignore` file. */
export function isIgnoreFile(path: string): boolean {
  return path === ".gitignore" || path.endsWith("/.gitignore");
}

/** The content digests of the watched ignore files of `root` (repo-relative paths; at most {@link IGNORE_FILES_MAX}). */
export async function ignoreFiles(root: string, paths: Iterable<string>): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  const sorted = [...new Set(paths)].sort().slice(0, IGNORE_FILES_MAX);
  await Promise.all(sorted.map(async (p) => {
    const r = await readRegular(join(root, p));
    out[p] = r instanceof Uint8Array ? hex(sha256(r)) : r;
  }));
  return Object.fromEntries(sorted.map((p) => [p, out[p] ?? null]));
}

/** At most `max` items, then `and <n> more`. */
function some(items: string[], max: number): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown}, and ${items.length - max} more` : shown;
}

/** The lines of `a` not in `b`, quoted. */
function linesOnlyIn(a: string, b: string): string[] {
  const other = new Set(b.split("\n"));
  return [...new Set(a.split("\n"))].filter((l) => l.trim() !== "" && !other.has(l)).map((l) => JSON.stringify(l));
}

function sourceName(s: HidingSource, top: string): string {
  const where = s.path === null ? "(no path)" : s.path.startsWith(top + "/") ? relative(top, s.path) : s.path;
  return s.kind.startsWith("info/") ? where : `${s.kind} ${where}`;
}

function sourceChange(before: HidingSource, now: HidingSource, top: string): string | null {
  if (before.path === now.path && before.digest === now.digest) return null;
  const name = sourceName(now, top);
  if (before.path !== now.path) {
    return `${now.kind} now points at ${now.path ?? "nothing"} (was ${before.path ?? "unset"})`;
  }
  if (now.digest === null) return `${name} was removed`;
  const verb = before.digest === null ? "was created" : "changed";
  if (now.text === undefined || (before.digest !== null && before.text === undefined)) {
    return `${name} ${verb} (content differs)`;
  }
  const added = linesOnlyIn(now.text, before.text ?? "");
  const removed = linesOnlyIn(before.text ?? "", now.text);
  const parts = [
    ...(added.length ? [`added ${some(added, 5)}`] : []),
    ...(removed.length ? [`removed ${some(removed, 5)}`] : []),
  ];
  return `${name} ${verb}${parts.length ? ` (${parts.join("; ")})` : ""}`;
}

/** The flagged paths of `now` not flagged in `before`, when `before` names all of its own (else null: unknown). */
function gainedFlags(before: HidingFlags, now: string[]): { gained: string[]; exact: boolean } {
  const known = new Set(before.paths);
  if (before.paths.length === before.count) return { gained: now.filter((p) => !known.has(p)), exact: true };
  // Only the first paths of a large set were kept: a path that sorts before the last of them and is not among them
  // was surely not flagged; past it nothing can be told.
  const last = before.paths.at(-1) ?? "";
  return { gained: now.filter((p) => p <= last && !known.has(p)), exact: false };
}

/**
 * What changed from `before` (a prompt's baseline) to `now` that can hide work from `git status`, one phrase each
 * (pure). Flags cleared and ignore files removed are not listed: they show more, never less. `nowFlagged`: every path
 * flagged now (the baseline keeps only the first {@link FLAG_LIST_MAX}); `top`: the work tree top, to name sources.
 */
export function hidingChanges(before: HidingState, now: HidingState, nowFlagged: string[], top: string): string[] {
  const out: string[] = [];
  if (before.flags.digest !== now.flags.digest) {
    const { gained, exact } = gainedFlags(before.flags, nowFlagged);
    if (gained.length) {
      out.push(`skip-worktree/assume-unchanged set on ${some(gained, 10)} (git no longer reports changes to them)`);
    }
    if (!exact) {
      out.push(
        `the skip-worktree/assume-unchanged flags changed (${before.flags.count} flagged entries at the prompt's ` +
          `start, ${now.flags.count} now; too many at the start to tell each)`,
      );
    }
  }
  const kinds = new Set([...before.sources, ...now.sources].map((s) => s.kind));
  for (const kind of kinds) {
    const b = before.sources.find((s) => s.kind === kind) ?? { kind, path: null, digest: null };
    const n = now.sources.find((s) => s.kind === kind) ?? { kind, path: null, digest: null };
    const c = sourceChange(b, n, top);
    if (c !== null) out.push(c);
  }
  const keys = [...new Set([...Object.keys(before.config), ...Object.keys(now.config)])].sort();
  for (const key of keys) {
    const b = before.config[key] ?? [];
    const n = now.config[key] ?? [];
    if (JSON.stringify(b) === JSON.stringify(n)) continue;
    const show = (v: string[]) => v.length ? v.map((x) => JSON.stringify(x)).join(", ") : "unset";
    out.push(`git config ${key} changed from ${show(b)} to ${show(n)}`);
  }
  const created: string[] = [];
  const changed: string[] = [];
  for (const [path, digest] of Object.entries(now.ignoreFiles)) {
    if (digest === null) continue;
    if (!Object.hasOwn(before.ignoreFiles, path)) created.push(path);
    else if (before.ignoreFiles[path] !== digest) changed.push(path);
  }
  if (created.length) out.push(`ignored .gitignore created: ${some(created, 10)}`);
  if (changed.length) out.push(`ignored or pre-existing .gitignore changed: ${some(changed, 10)}`);
  return out;
}

/** The first five hiding changes, and how many more. */
export function hidingChangeList(changes: string[]): string {
  const more = changes.length > 5 ? `; and ${changes.length - 5} more` : "";
  return `${changes.slice(0, 5).join("; ")}${more}`;
}

/** The failure details of hiding changes in `repo`. */
export function hidingDetails(
  repo: string,
  changes: string[],
  before?: Pick<HidingState, "left_by" | "since_run">,
): string {
  const when = before?.left_by
    ? `since before prompt ${before.left_by.prompt}, which failed in run ${before.left_by.run_id} with it changed`
    : before?.since_run
    ? `since the runner started on run ${before.since_run} (before this prompt: an earlier prompt's session, or by hand)`
    : "during the prompt";
  return `repo ${repo}: what git status hides changed ${when}: ${hidingChangeList(changes)}`;
}

/**
 * What changed in `root` since `before` (a prompt's baseline) that can hide work from `git status` ({@link
 * hidingChanges}; empty: nothing), or the git error that kept the state from being read. `ignored`: the ignored paths
 * of a status read made just now with `--ignored=matching` (`IGNORED_ARG` of src/contract/git.ts).
 */
export async function hidingSince(
  root: string,
  before: HidingState,
  ignored: readonly string[],
  cache: GitCache = new GitCache(),
): Promise<{ changes: string[] } | { error: string }> {
  const read = await readHidingCore(root, cache);
  if (!read.ok) return { error: read.error };
  const watch = [...Object.keys(before.ignoreFiles), ...ignored.filter(isIgnoreFile)];
  const now = { ...read.core, ignoreFiles: await ignoreFiles(read.top, watch) };
  return { changes: hidingChanges(before, now, read.flagged, read.top) };
}
