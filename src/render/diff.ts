/**
 * Diff rules of docs/reference/events-and-rendering.md §8: what a file-changing tool call carries (the patch itself, or only the
 * paths it touched), minimal line diffs, stats, context trimming and the line budget. Pure; no filesystem access.
 */
// The array diff alone (the package's public `lib/*.js` subpath): its index would evaluate all ~20 of its modules.
import { diffArrays } from "diff/lib/diff/array.js";
import { splitLines } from "./text.ts";

/** One body line of a diff: added, removed or context. */
export interface DiffLine {
  op: "+" | "-" | " ";
  text: string;
}

/** A file the event names without carrying the change (codex `file_change`, antigravity, Edit without new text). */
export interface PathChange {
  path: string;
  /** codex change kind (`add`, `update`, `delete`) when known. */
  kind: string | null;
}

/** What a file-changing tool call tells about the change. */
export type ToolChange =
  | {
    kind: "patch";
    path: string | null;
    added: number;
    removed: number;
    /** `(all occurrences)` for `replace_all` edits. */
    note: string | null;
    /** The body lines (all context kept; trimmed by {@link trimContext}); computed on demand. */
    lines(): DiffLine[];
  }
  | { kind: "paths"; paths: PathChange[] };

/** Keys that name a file in a tool input (docs/reference/events-and-rendering.md §8). */
const PATH_KEYS = ["file_path", "path", "TargetFile", "target_file", "notebook_path", "AbsolutePath"] as const;

const EDIT_FAMILY = new Set(["Edit", "MultiEdit", "NotebookEdit", "edit_file"]);
const WRITE_FAMILY = new Set(["Write", "create_file", "write_to_file"]);
const PATH_ONLY = new Set([
  "file_change",
  "replace_file_content",
  "multi_replace_file_content",
  "edit",
  "write",
  "search_replace",
  "apply_patch",
  "delete_file",
]);

/** The first path-like string of a tool input, or null. */
export function inputPath(input: Record<string, unknown>): string | null {
  for (const k of PATH_KEYS) {
    const v = input[k];
    if (typeof v === "string" && v !== "") return v;
  }
  return null;
}

/** A minimal line diff (Myers) of two texts; all lines, context included. */
export function lineDiff(oldText: string, newText: string): DiffLine[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  if (a.length === 0) return b.map((text) => ({ op: "+", text }));
  if (b.length === 0) return a.map((text) => ({ op: "-", text }));
  const out: DiffLine[] = [];
  for (const part of diffArrays(a, b)) {
    const op = part.added ? "+" : part.removed ? "-" : " ";
    for (const text of part.value) out.push({ op, text });
  }
  return out;
}

/** Added and removed line counts of a body. */
export function diffStat(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.op === "+") added++;
    else if (l.op === "-") removed++;
  }
  return { added, removed };
}

/** Keep at most `context` unchanged lines around each change. */
export function trimContext(lines: readonly DiffLine[], context = 3): DiffLine[] {
  const n = lines.length;
  const keep = new Uint8Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    if (lines[i]!.op === " ") continue;
    any = true;
    const lo = Math.max(0, i - context);
    const hi = Math.min(n - 1, i + context);
    for (let j = lo; j <= hi; j++) keep[j] = 1;
  }
  if (!any) return [];
  const out: DiffLine[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(lines[i]!);
  return out;
}

/** Apply the line budget: at most `max` lines, and how many more were cut. */
export function budget<T>(lines: readonly T[], max: number): { lines: T[]; more: number } {
  if (lines.length <= max) return { lines: [...lines], more: 0 };
  return { lines: lines.slice(0, Math.max(0, max)), more: lines.length - Math.max(0, max) };
}

/**
 * Map unified diff text (git output or a cursor `diffString`): drop everything before the first hunk, drop `@@`
 * lines and `\ No newline` markers, keep `+`/`-`/space lines.
 */
