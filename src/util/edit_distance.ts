/** Edit distance and the closest candidate, for "did you mean" suggestions (lint findings, commands, flags). */

/** Levenshtein distance (small strings only). */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `word` when it is close enough to be what was meant ("did you mean"): an edit distance of
 * at most a third of the word's length (at least 1; at least 2 for words of 3+ characters, so `rnu` → `run`), below
 * the word's length, or else a unique prefix of 3+ characters. Case-insensitive; null when nothing is close.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  if (w === "") return null;
  const limit = Math.max(w.length >= 3 ? 2 : 1, Math.floor(w.length / 3));
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  if (best !== null && bestDistance <= limit && bestDistance < w.length) return best;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(w));
  return w.length >= 3 && prefixed.length === 1 ? prefixed[0]! : null;
}
