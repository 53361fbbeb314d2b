/**
 * The import graph of `src/`, read from the sources: static `import`/`export … from`, `import type`, and dynamic
 * `import("…")` with a literal path. Used by tests/structure_test.ts to hold the folder layering of
 * docs/architecture.md ("Layers"), and usable as a script: `deno run -R tests/support/import_graph.ts` prints the
 * cross-folder edge counts.
 */

/** One relative import found in a source file. */
export interface ImportRef {
  /** The importing file, relative to the repository root (`src/run/context.ts`). */
  from: string;
  /** The imported file, resolved and relative to the repository root. */
  to: string;
  /** The specifier as written. */
  spec: string;
  /** 1-based line of the specifier. */
  line: number;
  /** `type` for `import type`/`export type`, `dynamic` for `import("…")`, else `value`. */
  kind: "value" | "type" | "dynamic";
  /** `export` for a re-export (`export … from`), else `import`. */
  stmt: "import" | "export";
}

const STATIC_RE = /\b(import|export)\s+(type\s+)?([^;]*?)\bfrom\s*["']([^"']+)["']/gs;
const BARE_RE = /\bimport\s*["']([^"']+)["']/g;
const DYNAMIC_RE = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

function stripComments(text: string): string {
  // Replace comments with spaces (keeping newlines) so offsets and line numbers stay; strings are left alone.
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const n = text[i + 1];
    if (c === "/" && n === "/") {
      while (i < text.length && text[i] !== "\n") out += " ", i++;
    } else if (c === "/" && n === "*") {
      while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) out += text[i] === "\n" ? "\n" : " ", i++;
      out += "  ";
      i += 2;
    } else if (c === '"' || c === "'" || c === "`") {
      out += c;
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === "\\") out += text[i++]!;
        if (i < text.length) out += text[i++]!;
      }
      if (i < text.length) out += text[i++]!;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === "\n") line++;
  return line;
}

/** Resolve a relative specifier against the importing file (both repository-relative, `/`-separated). */
export function resolveSpec(from: string, spec: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "." || seg === "") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return parts.join("/");
}

/** Whether a static import/export match is type-only: `import type`, or `import { type A, type B }`. */
function isTypeOnly(m: RegExpMatchArray): boolean {
  if (m[2]) return true;
  const names = (m[3] ?? "").match(/^\s*\{([^}]*)\}\s*$/s)?.[1];
  return names !== undefined &&
    names.split(",").map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith("type "));
}

/**
 * The packages one source file loads when it is evaluated: the bare, `npm:` and `node:` specifiers of its static
 * value imports and re-exports (type-only imports and dynamic `import()` load nothing at evaluation).
 */
export function packageImports(source: string): string[] {
  const text = stripComments(source);
  const out = new Set<string>();
  for (const m of text.matchAll(STATIC_RE)) if (!m[4]!.startsWith(".") && !isTypeOnly(m)) out.add(m[4]!);
  for (const m of text.matchAll(BARE_RE)) if (!m[1]!.startsWith(".")) out.add(m[1]!);
  return [...out].sort();
}

/** The package a bare specifier names: `diff` for `diff/lib/diff/array.js`, `@scope/name` for `@scope/name/x`. */
export function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** What evaluating some entry files evaluates with them: the files and packages reached by static value imports. */
export interface StaticLoad {
  files: Set<string>;
  /** Package specifier → the first file found importing it. */
  packages: Map<string, string>;
}

/**
 * The files (repository-relative) and packages that evaluating `entries` evaluates before any of their code runs:
 * static value imports and re-exports, followed through `files` (path → source); dynamic `import()` is where
 * loading stops, so this is what a command costs before it decides anything.
 */
export function staticLoad(files: ReadonlyMap<string, string>, entries: readonly string[]): StaticLoad {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const stack = [...entries];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    const source = files.get(f);
    if (source === undefined) throw new Error(`staticLoad: no source for ${f}`);
    seen.add(f);
    for (const p of packageImports(source)) if (!packages.has(p)) packages.set(p, f);
    for (const r of parseImports(f, source)) if (r.kind === "value") stack.push(r.to);
  }
  return { files: seen, packages };
}

