/**
 * The document-reference checker behind tests/docs_refs_test.ts: every `<path>.md §N` citation and every
 * `docs/….md` path named in code comments, the README and docs/ must resolve to a file in the repository and, for
 * a section number, to a heading carrying it (as docs/reference/cli.md §4 does). Pure over an in-memory file set.
 */

/** One file of the set: its repository-relative path and text. */
export interface DocFile {
  path: string;
  text: string;
}

/** A reference that does not resolve, as `file:line: message`. */
export type DocProblem = string;

const SEC = String.raw`§\d+(?:\.\d+)*`;
const JOIN = String.raw`(?:\s*[–-]\s*|,\s*|\s+and\s+|\s+or\s+|/)`;
/** A citation chain: an optional document (`docs/reference/runner.md`, maybe in backticks) and its sections. */
const CHAIN = new RegExp(String.raw`(?<doc>[\w./-]+\.md)?(?<tick>\`?\s*)(?<secs>${SEC}(?:${JOIN}${SEC})*)`, "g");
const ONE_SEC = /§(\d+(?:\.\d+)*)/g;
const DOCS_PATH = /(?<![\w/.-])docs\/[\w./-]*[\w-]\.md\b/g;
const SRC_PATH = /(?<![\w/.-])src\/[\w./-]*[\w-](?:\.ts)?\/?(?![\w-])/g;
const MD_LINK = /\]\(([^)\s]+)\)/g;
const HEADING = /^#{1,6}\s+§(\d+(?:\.\d+)*)(?![\d.]*\d)/gm;

/** The section numbers a markdown document declares in headings (`##`, then the section sign and the number). */
export function sectionsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(HEADING)].map((m) => m[1]!));
}

/** Whether a file is code (its references are read from comments only) or prose (read whole). */
function isCode(path: string): boolean {
  return path.endsWith(".ts");
}

/** The comment text of one code line (`//`, JSDoc and block lines, trailing `// …`), or "" when it has none. */
export function commentOf(line: string): string {
  const t = line.trimStart();
  if (t.startsWith("//") || t.startsWith("*") || t.startsWith("/*")) return t;
  const m = /(?:^|\s)\/\/(.*)$/.exec(line);
  return m ? m[1]! : "";
}

/** Lines of a markdown file outside fenced code blocks (blank in place, so line numbers hold). */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** Normalise `a/b/../c` and `./x` segments of a repository-relative path. */
function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

/**
 * Check a file set. `exists` answers for any repository-relative path (files and folders); the section sets of cited
 * markdown files are read from the set itself. Returns the problems, one per unresolved reference, sorted by file.
 */
export function checkDocRefs(files: readonly DocFile[], exists: (path: string) => boolean): DocProblem[] {
  const byPath = new Map(files.map((f) => [f.path, f.text]));
  const sections = new Map<string, Set<string>>();
  const sectionsFor = (path: string): Set<string> | null => {
    const text = byPath.get(path);
    if (text === undefined) return null;
    let s = sections.get(path);
    if (!s) sections.set(path, s = sectionsOf(text));
    return s;
  };
  const problems: DocProblem[] = [];
  for (const file of files) {
    const code = isCode(file.path);
    const lines = code ? file.text.split("\n") : proseLines(file.text);
    let lastDoc: string | null = null; // the document the previous line cited last (wrapped citations)
    lines.forEach((raw, i) => {
      const at = `${file.path}:${i + 1}`;
      const line = raw;
      const comment = code ? commentOf(raw) : raw;
      let current: string | null = null;
      const inherited = lastDoc;
      for (const m of line.matchAll(CHAIN)) {
        const doc = m.groups!.doc;
        const secs = [...m.groups!.secs!.matchAll(ONE_SEC)].map((s) => s[1]!);
        let target: string;
        if (doc !== undefined) {
          if (!doc.includes("/")) {
            problems.push(`${at}: bare citation "${doc} §${secs[0]}": name the file by its repository path`);
            continue;
          }
          target = doc;
          current = doc;
        } else if (current ?? inherited) {
          target = (current ?? inherited)!;
        } else if (!code && sectionsFor(file.path)?.size) {
          target = file.path;
        } else {
          problems.push(`${at}: "§${secs[0]}" names no document: cite it as <path>.md §${secs[0]}`);
          continue;
        }
        const have = sectionsFor(target);
        if (have === null) {
          if (!exists(target)) problems.push(`${at}: "${target}" does not exist`);
          else problems.push(`${at}: "${target}" is not a document the check reads`);
          continue;
        }
        for (const s of secs) {
          if (!have.has(s)) problems.push(`${at}: "${target}" has no heading "§${s}"`);
        }
      }
      // A bare chain on the next line belongs to the last document cited here, or to a path the line ends with.
      const trailing = [...line.matchAll(/([\w./-]+\.md)`?\s*$/g)].at(-1);
      lastDoc = trailing && trailing[1]!.includes("/") ? trailing[1]! : current;
      for (const m of comment.matchAll(DOCS_PATH)) {
        if (!exists(m[0])) problems.push(`${at}: "${m[0]}" does not exist`);
      }
      if (code) return;
      for (const m of line.matchAll(SRC_PATH)) {
        const p = m[0].replace(/\/$/, "");
        if (!exists(p)) problems.push(`${at}: "${m[0]}" does not exist`);
      }
      for (const m of line.matchAll(MD_LINK)) {
        const href = m[1]!;
        if (/^[a-z]+:/i.test(href) || href.startsWith("#")) continue;
        const target = normalise(`${dirOf(file.path)}/${href.split("#")[0]!}`);
        if (!exists(target)) problems.push(`${at}: link "${href}" does not resolve (${target})`);
      }
    });
  }
  return [...new Set(problems)];
}

const CODE_PATH = /(?<![\w/.-])(?:src\/[\w./-]*[\w-]\.ts|main\.ts)(?![\w-])/g;
const CALLED = /`(?:[\w$]+\.)*([\w$]+)\(\)`/g;

/**
 * Check a contributor page that names code: every `src/….ts` path exists, and every function written as `` `name()` ``
 * (or `` `obj.name()` ``) occurs in one of the files named on the same line or the next — or, on a line naming
 * none, on the nearest line above that does. `read` returns a file's text, or null when it does not exist.
 */
export function checkNamedCode(doc: DocFile, read: (path: string) => string | null): DocProblem[] {
  const problems: DocProblem[] = [];
  let files: string[] = [];
  const lines = proseLines(doc.text);
  lines.forEach((line, i) => {
    const at = `${doc.path}:${i + 1}`;
    const named = [...line.matchAll(CODE_PATH)].map((m) => m[0]);
    if (named.length > 0) files = named;
    for (const p of named) if (read(p) === null) problems.push(`${at}: "${p}" does not exist`);
    // A sentence wrapped by the formatter may name the file on the next line.
    const next = [...(lines[i + 1] ?? "").matchAll(CODE_PATH)].map((m) => m[0]);
    const candidates = [...files, ...next];
    for (const m of line.matchAll(CALLED)) {
      const name = m[1]!;
      const word = new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`);
      const found = candidates.some((f) => {
        const text = read(f);
        return text !== null && word.test(text);
      });
      if (!found) {
        problems.push(`${at}: "${name}()" is not in ${candidates.length ? candidates.join(", ") : "any named file"}`);
      }
    }
  });
  return [...new Set(problems)];
}
