/**
 * A reader for the plain subset of YAML that packet front matter is almost always written in, so that reading a
 * packet does not load js-yaml (its load and first parse were the largest part of `plan`'s and `packet lint`'s cold
 * start, docs/bench.md). It answers only where it is sure to give exactly what js-yaml gives with the core schema
 * (src/util/yaml.ts), and declines ({@link NOT_SUBSET}) everything else, valid or not: the caller then parses with
 * js-yaml, which also reports every syntax error. tests/util/yaml_subset_test.ts holds it to js-yaml's result on
 * generated documents, hostile variations of them and every front matter in the repository.
 *
 * Read: a block mapping at the top; block mappings and sequences nested by spaces (a sequence may sit at its key's
 * indentation; `- key: value` starts a mapping); flow `[…]` and `{…}` (nested, over several lines, a trailing comma);
 * double-quoted strings with the escapes `\\ \" \/ \n \t \r \xXX \uXXXX`, single-quoted strings, plain scalars
 * (null, true/false, decimal integers and fractions, the rest strings); literal block scalars `|` and `|-`; comments.
 * Declined: tabs, carriage returns and control characters, anchors, aliases, tags, `?` keys, folded `>` scalars,
 * multi-line plain or quoted scalars, keys that are not strings or repeat, `__proto__`, numbers in any other form.
 */

/** The reader's answer for text it does not read. */
export const NOT_SUBSET: unique symbol = Symbol("not in the YAML subset");

class Decline extends Error {}

function decline(): never {
  throw new Decline();
}

// What js-yaml refuses or reads specially, and what this reader does not attempt: control characters (newline
// apart), tabs, carriage returns, DEL and C1 controls, BOM and the non-characters, the line and paragraph separators,
// and surrogates (text outside the Basic Multilingual Plane, emoji among it, is left to js-yaml).
// The reader is written with character tests rather than regular expressions where it can: it runs once per process
// on a handful of documents, so compiling each expression would cost more than the matching.
const UNREAD_CHARS =
  // deno-lint-ignore no-control-regex
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/;
// `-0` is 0 to js-yaml's integer reader.
const INT = /^(?:0|-?[1-9][0-9]{0,14})$/;
const FRACTION = /^-?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
// Plain scalars js-yaml might read as a number (any sign, digit or dot first), which this reader leaves to it.
const NUMBER_LIKE = /^[-+.]?[0-9]|^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/;
const NULLS = new Set(["~", "null", "Null", "NULL"]);
const BOOLS = new Map([["true", true], ["True", true], ["TRUE", true], ["false", false], ["False", false], [
  "FALSE",
  false,
]]);
const INDICATORS = "?:,[]{}#&*!|>'\"%@`";

/** Whether a plain scalar would start with an indicator (a `-` may start one when a non-space follows it). */
function indicatorFirst(s: string): boolean {
  if (s[0] === "-") return s.length === 1 || s[1] === " ";
  return s.length > 0 && INDICATORS.includes(s[0]!);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A plain scalar's value under the core schema. */
function plainValue(s: string): unknown {
  if (s.length <= 5) {
    if (NULLS.has(s)) return null;
    const b = BOOLS.get(s);
    if (b !== undefined) return b;
  }
  const c = s.charCodeAt(0);
  // Anything js-yaml might read as a number starts with a sign, a dot or a digit (`.inf`, `-.5`, `0x1`, `1_0`…):
  // plain decimal integers and fractions are read, the rest left to it.
  if (isDigit(c) || c === 45 || c === 43 || c === 46) {
    if (INT.test(s) || FRACTION.test(s)) return Number(s);
    if (NUMBER_LIKE.test(s)) decline();
  }
  return s;
}

function isKeyChar(c: number): boolean {
  // A-Z a-z 0-9 _ . / -
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 95 || c === 46 || c === 47 || c === 45;
}

/** The plain key at the start of `s` (a letter or `_`, then letters, digits, `_./-`; or a decimal integer), or "". */
function plainKeyAt(s: string): string {
  const c = s.charCodeAt(0);
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95) {
    let i = 1;
    while (i < s.length && isKeyChar(s.charCodeAt(i))) i++;
    return s.slice(0, i);
  }
  // A decimal integer key is the number's text (js-yaml reads the number; an object key is its string).
  if (!isDigit(c)) return "";
  let i = 1;
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  if (s[i] !== ":" || i > 15 || (c === 48 && i > 1)) return "";
  return s.slice(0, i);
}

