/**
 * The shared front-matter file format of manifests, prompts and profiles (docs/reference/packet.md §2): a `---` line, a YAML
 * mapping, a closing `---` line, then the markdown body. The YAML is read by the subset reader
 * (src/util/yaml_subset.ts) when it can, and by js-yaml, loaded only then, when it cannot: reading a packet written
 * in plain YAML does not load js-yaml (docs/bench.md, "Cold start").
 */
import { NOT_SUBSET, readYamlSubset } from "../util/yaml_subset.ts";
import { FrontMatterSyntaxError, splitFrontMatter } from "./front_matter_split.ts";

export { FrontMatterSyntaxError } from "./front_matter_split.ts";

/** A parsed front-matter file. */
export interface FrontMatterFile {
  /** The decoded mapping; keys are strings at every depth. Empty when the file has no front matter. */
  data: Record<string, unknown>;
  /** Everything after the closing `---` line (one newline stripped), or the whole file without front matter. */
  body: string;
  /** Whether the file started with a `---` line. */
  hasFrontMatter: boolean;
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
export async function parseFrontMatter(text: string): Promise<FrontMatterFile> {
  const { yaml, body, yamlStartLine } = splitFrontMatter(text);
  if (yaml === null) return { data: {}, body, hasFrontMatter: false };
  // The subset reader's mappings are plain objects with string keys already.
  const read = readYamlSubset(yaml);
  if (read !== NOT_SUBSET) return { data: read ?? {}, body, hasFrontMatter: true };
  const { parseYaml, YamlSyntaxError } = await import("../util/yaml.ts");
  let decoded: unknown;
  let value: unknown;
  try {
    decoded = parseYaml(yaml);
    value = stringKeys(decoded);
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw new FrontMatterSyntaxError(e.reason, e.line + yamlStartLine - 1, e.column);
    // A document nested deeper than the parser's stack (thousands of `[` or `-` levels) is not front matter anyone
    // wrote on purpose: a packet error naming the file, not an internal error.
    if (e instanceof RangeError) {
      throw new FrontMatterSyntaxError("the YAML is nested too deeply to read", yamlStartLine, 1);
    }
    throw e;
  }
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
