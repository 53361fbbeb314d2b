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
  if (!FENCE.test(firstLine)) return { yaml: null, body: src, yamlStartLine: 0 };
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
