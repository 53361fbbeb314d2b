/**
 * The pattern helpers that `packet lint` shares with the clauses (`matches`, `source_absent`, `commands`): in a file of
 * their own, so the lint checks patterns without evaluating the clauses (docs/bench.md, cold start).
 */
import { isRecord, pick } from "../entries.ts";

/** Compile an ECMAScript pattern with the `u` flag; returns the error message on failure. */
export function compilePattern(pattern: string, flags = "u"): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** The patterns of an entry as a list (bare string entries have none). */
export function sourcePatterns(entry: unknown): string[] {
  if (!isRecord(entry)) return [];
  const p = pick(entry, "patterns", "pattern");
  if (typeof p === "string") return [p];
  return Array.isArray(p) ? p.map(String) : [];
}
