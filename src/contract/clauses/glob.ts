/** `glob` (docs/reference/contract.md §3): the number (and non-emptiness) of glob matches under a root. */
import { join } from "../../util/path.ts";
import { globPaths } from "./glob_walk.ts";
import { withinRepos } from "../paths.ts";
import { globProblem, loadGlobMatcher } from "./glob_matcher.ts";
import { type ClauseEnv, errorMessage, fail, makeItem, pass, resolveEntry } from "./_common.ts";
import { isRecord } from "../entries.ts";
import type { ReportItem } from "../types.ts";

export { globProblem, hasGlobChars } from "./glob_matcher.ts";

/** `glob`: match count within `[min_matches, max_matches]`; with `non_empty`, every match a non-empty file. */
export async function checkGlob(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("glob", "glob", entry, env, id);
  if (!r.ok) return r.item;
  const obj = isRecord(entry) ? entry : {};
  const min = typeof obj.min_matches === "number" ? obj.min_matches : 1;
  const max = typeof obj.max_matches === "number" ? obj.max_matches : null;
  const nonEmpty = obj.non_empty === true;
  const problem = globProblem(r.ref.path, await loadGlobMatcher());
  if (problem !== null) return makeItem(r.head, fail(`invalid glob: ${problem}`), { matches: [] });
  let matches: string[];
  const outside: string[] = [];
  try {
    matches = await globPaths(r.ref.path, r.ref.root, (real) => withinRepos(env.repos, real), (p) => outside.push(p));
  } catch (e) {
    return makeItem(r.head, fail(`invalid glob: ${errorMessage(e)}`), { matches: [] });
  }
  let bad = 0;
  if (nonEmpty) {
    for (const m of matches) {
      try {
        const st = await Deno.stat(join(r.ref.root, m));
        if (!st.isFile || st.size === 0) bad++;
      } catch {
        bad++;
      }
    }
  }
  const n = matches.length;
  // A matching symlink that leads out of the repositories fails the item, as a path clause fails on one
  // (docs/reference/contract.md §2): the path is in the tree but what it names is not, so it can neither count toward
  // min_matches nor be left out of max_matches.
  const ok = n >= min && (max === null || n <= max) && bad === 0 && outside.length === 0;
  let details = nonEmpty && bad > 0 ? `${n} match(es); ${bad} empty/non-file` : `${n} match(es)`;
  if (outside.length > 0) {
    outside.sort();
    const more = outside.length > 5 ? ` and ${outside.length - 5} more` : "";
    details += `; a symlink leads ${outside.slice(0, 5).join(", ")}${more} out of the repositories (not counted)`;
  }
  return makeItem(r.head, ok ? pass(details) : fail(details), {
    matches,
    ...(outside.length > 0 ? { symlinks_outside: outside } : {}),
  });
}
