/**
 * The shared front-matter file format of manifests, prompts and profiles (docs/reference/packet.md §2): a `---` line, a YAML
 * mapping, a closing `---` line, then the markdown body.
 */
import { parseYaml, YamlSyntaxError } from "../util/yaml.ts";

/** A parsed front-matter file. */
export interface FrontMatterFile {
  /** The decoded mapping; keys are strings at every depth. Empty when the file has no front matter. */
  data: Record<string, unknown>;
  /** Everything after the closing `---` line (one newline stripped), or the whole file without front matter. */
  body: string;
  /** Whether the file started with a `---` line. */
  hasFrontMatter: boolean;
}

/** Why a front matter block could not be decoded; line and column are 1-based positions in the whole file. */
export class FrontMatterSyntaxError extends SyntaxError {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(message);
    this.name = "FrontMatterSyntaxError";
  }
}

const FENCE = /^---\r?$/;

/** Split a file into its front matter text (null when absent), the body, and the line the YAML starts on. */
function splitFrontMatter(text: string): { yaml: string | null; body: string; yamlStartLine: number } {
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

/** Convert a decoded YAML value so that every mapping key is a string, at every depth. */
function stringKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stringKeys);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = stringKeys(v);
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = stringKeys(v);
    return out;
  }
  return value;
}

/**
 * Parse a front-matter file. Throws {@link FrontMatterSyntaxError} (with 1-based line and column in the whole
 * file) when the YAML does not decode or is not a mapping.
 */
export function parseFrontMatter(text: string): FrontMatterFile {
  const { yaml, body, yamlStartLine } = splitFrontMatter(text);
  if (yaml === null) return { data: {}, body, hasFrontMatter: false };
  let decoded: unknown;
  try {
    decoded = parseYaml(yaml);
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw new FrontMatterSyntaxError(e.reason, e.line + yamlStartLine - 1, e.column);
    throw e;
  }
  const value = stringKeys(decoded);
  if (value === null || value === undefined) return { data: {}, body, hasFrontMatter: true };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new FrontMatterSyntaxError(
      `front matter must be a YAML mapping, got ${Array.isArray(value) ? "a list" : typeof value}`,
      yamlStartLine,
      1,
    );
  }
  return { data: value as Record<string, unknown>, body, hasFrontMatter: true };
}
