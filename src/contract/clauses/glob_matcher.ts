/**
 * The glob matcher (picomatch), loaded on first use. picomatch is an npm CommonJS module: loading it from source
 * brings up Deno's Node module loader, which costs about as much CPU as an empty `deno run` (docs/bench.md, the `cli`
 * case), so `packet lint` of a packet without globs, and every read-only command, never loads it. The pattern
 * checks `packet lint` runs live here too, not in ./glob.ts: the lint loads neither the clause nor its tree walk.
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

/**
 * The problem with a glob pattern (unbalanced brackets, braces, parentheses), or null when it compiles; `matcher`
 * from {@link loadGlobMatcher}.
 */
export function globProblem(pattern: string, matcher: GlobMatcher): string | null {
  if (pattern.trim() === "") return "empty glob";
  try {
    matcher.makeRe(pattern, { strictBrackets: true });
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Whether a string contains glob syntax. */
export function hasGlobChars(s: string): boolean {
  return /[*?[\]{}]/.test(s);
}
