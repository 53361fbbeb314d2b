/**
 * `persist: true` (docs/reference/control-plane.md §9.6): rewrite only the top-level `verify` block of a prompt file's front
 * matter — from its key line to the next top-level key or the closing `---` (inserted before the closing `---` when
 * absent) — keeping every other byte, comment and the body unchanged. The write is atomic.
 */
import { stringifyYaml } from "../util/yaml.ts";
import { atomicWriteText } from "../util/fs.ts";

/** The `verify:` block text (with trailing newline) for a contract map. */
function verifyBlock(verify: Record<string, unknown[]>, eol = "\n"): string {
  if (Object.keys(verify).length === 0) return `verify: {}${eol}`;
  const text = stringifyYaml({ verify });
  return eol === "\n" ? text : text.replaceAll("\n", eol);
}

/**
 * Replace the `verify` block of a prompt file's text; pure. Throws `SyntaxError` when the text has no front matter.
 */
export function replaceVerifyBlock(text: string, verify: Record<string, unknown[]>): string {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const src = text.slice(bom.length);
  const lines = src.split(/(?<=\n)/); // keep each line's terminator
  if (!/^---\s*$/.test(lines[0] ?? "")) throw new SyntaxError("the prompt file has no front matter");
  const close = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l));
  if (close < 0) throw new SyntaxError("the prompt file's front matter is not closed with ---");
  const eol = (lines[0] ?? "").endsWith("\r\n") ? "\r\n" : "\n";
  const block = verifyBlock(verify, eol);
  const start = lines.findIndex((l, i) => i > 0 && i < close && /^verify\s*:/.test(l));
  if (start < 0) {
    return bom + [...lines.slice(0, close), block, ...lines.slice(close)].join("");
  }
  let end = start + 1; // exclusive: first line after the block
  // A comment at column 0 still belongs to the block when indented lines of the block follow it (YAML lets a
  // comment sit anywhere); stopping there would leave the rest of the old block behind the new one.
  while (end < close && (!/^\S/.test(lines[end]!) || (lines[end]!.startsWith("#") && blockGoesOn(lines, end, close)))) {
    end++;
  }
  // Blank lines that separate the block from the next key stay where they are.
  while (end - 1 > start && lines[end - 1]!.trim() === "") end--;
  return bom + [...lines.slice(0, start), block, ...lines.slice(end)].join("");
}

/** Whether the first line after `i` (before `close`) that is neither blank nor a comment is indented. */
function blockGoesOn(lines: string[], i: number, close: number): boolean {
  for (let j = i + 1; j < close; j++) {
    const l = lines[j]!;
    if (l.trim() === "" || /^\s*#/.test(l)) continue;
    return /^\s/.test(l);
  }
  return false;
}

/** Rewrite the prompt file's `verify` block atomically. */
export async function persistVerify(file: string, verify: Record<string, unknown[]>): Promise<void> {
  const text = await Deno.readTextFile(file);
  const mode = (await Deno.stat(file)).mode;
  await atomicWriteText(file, replaceVerifyBlock(text, verify));
  if (mode !== null) await Deno.chmod(file, mode & 0o7777).catch(() => {});
}
