/**
 * `state.pending.jsonl` (docs/reference/runner.md §10.2): the prompt entries of `state.json` changed since it was last
 * rewritten, one whole entry per line (`{id, at, entry}`). Every reader of `state.json` folds these lines over it.
 */

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Fold the lines of `state.pending.jsonl` over a decoded `state.json` document (mutated and returned): the latest
 * line per prompt wins. A line that does not decode — only the last one can be torn by a crash mid-append — or whose
 * entry has no `status` string and `attempts` list is skipped: every complete line is a whole entry.
 */
export function mergeStatePending<T extends { updated_at?: unknown; prompts?: unknown }>(doc: T, text: string): T {
  const d = doc as Record<string, unknown>;
  if (!isRecord(d.prompts)) d.prompts = {};
  const prompts = d.prompts as Record<string, unknown>;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(rec) || typeof rec.id !== "string" || !isRecord(rec.entry)) continue;
    if (typeof rec.entry.status !== "string" || !Array.isArray(rec.entry.attempts)) continue;
    prompts[rec.id] = rec.entry;
    if (typeof rec.at === "string" && (typeof d.updated_at !== "string" || rec.at > d.updated_at)) {
      d.updated_at = rec.at;
    }
  }
  return doc;
}
