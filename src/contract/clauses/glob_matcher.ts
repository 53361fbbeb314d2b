/**
 * The glob matcher (picomatch), loaded on first use. picomatch is an npm CommonJS module: loading it from source
 * brings up Deno's Node module loader, which costs about as much CPU as an empty `deno run` (docs/bench.md, the `cli`
 * case), so `packet lint` of a packet without globs, and every read-only command, never loads it.
 */

/** The part of picomatch the clauses use. */
export interface GlobMatcher {
  (pattern: string, options?: { dot?: boolean }): (path: string) => boolean;
  makeRe(pattern: string, options?: { strictBrackets?: boolean }): RegExp;
  scan(pattern: string): { base: string; glob: string; isGlob: boolean };
}

let loaded: Promise<GlobMatcher> | null = null;

/** The glob matcher, loading it the first time. */
export function loadGlobMatcher(): Promise<GlobMatcher> {
  loaded ??= import("picomatch").then((m) => m.default as GlobMatcher);
  return loaded;
}