interface Line {
  indent: number;
  /** The line without its indentation. */
  text: string;
}

/** A line with nothing to read: empty, spaces, or a comment. */
function blank(l: Line): boolean {
  return l.text === "" || l.text.charCodeAt(0) === 35;
}

/** `s` without trailing spaces. */
function trimSpaces(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** The number of spaces `s` starts with. */
function spacesAt(s: string): number {
  let i = 0;
  while (s.charCodeAt(i) === 32) i++;
  return i;
}

/** `s` (not starting with `#`) without a trailing ` # comment` and trailing spaces. */
function uncommented(s: string): string {
  const hash = s.indexOf(" #");
  return trimSpaces(hash < 0 ? s : s.slice(0, hash));
}

/** What follows a complete value on its line must be nothing or a comment. */
function requireEnd(rest: string): void {
  const i = spacesAt(rest);
  if (i < rest.length && (rest.charCodeAt(i) !== 35 || (i === 0 && rest.length > 0))) decline();
}

const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "/": "/", n: "\n", t: "\t", r: "\r" };

/** A double-quoted scalar starting at `s[0]`: its value and the text after the closing quote. */
function doubleQuoted(s: string): [string, string] {
  let out = "";
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '"') return [out, s.slice(i + 1)];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = s[i + 1];
    if (e !== undefined && e in ESCAPES) {
      out += ESCAPES[e];
      i++;
      continue;
    }
    const hex = e === "x" ? s.slice(i + 2, i + 4) : e === "u" ? s.slice(i + 2, i + 6) : "";
    if (hex === "" || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== (e === "x" ? 2 : 4)) decline();
    const code = parseInt(hex, 16);
    if (code >= 0xd800 && code <= 0xdfff) decline();
    out += String.fromCharCode(code);
    i += 1 + hex.length;
  }
  return decline(); // not closed on its line: a multi-line scalar
}

/** A single-quoted scalar starting at `s[0]`: its value and the text after the closing quote. */
function singleQuoted(s: string): [string, string] {
  let out = "";
  for (let i = 1; i < s.length; i++) {
    const c = s[i]!;
    if (c !== "'") {
      out += c;
      continue;
    }
    if (s[i + 1] === "'") {
      out += "'";
      i++;
      continue;
    }
    return [out, s.slice(i + 1)];
  }
  return decline();
}

function quoted(s: string): [string, string] {
  return s[0] === '"' ? doubleQuoted(s) : singleQuoted(s);
}

/** A mapping key at the start of `s` followed by `:` and a space or the end: the key and the text after the colon. */
function keyAt(s: string): [string, string] | null {
  let key: string;
  let rest: string;
  if (s[0] === '"' || s[0] === "'") {
    [key, rest] = quoted(s);
  } else {
    key = plainKeyAt(s);
    if (key === "") return null;
    rest = s.slice(key.length);
    if (rest[0] === ":" && rest[1] !== undefined && rest[1] !== " ") return null;
    const value = plainValue(key);
    if (typeof value !== "string" && typeof value !== "number") decline();
  }
  if (rest[0] !== ":") return null;
  if (rest.length > 1 && rest[1] !== " ") return null;
  if (key === "__proto__") decline();
  return [key, rest.slice(1)];
}

function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  if (Object.hasOwn(map, key)) decline();
  map[key] = value;
}

class Reader {
  i = 0;
  constructor(readonly lines: Line[]) {}

  /** The index of the next line with something to read, from `this.i`. */
  next(): number {
    let j = this.i;
    while (j < this.lines.length && blank(this.lines[j]!)) j++;
    return j;
  }

