/** Text helpers shared by the renderers: width-aware truncation, short model names, sizes and paths. */
import { textWidth } from "./text_width.ts";

// Only non-ASCII text needs the (slower) width computation.
// deno-lint-ignore no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/** Display width of text in terminal columns (East Asian wide characters and emoji count 2). */
export function displayWidth(text: string): number {
  return NON_ASCII.test(text) ? textWidth(text) : text.length;
}

/** Truncate text to at most `max` columns, ending in `…` when shortened. */
export function truncate(text: string, max: number): string {
  if (!NON_ASCII.test(text)) return text.length <= max ? text : text.slice(0, Math.max(0, max - 1)) + "…";
  if (textWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  for (const ch of text) {
    const w = textWidth(ch);
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return out + "…";
}

/** Pad text with spaces to `width` columns (never truncates). */
export function padEnd(text: string, width: number): string {
  const w = displayWidth(text);
  return w >= width ? text : text + " ".repeat(width - w);
}

/** Collapse line breaks and runs of whitespace to single spaces, then truncate. */
export function oneLine(text: string, max: number): string {
  const flat = /[\r\n\t]/.test(text) ? text.replace(/\s+/g, " ").trim() : text;
  return truncate(flat, max);
}

/** The short model name of compact mode: strips `claude-` / `anthropic.` and keeps three `-` parts. */
export function shortModel(model: string): string {
  let m = model;
  if (m.startsWith("anthropic.")) m = m.slice("anthropic.".length);
  if (m.startsWith("claude-")) m = m.slice("claude-".length);
  return m.split("-").slice(0, 3).join("-");
}

/** Studio size: `812 chars`, `1.2k chars`, `12k chars`. */
export function formatSize(chars: number): string {
  if (chars < 1000) return chars === 1 ? "1 char" : `${chars} chars`;
  if (chars < 10_000) return `${(Math.round(chars / 100) / 10).toFixed(1)}k chars`;
  return `${Math.round(chars / 1000)}k chars`;
}

/** Studio path: paths longer than 60 characters become `first/…/last/two`. */
export function shortPath(path: string): string {
  if (path.length <= 60) return path;
  const parts = path.split("/");
  if (parts.length <= 3) return truncate(path, 60);
  const first = parts[0] === "" ? `/${parts[1]}` : parts[0];
  return `${first}/…/${parts.slice(-2).join("/")}`;
}

/** Lines of text where a final newline ends the last line (`""` → [], `"a\n"` → ["a"]). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Non-blank lines of tool output, with trailing `\r` removed. */
export function nonBlankLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() !== "") out.push(line);
  }
  return out;
}

/** `1 line`, `2 lines`, `0 lines`: a count with its noun, plural unless the count is 1. */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}
