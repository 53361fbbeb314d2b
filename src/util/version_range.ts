/**
 * Version requirements in the syntax the sdk's manifests use (docs/reference/workspace.md §1.1): clauses
 * `OP VERSION` joined by `and` / `or` (`and` binds tighter), OP one of `==` `!=` `>` `>=` `<` `<=` `~>` (none = `==`).
 * Versions are `MAJOR.MINOR.PATCH[-PRE][+BUILD]`; `~>` also takes `MAJOR.MINOR`. Pure; no I/O.
 */

/** A parsed version. */
interface Version {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release identifiers (empty for a release). */
  pre: string[];
}

const VERSION_RE = /^(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;
const OPS = ["==", "!=", ">=", "<=", "~>", ">", "<"] as const;
type Op = (typeof OPS)[number];

function parse(text: string, allowShort: boolean): Version | null {
  const m = VERSION_RE.exec(text);
  if (!m || (m[3] === undefined && !allowShort)) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: m[3] === undefined ? -1 : Number(m[3]),
    pre: m[4] ? m[4].split(".") : [],
  };
}

function comparePre(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!, y = b[i]!;
    if (x === y) continue;
    const nx = /^\d+$/.test(x), ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || Math.max(a.patch, 0) - Math.max(b.patch, 0) ||
    comparePre(a.pre, b.pre);
}

function holds(v: Version, op: Op, r: Version): boolean {
  const c = compare(v, r);
  switch (op) {
    case "==":
      return c === 0;
    case "!=":
      return c !== 0;
    case ">":
      return c > 0;
    case ">=":
      return c >= 0;
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case "~>": {
      // `~> 1.2` = `>= 1.2.0 and < 2.0.0`; `~> 1.2.3` = `>= 1.2.3 and < 1.3.0` (pre-releases of the bound excluded).
      const upper: Version = r.patch < 0
        ? { major: r.major + 1, minor: 0, patch: 0, pre: ["0"] }
        : { major: r.major, minor: r.minor + 1, patch: 0, pre: ["0"] };
      return c >= 0 && compare(v, upper) < 0;
    }
  }
}

interface Clause {
  op: Op;
  version: Version;
}

/** A parsed requirement: alternatives (`or`) of conjunctions (`and`). */
export type VersionRequirement = Clause[][];

/** Parse a requirement; returns the problem as a string when it is not one. */
export function parseRequirement(text: string): VersionRequirement | string {
  const alternatives = text.trim().split(/\s+or\s+/);
  const out: VersionRequirement = [];
  for (const alt of alternatives) {
    const clauses: Clause[] = [];
    for (const raw of alt.split(/\s+and\s+/)) {
      const s = raw.trim();
      const op = OPS.find((o) => s.startsWith(o)) ?? "==";
      const rest = s.slice(s.startsWith(op) ? op.length : 0).trim();
      const version = parse(rest, op === "~>");
      if (!version) return `"${s}" is not OP VERSION (OP one of ${OPS.join(" ")}; VERSION like 0.13.0)`;
      clauses.push({ op, version });
    }
    out.push(clauses);
  }
  return out;
}

/** Whether `version` (`MAJOR.MINOR.PATCH`) satisfies a parsed requirement. */
export function satisfies(version: string, req: VersionRequirement): boolean {
  const v = parse(version, false);
  if (!v) throw new Error(`not a version: ${version}`);
  return req.some((alt) => alt.every((c) => holds(v, c.op, c.version)));
}