  /** A block node whose first line is the next line with something on it (indented `indent`). */
  block(indent: number): unknown {
    const l = this.lines[this.i]!;
    return l.text === "-" || l.text.startsWith("- ") ? this.sequence(indent, false) : this.mapping(indent);
  }

  mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (;;) {
      this.i = this.next();
      const l = this.lines[this.i];
      if (l === undefined || l.indent < indent) return map;
      if (l.indent > indent) decline();
      const kv = keyAt(l.text);
      if (!kv) decline();
      setKey(map, kv[0], this.valueAfter(kv[1], indent, true));
    }
  }

  sequence(indent: number, atKeyIndent: boolean): unknown[] {
    const seq: unknown[] = [];
    for (;;) {
      this.i = this.next();
      const l = this.lines[this.i];
      if (l === undefined || l.indent < indent) return seq;
      if (l.indent > indent) decline();
      if (l.text !== "-" && !l.text.startsWith("- ")) {
        if (atKeyIndent) return seq; // the next key of the mapping this sequence is a value in
        decline();
      }
      const after = l.text.slice(1);
      const pad = spacesAt(after);
      const item = after.slice(pad);
      if (item.startsWith("- ") || item === "-") decline();
      if (item !== "" && !item.startsWith("#") && keyAt(item)) {
        // `- key: value`: a mapping whose keys are at the column of this first key.
        this.lines[this.i] = { indent: indent + 1 + pad, text: item };
        seq.push(this.mapping(indent + 1 + pad));
        continue;
      }
      seq.push(this.valueAfter(after, indent, false));
    }
  }

  /** The value after a key's colon or a sequence's dash on line `this.i` (its node indented `indent`). */
  valueAfter(after: string, indent: number, inMapping: boolean): unknown {
    const rest = after.slice(spacesAt(after));
    this.i++;
    if (rest === "" || rest.startsWith("#")) {
      if (after !== "" && !after.startsWith(" ")) decline();
      const j = this.next();
      const l = this.lines[j];
      if (l !== undefined && l.indent > indent) {
        this.i = j;
        return this.block(l.indent);
      }
      // A bare `-` is left to js-yaml, which reads one before a less indented `-` as part of that sequence.
      if (!inMapping) decline();
      if (l === undefined || l.indent < indent) return null;
      this.i = j;
      if (l.text === "-" || l.text.startsWith("- ")) return this.sequence(indent, true);
      return null;
    }
    let value: unknown;
    const c = rest[0]!;
    if (c === "|") return this.literal(rest, indent);
    if (c === "[" || c === "{") {
      this.i--;
      value = this.flowValue(rest);
    } else if (c === '"' || c === "'") {
      const [v, tail] = quoted(rest);
      requireEnd(tail);
      value = v;
    } else {
      if (indicatorFirst(rest)) decline();
      const s = uncommented(rest);
      if (s.includes(": ") || s.endsWith(":")) decline();
      value = plainValue(s);
    }
    // A more indented line after a scalar continues it (a multi-line scalar): not read here.
    const l = this.lines[this.next()];
    if (l !== undefined && l.indent > indent) decline();
    return value;
  }

  /** A literal block scalar (`|` or `|-`) whose indicator is `head`, under a node indented `indent`. */
  literal(head: string, indent: number): string {
    const m = /^\|(-?)(?: +(?:#.*)?)?$/.exec(head);
    if (!m) decline();
    const body: string[] = [];
    let content = -1;
    while (this.i < this.lines.length) {
      const l = this.lines[this.i]!;
      if (l.text === "") {
        if (l.indent > 0) decline(); // spaces on an empty line of a block scalar
        body.push("");
        this.i++;
        continue;
      }
      if (content < 0) {
        if (l.indent <= indent) break;
        content = l.indent;
      }
      if (l.indent < content) {
        if (l.indent > indent) decline();
        break;
      }
      body.push(" ".repeat(l.indent - content) + l.text);
      this.i++;
    }
    while (body.length > 0 && body[body.length - 1] === "") {
      body.pop();
      this.i--;
    }
    if (body.length === 0) return "";
    return body.join("\n") + (m[1] === "-" ? "" : "\n");
  }

  /** A flow collection starting at `text` on line `this.i`, continued on the lines after it. */
  flowValue(text: string): unknown {
    const flow = new Flow(this, text);
    const value = flow.value();
    requireEnd(flow.s.slice(flow.p));
    this.i++;
    return value;
  }
}

/** What ends a plain scalar in a flow collection (a `#` ends it too: after a space a comment, else declined). */
const FLOW_STOP = ",[]{}#";

/** A flow collection, read across lines. */
class Flow {
  p = 0;
  constructor(readonly r: Reader, public s: string) {}

  /** Skip spaces and comments, moving to the next line at the end of one. */
  space(): void {
    for (;;) {
      while (this.s[this.p] === " ") this.p++;
      if (this.p < this.s.length && this.s[this.p] !== "#") return;
      if (this.s[this.p] === "#" && this.p > 0 && this.s[this.p - 1] !== " ") return;
      this.r.i++;
      const l = this.r.lines[this.r.i];
      // js-yaml reads a flow collection to its closing bracket at any indentation.
      if (l === undefined) decline();
      this.s = l.text;
      this.p = 0;
    }
  }

  value(): unknown {
    const c = this.s[this.p];
    if (c === "[") return this.sequence();
    if (c === "{") return this.mapping();
    if (c === '"' || c === "'") {
      const [v, tail] = quoted(this.s.slice(this.p));
      this.p = this.s.length - tail.length;
      return v;
    }
    let end = this.p;
    while (end < this.s.length && !FLOW_STOP.includes(this.s[end]!)) end++;
    const plain = trimSpaces(this.s.slice(this.p, end));
    if (plain === "" || indicatorFirst(plain) || plain.includes(":")) decline();
    this.p += plain.length;
    const v = plainValue(plain);
    this.space();
    return v;
  }

  sequence(): unknown[] {
    const out: unknown[] = [];
    this.entries("]", () => out.push(this.value()));
    return out;
  }

  mapping(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.entries("}", () => {
      const kv = keyAt(this.s.slice(this.p));
      if (!kv || kv[1][0] !== " ") decline();
      this.p = this.s.length - kv[1].length;
      this.space();
      setKey(out, kv[0], this.value());
    });
    return out;
  }

  /** Read comma-separated entries from the opening bracket (at `p`) through the matching `close`. */
  entries(close: string, entry: () => void): void {
    this.p++;
    this.space();
    while (this.s[this.p] !== close) {
      entry();
      this.space();
      if (this.s[this.p] === ",") {
        this.p++;
        this.space();
      } else if (this.s[this.p] !== close) decline();
    }
    this.p++;
  }
}

/**
 * Read `text` as YAML if it is in the subset: a mapping (null when nothing but comments), exactly what js-yaml's
 * `load` gives with the core schema; {@link NOT_SUBSET} otherwise.
 */
export function readYamlSubset(text: string): Record<string, unknown> | null | typeof NOT_SUBSET {
  if (UNREAD_CHARS.test(text)) return NOT_SUBSET;
  const lines: Line[] = [];
  for (const raw of text.split("\n")) {
    // Document markers and directives are js-yaml's.
    if (raw.startsWith("---") || raw.startsWith("...") || raw.startsWith("%")) return NOT_SUBSET;
    const indent = spacesAt(raw);
    // A line of spaces is empty (its spaces are checked where they would matter: in a literal block).
    lines.push({ indent, text: indent === raw.length ? "" : raw.slice(indent) });
  }
  const r = new Reader(lines);
  try {
    r.i = r.next();
    if (r.i === lines.length) return null;
    if (lines[r.i]!.indent !== 0) return NOT_SUBSET;
    const map = r.mapping(0);
    return r.next() === lines.length ? map : NOT_SUBSET;
  } catch (e) {
    // Nesting deep enough to exhaust the stack is js-yaml's to answer too.
    if (e instanceof Decline || e instanceof RangeError) return NOT_SUBSET;
    throw e;
  }
}
