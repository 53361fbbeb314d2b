/**
 * The results files of `deno task bench` (docs/bench.md): every run writes the untracked `bench-results/tmp/
 * latest.json`; `--save` rewrites the committed `bench-results/latest.json` whole from one complete run. An area
 * that was skipped on this machine (an optional binary missing) keeps its previously committed figures, marked as
 * carried over, rather than having them replaced by "skipped".
 */

/** Figures of one area, keyed by name with the unit in the name. */
export type Figures = Record<string, number | string>;

/** What one area's run produced. */
export type AreaOutcome =
  | { status: "ok"; figures: Figures }
  | { status: "skipped"; reason: string }
  | { status: "failed"; error: string };

/** The JSON document of a results file. */
export interface ResultsDoc {
  at: string;
  deno: string;
  cpus: number;
  quick?: boolean;
  results: Record<string, Figures>;
}

/** The entry of one area in a results file. */
function entryOf(at: string, o: AreaOutcome): Figures {
  if (o.status === "ok") return { measured_at: at, ...o.figures };
  if (o.status === "skipped") return { measured_at: at, skipped: o.reason };
  return { measured_at: at, failed: o.error };
}

/** The document for this run alone (the untracked file). */
export function runDoc(at: string, outcomes: Record<string, AreaOutcome>, quick: boolean): ResultsDoc {
  const results = Object.fromEntries(
    Object.entries(outcomes).sort(([a], [b]) => a.localeCompare(b)).map(([k, o]) => [k, entryOf(at, o)]),
  );
  return { at, deno: Deno.version.deno, cpus: navigator.hardwareConcurrency, ...(quick ? { quick } : {}), results };
}

/**
 * The committed document after `--save`: every area from this run; a skipped area keeps the previous figures (with
 * their own `measured_at`) and says so in `carried_over`. Throws when any area failed: nothing is saved then.
 */
export function savedDoc(at: string, outcomes: Record<string, AreaOutcome>, previous: ResultsDoc | null): ResultsDoc {
  const failed = Object.entries(outcomes).filter(([, o]) => o.status === "failed").map(([k]) => k);
  if (failed.length) throw new Error(`not saved: ${failed.join(", ")} failed`);
  const doc = runDoc(at, outcomes, false);
  for (const [area, o] of Object.entries(outcomes)) {
    const before = previous?.results[area];
    if (o.status !== "skipped" || !before || "skipped" in before || "failed" in before) continue;
    const { carried_over: _old, ...figures } = before;
    doc.results[area] = { ...figures, carried_over: `skipped at ${at} (${o.reason}); figures of an earlier run` };
  }
  return doc;
}
