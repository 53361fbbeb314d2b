/** `source_absent` (docs/reference/contract.md §3.3): no line of the scanned source files matches a forbidden pattern. */
import { join, relative } from "../../util/path.ts";
import { readCapped } from "../../util/fs.ts";
import {
  type ClauseEnv,
  fail,
  fault,
  makeItem,
  MAX_READ_BYTES,
  pass,
  regexTimeout,
  resolveEntry,
  tooLargeReason,
} from "./_common.ts";
import { compilePattern, sourcePatterns } from "./patterns.ts";
import { withinRepos } from "../paths.ts";
import { scanLines } from "../regex_guard.ts";
import { isRecord } from "../entries.ts";
import type { ReportItem } from "../types.ts";

/** Directory names skipped at any depth unless an entry adds more. */
const DEFAULT_PRUNE = [".git", "_build", "deps", "node_modules", ".elixir_ls", "cover"];

/** One forbidden match. */
export interface SourceFinding {
  file: string;
  line: number;
  pattern: string;
  text: string;
}

const MAX_FINDINGS = 50;

/** Where a walk may go: pruned names, skipped paths, extensions, and whether a symlink's target is inside the repos. */
interface WalkRules {
  prune: Set<string>;
  exts: string[] | null;
  skip: ReadonlySet<string>;
  inside: (real: string) => boolean;
  /** Symlinked files whose target lies outside the repos: listed, never read. */
  outside: string[];
}

async function* walk(dir: string, rules: WalkRules): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (rules.prune.has(e.name)) continue;
    const full = join(dir, e.name);
    if (rules.skip.has(full)) continue;
    if (e.isDirectory) {
      yield* walk(full, rules);
      continue;
    }
    if (rules.exts !== null && !rules.exts.some((x) => e.name.endsWith(x))) continue;
    if (e.isFile) yield full;
    else if (e.isSymlink && (await Deno.stat(full).then((s) => s.isFile, () => false))) {
      const real = await Deno.realPath(full).catch(() => null);
      if (real !== null && rules.inside(real)) yield full;
      else rules.outside.push(full);
    }
  }
}

/** `source_absent`: scan a file or a directory tree for forbidden lines. */
export async function checkSourceAbsent(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("source_absent", "source_absent", entry, env, id);
  if (!r.ok) return r.item;
  const patterns = sourcePatterns(entry);
  const empty = { files_checked: 0, findings: [] };
  if (patterns.length === 0) return makeItem(r.head, fail("source_absent requires at least one pattern"), empty);
  for (const p of patterns) {
    const re = compilePattern(p);
    if (typeof re === "string") return makeItem(r.head, fail(`invalid source_absent pattern: ${re}`), empty);
  }
  const obj = isRecord(entry) ? entry : {};
  const prune = new Set([...DEFAULT_PRUNE, ...(Array.isArray(obj.prune) ? obj.prune.map(String) : [])]);
  const exts = Array.isArray(obj.extensions) ? obj.extensions.map(String) : null;
  const target = r.ref.resolved_path;
  let st: Deno.FileInfo;
  try {
    st = await Deno.stat(target);
  } catch {
    return makeItem(r.head, fail("source path is missing"), empty);
  }
  const files: string[] = [];
  // The store root is runtime state, never the work (as for changed_paths_only and repos_clean): a walk that meets it
  // skips it, so steer texts, transcripts and audit entries kept there are never evidence. Only a path named inside
  // the store scans it.
  const skip = new Set<string>();
  const store = env.ctx.storeRoot;
  if (store) {
    skip.add(store);
    try {
      skip.add(await Deno.realPath(store));
    } catch { /* no store yet */ }
  }
  const rules: WalkRules = { prune, exts, skip, inside: (real) => withinRepos(env.repos, real), outside: [] };
  if (st.isDirectory) { for await (const f of walk(target, rules)) files.push(f); }
  else if (st.isFile) files.push(target);
  else return makeItem(r.head, fail("source path is not a regular file or directory"), empty); // a FIFO would block
  const unreadable = rules.outside.map((f) => `${relative(r.ref.root, f)} (a symlink leading out of the repositories)`);
  const findings: SourceFinding[] = [];
  let total = 0;
  const dec = new TextDecoder();
  for (const file of files) {
    let text: string;
    try {
      // Regular files only (the walk keeps them), each up to the cap: a larger one is not scanned, so not passed.
      const st = await Deno.stat(file);
      const bytes = st.isFile && st.size <= MAX_READ_BYTES ? await readCapped(file, MAX_READ_BYTES, st.size) : null;
      if (bytes === null) {
        unreadable.push(
          `${relative(r.ref.root, file)} (${st.isFile ? tooLargeReason(MAX_READ_BYTES) : "not a regular file"})`,
        );
        continue;
      }
      text = dec.decode(bytes);
    } catch (e) {
      // Removed since the walk: nothing to scan. Anything else must not pass as "no forbidden line".
      if (!(e instanceof Deno.errors.NotFound)) {
        unreadable.push(`${relative(r.ref.root, file)} (${(e as Error).message})`);
      }
      continue;
    }
    const scan = await scanLines(patterns, "u", text, MAX_FINDINGS - findings.length);
    if (scan === "timeout") {
      const where = ` on ${relative(r.ref.root, file)}`;
      const slow = regexTimeout(patterns.join("/, /"), where);
      return makeItem(r.head, fault(slow, "verifier_timeout"), { files_checked: files.length, findings });
    }
    total += scan.total;
    for (const [line, k, shown] of scan.hits) {
      findings.push({ file: relative(r.ref.root, file), line: line + 1, pattern: patterns[k]!, text: shown });
    }
  }
  const extra = { files_checked: files.length, findings };
  if (unreadable.length) return makeItem(r.head, fail(`cannot read ${unreadable.join(", ")}`), extra);
  return makeItem(r.head, total ? fail(`${total} forbidden source match(es)`) : pass(), extra);
}
