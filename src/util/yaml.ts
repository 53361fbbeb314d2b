/**
 * The one YAML entry point. Uses `js-yaml` (a single ES module, ~4 ms to load) with the YAML 1.2 core schema:
 * no timestamps-to-Date, no merge keys, duplicate keys refused. See README "Dependencies" for why not `yaml`.
 */
// @ts-types="@types/js-yaml"
import { CORE_SCHEMA, dump, load, YAMLException } from "js-yaml";

/** A YAML syntax error with a 1-based line and column relative to the parsed text. */
export class YamlSyntaxError extends SyntaxError {
  constructor(readonly reason: string, readonly line: number, readonly column: number) {
    super(`${reason} (line ${line}, column ${column})`);
    this.name = "YamlSyntaxError";
  }
}

/** Parse YAML text; throws {@link YamlSyntaxError}. Empty text gives `null`. */
export function parseYaml(text: string): unknown {
  // js-yaml refuses a document with no content; an empty front matter is simply empty.
  if (!/^[ \t]*[^#\s]/m.test(text)) return null;
  try {
    const v = load(text, { schema: CORE_SCHEMA, json: false });
    return v === undefined ? null : v;
  } catch (e) {
    if (e instanceof YAMLException) {
      const mark = e.mark as { line?: number; column?: number } | undefined;
      throw new YamlSyntaxError(e.reason || e.message.split("\n")[0]!, (mark?.line ?? 0) + 1, (mark?.column ?? 0) + 1);
    }
    throw e;
  }
}

/** Serialise a value as block YAML (no line folding, no anchors). */
export function stringifyYaml(value: unknown): string {
  return dump(value, { schema: CORE_SCHEMA, lineWidth: -1, noRefs: true, quotingType: '"' });
}