/** The relative imports of one source file (bare and `npm:` specifiers are skipped). */
export function parseImports(from: string, source: string): ImportRef[] {
  const text = stripComments(source);
  const refs: ImportRef[] = [];
  const add = (spec: string, offset: number, kind: ImportRef["kind"], stmt: ImportRef["stmt"] = "import") => {
    if (!spec.startsWith(".")) return;
    refs.push({ from, to: resolveSpec(from, spec), spec, line: lineAt(text, offset), kind, stmt });
  };
  for (const m of text.matchAll(STATIC_RE)) {
    add(m[4]!, m.index! + m[0].lastIndexOf(m[4]!), isTypeOnly(m) ? "type" : "value", m[1] as ImportRef["stmt"]);
  }
  for (const m of text.matchAll(BARE_RE)) add(m[1]!, m.index!, "value");
  for (const m of text.matchAll(DYNAMIC_RE)) add(m[1]!, m.index!, "dynamic");
  return refs;
}

/** The folder a `src/` file belongs to: `src/run/x.ts` → `run`, `src/errors.ts` → `errors.ts` (a root file). */
export function folderOf(path: string): string {
  const rest = path.replace(/^src\//, "");
  const slash = rest.indexOf("/");
  return slash < 0 ? rest : rest.slice(0, slash);
}

/** Every relative import between files under `src/`, from a map of path → source text. */
export function importsOf(files: ReadonlyMap<string, string>): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const [path, source] of files) {
    for (const r of parseImports(path, source)) if (r.to.startsWith("src/")) refs.push(r);
  }
  return refs;
}

/** Count cross-folder edges per `from → to` folder pair. */
export function folderEdgeCounts(refs: readonly ImportRef[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of refs) {
    const a = folderOf(r.from);
    const b = folderOf(r.to);
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Read every `.ts` file under `dir` (repository-relative paths; run from the repository root). */
export async function readSources(root: string, dir = "src"): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (rel: string) => {
    for await (const e of Deno.readDir(`${root}/${rel}`)) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile && p.endsWith(".ts")) files.set(p, await Deno.readTextFile(`${root}/${p}`));
    }
  };
  await walk(dir);
  return files;
}

/** The documented layering: folders listed top to bottom, plus the edges allowed inside one layer. */
export interface LayerRules {
  /** Layers from the top (`cli`) to the bottom; each names its folders (root files by file name). */
  layers: readonly (readonly string[])[];
  /** `from → to` pairs allowed between two folders of the same layer. */
  sameLayer: readonly (readonly [string, string])[];
}

/** One broken rule, with the file and import that break it. */
export interface Violation {
  rule: "unknown_folder" | "upward" | "same_layer" | "folder_cycle" | "file_cycle" | "surface";
  message: string;
}

function at(r: ImportRef): string {
  return `${r.from}:${r.line} imports "${r.spec}"${r.kind === "value" ? "" : ` (${r.kind})`}`;
}

