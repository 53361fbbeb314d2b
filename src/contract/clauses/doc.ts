/** `doc` (docs/reference/contract.md §3.1): non-blank document with required sections and no placeholder markers. */
import { type ClauseEnv, fail, makeItem, pass, readText, resolveEntry } from "./_common.ts";
import { isRecord } from "../entries.ts";
import type { ReportItem } from "../types.ts";

/** Default placeholder markers. */
export const DEFAULT_MARKERS = ["TODO", "TBD", "FIXME", "XXX", "...placeholder", "<fill in>", "LOREM"];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** The regex that finds a marker at the start of a line (after whitespace, a bullet or heading hashes). */
function markerRegExp(marker: string): RegExp {
  return new RegExp(`^\\s*(?:[-*+] |#{1,6} )?${escapeRegExp(marker)}(?:\\b|(?=\\s)|$)`, "u");
}

/** Analyse a document's text; pure so it can be tested without files. */
export function analyseDoc(
  text: string,
  opts: { requiresSections: string[]; markers: string[] },
): { lines: number; missing: string[]; hits: { marker: string; line: number }[] } {
  const all = text.split(/\r?\n/);
  const lines = all.filter((l) => l.trim() !== "").length;
  const missing = opts.requiresSections.filter((s) => !text.includes(s));
  const hits: { marker: string; line: number }[] = [];
  for (const marker of opts.markers) {
    if (marker === "") continue;
    const re = markerRegExp(marker);
    const idx = all.findIndex((l) => re.test(l));
    if (idx >= 0) hits.push({ marker, line: idx + 1 });
  }
  return { lines, missing, hits };
}

/** `doc`: evaluate one entry. */
export async function checkDoc(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("doc", "doc", entry, env, id);
  if (!r.ok) return r.item;
  const obj = isRecord(entry) ? entry : {};
  const minLines = typeof obj.min_lines === "number" ? obj.min_lines : 1;
  const requiresSections = Array.isArray(obj.requires_sections) ? obj.requires_sections.map(String) : [];
  const markers = Array.isArray(obj.forbids_markers) ? obj.forbids_markers.map(String) : DEFAULT_MARKERS;
  const read = await readText(r.ref.resolved_path);
  if (!read.ok) return makeItem(r.head, read.verdict, { min_lines: minLines });
  const a = analyseDoc(read.text, { requiresSections, markers });
  const problems: string[] = [];
  if (a.lines === 0) problems.push("document is blank");
  if (a.missing.length) problems.push(`missing sections: ${a.missing.join(", ")}`);
  if (a.hits.length) {
    problems.push(`forbidden markers: ${a.hits.map((h) => `${h.marker} (line ${h.line})`).join(", ")}`);
  }
  const extra = {
    lines: a.lines,
    missing_sections: a.missing,
    markers: a.hits,
    min_lines: minLines,
    below_recommendation: a.lines < minLines,
  };
  return makeItem(r.head, problems.length ? fail(problems.join("; ")) : pass(`ok: ${a.lines} non-blank lines`), extra);
}
