/**
 * The text split of a front-matter file (docs/reference/packet.md §2): the `---` fences, the YAML text between them and
 * the body after them — without decoding the YAML (./front_matter.ts decodes it), so a reader that needs only a body
 * never loads the YAML parser.
 */

/** Why a front matter block could not be decoded; line and column are 1-based positions in the whole file. */
export class FrontMatterSyntaxError extends SyntaxError {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(message);
    this.name = "FrontMatterSyntaxError";
  }
}

const FENCE = /^---\r?$/;

/** Split a file into its front matter text (null when absent), the body, and the line the YAML starts on. */
export function splitFrontMatter(text: string): { yaml: string | null; body: string; yamlStartLine: number } {
  const src = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const firstEnd = src.indexOf("\n");
  const firstLine = firstEnd < 0 ? src : src.slice(0, firstEnd);
  if (!FENCE.test(firstLine)) {
    misplacedFence(src);
    return { yaml: null, body: src, yamlStartLine: 0 };
  }
  let pos = firstEnd < 0 ? src.length : firstEnd + 1;
  const start = pos;
  while (pos < src.length) {
    const end = src.indexOf("\n", pos);
    const line = end < 0 ? src.slice(pos) : src.slice(pos, end);
    if (FENCE.test(line)) {
      const body = end < 0 ? "" : src.slice(end + 1);
      return { yaml: src.slice(start, pos), body, yamlStartLine: 2 };
    }
    if (end < 0) break;
    pos = end + 1;
  }
  throw new FrontMatterSyntaxError('front matter is not closed: no line that is exactly "---"', 1, 1);
}

/**
 * A file that does not start with the fence but whose first non-blank line is `---` (maybe with trailing spaces) and
 * that has a later fence was meant to have front matter: read as a body, its `verify:` (and every other key) would
 * silently be dropped and the YAML sent to the agent. Refused, naming the line.
 */
function misplacedFence(src: string): void {
  const lines = src.split("\n");
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (i >= lines.length || lines[i]!.trim() !== "---") return;
  if (!lines.slice(i + 1).some((l) => l.trim() === "---")) return;
  const why = i > 0
    ? `front matter must start on line 1, but the file starts with ${i} blank line${i > 1 ? "s" : ""}`
    : `the first line ${JSON.stringify(lines[0]!.replace(/\r$/, ""))} is not exactly "---" (trailing spaces?)`;
  throw new FrontMatterSyntaxError(`${why}; its front matter would be read as the body and ignored`, i + 1, 1);
}