export function parseUnifiedDiff(text: string): DiffLine[] {
  const out: DiffLine[] = [];
  let inHunk = false;
  for (const raw of text.split("\n")) {
    if (raw.startsWith("@@")) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    const c = raw[0];
    if (c === "+" || c === "-" || c === " ") out.push({ op: c, text: raw.slice(1) });
    else if (raw === "") continue;
    else if (c === "\\") continue;
    else if (raw.startsWith("diff ")) inHunk = false;
  }
  return out;
}

/** The `pathDiff` line form: `+ text`, `- text`, `  text`. */
export function formatMappedLine(l: DiffLine): string {
  return (l.op === " " ? "  " : l.op + " ") + l.text;
}

/** Parse a `pathDiff` line (`+ text`, `- text`, `  text`) back into a {@link DiffLine}. */
export function parseMappedLine(s: string): DiffLine {
  const c = s[0];
  if (c === "+" || c === "-") return { op: c, text: s.slice(2) };
  return { op: " ", text: s.slice(2) };
}

function patch(
  path: string | null,
  compute: () => DiffLine[],
  note: string | null,
  stat?: { added: number; removed: number },
): ToolChange {
  let cached: DiffLine[] | null = null;
  const lines = () => (cached ??= compute());
  const s = stat ?? diffStat(lines());
  return { kind: "patch", path, added: s.added, removed: s.removed, note, lines };
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

function pathOnly(input: Record<string, unknown>): ToolChange | null {
  const p = inputPath(input);
  return p === null ? null : { kind: "paths", paths: [{ path: p, kind: null }] };
}

/**
 * What a completed file-changing tool call carries (docs/reference/events-and-rendering.md §8): the patch itself (Edit family, Write family, cursor
 * `diffString`), only paths (codex `file_change`, antigravity, an Edit without new text), or null for other tools.
 */
export function toolChange(
  name: string,
  input: Record<string, unknown>,
  meta: Record<string, unknown> | null,
): ToolChange | null {
  if (name === "file_change") {
    const changes = Array.isArray(input.changes) ? input.changes : [];
    const paths: PathChange[] = [];
    for (const c of changes) {
      if (c === null || typeof c !== "object") continue;
      const rec = c as Record<string, unknown>;
      const p = str(rec.path);
      if (p !== null) paths.push({ path: p, kind: str(rec.kind) });
    }
    return paths.length ? { kind: "paths", paths } : null;
  }
  const diffString = meta ? str(meta.diffString) : null;
  if (diffString !== null) {
    const added = typeof meta?.linesAdded === "number" ? meta.linesAdded : null;
    const removed = typeof meta?.linesRemoved === "number" ? meta.linesRemoved : null;
    const path = inputPath(input) ?? (meta ? inputPath(meta) : null);
    if (added !== null && removed !== null) {
      return patch(path, () => parseUnifiedDiff(diffString), null, { added, removed });
    }
    return patch(path, () => parseUnifiedDiff(diffString), null);
  }
  if (EDIT_FAMILY.has(name)) {
    const path = inputPath(input);
    if (name === "MultiEdit" && Array.isArray(input.edits)) {
      const edits = input.edits.filter((e): e is Record<string, unknown> => e !== null && typeof e === "object");
      if (edits.length === 0 || !edits.every((e) => typeof e.new_string === "string")) return pathOnly(input);
      const all = edits.some((e) => e.replace_all === true);
      return patch(
        path,
        () => edits.flatMap((e) => trimContext(lineDiff(str(e.old_string) ?? "", str(e.new_string) ?? ""))),
        all ? "(all occurrences)" : null,
      );
    }
    const next = str(input.new_string) ?? str(input.new_source);
    if (next === null) return pathOnly(input);
    const prev = str(input.old_string) ?? str(input.old_source) ?? "";
    return patch(
      path,
      () => trimContext(lineDiff(prev, next)),
      input.replace_all === true ? "(all occurrences)" : null,
    );
  }
  if (WRITE_FAMILY.has(name)) {
    const content = str(input.content);
    if (content === null) return pathOnly(input);
    return patch(inputPath(input), () => lineDiff("", content), null);
  }
  if (PATH_ONLY.has(name)) return pathOnly(input);
  return null;
}
