/** Failure hints: a lane's structured error facts → failure classes (docs/reference/runner.md §5 step 3), kept as data. */

/**
 * One hint. Every field that is present must match (status in the list or range, kind and message by pattern);
 * the first matching hint of a lane wins.
 */
export interface FailureHint {
  /** Failure class of docs/reference/runner.md §5 (`provider_rate_limit`, `launch_failed`, …). */
  class: string;
  status?: readonly number[];
  statusRange?: readonly [number, number];
  kind?: RegExp;
  message?: RegExp;
  /** Explicit recovery map for the envelope (docs/reference/runner.md §5 step 2), e.g. `{retryable: false}`. */
  recovery?: Record<string, unknown>;
  /** A remedy appended to the stream's error message. */
  note?: string;
}

/** The facts a hint is matched against. */
export interface HintFacts {
  status: number | null;
  kind: string;
  message: string;
}

/** Result of {@link classifyHint}. */
export interface HintMatch {
  class: string;
  recovery: Record<string, unknown> | null;
  note: string | null;
}

function matches(h: FailureHint, f: HintFacts): boolean {
  if (h.status && (f.status === null || !h.status.includes(f.status))) return false;
  if (h.statusRange && (f.status === null || f.status < h.statusRange[0] || f.status > h.statusRange[1])) return false;
  if (h.kind && !h.kind.test(f.kind)) return false;
  if (h.message && !h.message.test(f.message)) return false;
  return Boolean(h.status || h.statusRange || h.kind || h.message);
}

/** The first hint matching the facts, or null. Pure. */
export function classifyHint(hints: readonly FailureHint[], facts: HintFacts): HintMatch | null {
  for (const h of hints) {
    if (matches(h, facts)) return { class: h.class, recovery: h.recovery ?? null, note: h.note ?? null };
  }
  return null;
}

/** Pull an HTTP status out of a message such as `unexpected status 429 Too Many Requests` or `API Error: 529 …`. */
export function statusInMessage(message: string): number | null {
  const m = /\b(?:status(?: code)?:?|API Error:|HTTP)\s*([1-5]\d\d)\b/i.exec(message);
  return m ? Number(m[1]) : null;
}