/** Strongly connected components with more than one node (or a self loop), by Tarjan's algorithm. */
export function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || edges.get(v)?.has(v)) out.push(comp.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** One concrete cycle path through a component (`a → b → … → a`), for the message. */
function cyclePath(comp: readonly string[], edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const inComp = new Set(comp);
  const start = comp[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...comp, start];
}

/** Check the imports against the layering: unknown folders, upward edges, same-layer edges, cycles. */
export function checkStructure(refs: readonly ImportRef[], rules: LayerRules): Violation[] {
  const out: Violation[] = [];
  const layerOf = new Map<string, number>();
  rules.layers.forEach((l, i) => l.forEach((f) => layerOf.set(f, i)));
  const allowed = new Set(rules.sameLayer.map(([a, b]) => `${a} -> ${b}`));
  const folderEdges = new Map<string, Set<string>>();
  const fileEdges = new Map<string, Set<string>>();
  const firstRef = new Map<string, ImportRef>();
  const unknown = new Set<string>();
  for (const r of refs) {
    const a = folderOf(r.from);
    const b = folderOf(r.to);
    if (!fileEdges.has(r.from)) fileEdges.set(r.from, new Set());
    fileEdges.get(r.from)!.add(r.to);
    if (!firstRef.has(`${r.from} -> ${r.to}`)) firstRef.set(`${r.from} -> ${r.to}`, r);
    for (const f of [a, b]) {
      if (!layerOf.has(f) && !unknown.has(f)) {
        unknown.add(f);
        out.push({
          rule: "unknown_folder",
          message: `src/${f} is in no layer of docs/architecture.md ("Layers"); seen at ${at(r)}`,
        });
      }
    }
    if (a === b || !layerOf.has(a) || !layerOf.has(b)) continue;
    if (!folderEdges.has(a)) folderEdges.set(a, new Set());
    folderEdges.get(a)!.add(b);
    if (!firstRef.has(`${a} -> ${b}`)) firstRef.set(`${a} -> ${b}`, r);
    const la = layerOf.get(a)!;
    const lb = layerOf.get(b)!;
    if (lb < la) {
      out.push({ rule: "upward", message: `${a} -> ${b} goes up the layers: ${at(r)}` });
    } else if (la === lb && !allowed.has(`${a} -> ${b}`)) {
      out.push({ rule: "same_layer", message: `${a} -> ${b} is not an allowed same-layer edge: ${at(r)}` });
    }
  }
  for (const comp of cycles(folderEdges)) {
    const path = cyclePath(comp, folderEdges);
    const steps = path.slice(0, -1).map((f, i) => at(firstRef.get(`${f} -> ${path[i + 1]}`)!));
    const among = comp.length > 2 ? ` (one of the cycles among ${comp.join(", ")})` : "";
    out.push({ rule: "folder_cycle", message: `folder cycle ${path.join(" -> ")}${among}: ${steps.join("; ")}` });
  }
  for (const comp of cycles(fileEdges)) {
    const path = cyclePath(comp, fileEdges);
    const steps = path.slice(0, -1).map((f, i) => at(firstRef.get(`${f} -> ${path[i + 1]}`)!));
    out.push({ rule: "file_cycle", message: `file cycle ${path.join(" -> ")}: ${steps.join("; ")}` });
  }
  return out;
}

/** The public surfaces: each folder's `mod.ts` plus the second surfaces a layer table names. */
export interface SurfaceRules {
  /** Second surfaces per folder, besides `mod.ts` (file names inside the folder). */
  second: Readonly<Record<string, readonly string[]>>;
}

/**
 * Check (c): a cross-folder import names a surface of the target folder (`mod.ts` or a listed second surface), or,
 * for a statement that imports at least one value, a public file (one a surface re-exports from). A type-only
 * import always names a surface. Root files (`src/errors.ts`) are their own surface.
 */
export function checkSurfaces(refs: readonly ImportRef[], rules: SurfaceRules): Violation[] {
  const surfaces = (
    folder: string,
  ) => [`src/${folder}/mod.ts`, ...(rules.second[folder] ?? []).map((f) => `src/${folder}/${f}`)];
  const isSurface = (path: string) => surfaces(folderOf(path)).includes(path);
  const publicFiles = new Set<string>();
  for (const r of refs) {
    if (r.stmt === "export" && isSurface(r.from) && folderOf(r.to) === folderOf(r.from)) publicFiles.add(r.to);
  }
  const out: Violation[] = [];
  for (const r of refs) {
    const a = folderOf(r.from);
    const b = folderOf(r.to);
    if (a === b || b.endsWith(".ts") || isSurface(r.to)) continue;
    const names = surfaces(b).join(" or ");
    if (r.kind === "type") {
      out.push({ rule: "surface", message: `a type-only import names ${names}, not ${r.to}: ${at(r)}` });
    } else if (!publicFiles.has(r.to)) {
      out.push({
        rule: "surface",
        message:
          `${r.to} is private to ${b}/ (no surface re-exports it); import through ${names} or re-export it there: ${
            at(r)
          }`,
      });
    }
  }
  return out;
}

if (import.meta.main) {
  const root = Deno.args[0] ?? ".";
  const refs = importsOf(await readSources(root));
  const counts = [...folderEdgeCounts(refs)].sort((a, b) => a[0].localeCompare(b[0]));
  let total = 0;
  for (const [k, n] of counts) {
    console.log(`${String(n).padStart(4)}  ${k}`);
    total += n;
  }
  const viaMod = refs.filter((r) => folderOf(r.from) !== folderOf(r.to) && /\/mod\.ts$/.test(r.to)).length;
  console.log(`${total} cross-folder imports in ${counts.length} folder pairs; ${viaMod} through a mod.ts`);
}
