/** `yaml` and `json` (docs/reference/contract.md §3, §3.2): parse checks and structural assertions on data files. */
import { parseYaml } from "../../util/yaml.ts";
import { type ClauseEnv, errorMessage, fail, firstLine, makeItem, pass, readText, resolveEntry } from "./_common.ts";
import { isRecord } from "../entries.ts";
import type { ReportItem } from "../types.ts";

/** `map`, `list` or `scalar` for a parsed value. */
function rootType(v: unknown): "map" | "list" | "scalar" {
  return Array.isArray(v) ? "list" : isRecord(v) ? "map" : "scalar";
}

/** `yaml`: parses; root type matches if given. Extra field `root` (actual type). */
export async function checkYaml(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("yaml", "yaml", entry, env, id);
  if (!r.ok) return r.item;
  const want = isRecord(entry) && typeof entry.root === "string" ? entry.root : null;
  const read = await readText(r.ref.resolved_path);
  if (!read.ok) return makeItem(r.head, read.verdict);
  let value: unknown;
  try {
    value = parseYaml(read.text);
  } catch (e) {
    return makeItem(r.head, fail(`YAML parse failed: ${firstLine(errorMessage(e))}`));
  }
  const root = rootType(value);
  const verdict = want !== null && want !== root ? fail(`expected root ${want}, got ${root}`) : pass();
  return makeItem(r.head, verdict, { root });
}

/** Traverse a dot path through objects only; `undefined` when any step is absent. */
export function dotGet(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split(".")) {
    if (!isRecord(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0) ||
    (isRecord(v) && Object.keys(v).length === 0);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The problems of docs/reference/contract.md §3.2 for a parsed JSON document and an entry (pure). */
export function jsonProblems(doc: unknown, entry: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const root = entry.root;
  if ((root === "map" || root === "list") && rootType(doc) !== root) problems.push(`root is not ${root}`);
  for (const p of Array.isArray(entry.required_paths) ? entry.required_paths.map(String) : []) {
    if (dotGet(doc, p) === undefined) problems.push(`missing path ${p}`);
  }
  for (const p of Array.isArray(entry.non_empty_paths) ? entry.non_empty_paths.map(String) : []) {
    if (isEmptyValue(dotGet(doc, p))) problems.push(`empty path ${p}`);
  }
  if (isRecord(entry.array_items_require)) {
    for (const [p, keysRaw] of Object.entries(entry.array_items_require)) {
      const keys = Array.isArray(keysRaw) ? keysRaw.map(String) : [];
      const arr = dotGet(doc, p);
      if (!Array.isArray(arr)) {
        problems.push(`${p} is not an array`);
        continue;
      }
      const bad = arr.filter((it) => !isRecord(it) || keys.some((k) => !Object.hasOwn(it, k))).length;
      if (bad > 0) problems.push(`${p} has ${bad} item(s) missing required keys`);
    }
  }
  for (const m of Array.isArray(entry.array_none_match) ? entry.array_none_match : []) {
    if (!isRecord(m)) continue;
    const p = String(m.path);
    const field = String(m.field);
    const arr = dotGet(doc, p);
    if (!Array.isArray(arr)) {
      problems.push(`${p} is not an array`);
      continue;
    }
    const hits = arr.filter((it) => isRecord(it) && Object.hasOwn(it, field) && deepEqual(it[field], m.equals)).length;
    const shown = typeof m.equals === "string" ? m.equals : JSON.stringify(m.equals);
    if (hits > 0) problems.push(`${p} has ${hits} item(s) where ${field}="${shown}"`);
  }
  return problems;
}

/** `json`: parses and satisfies the structural assertions. Extra field `problems[]`. */
export async function checkJson(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("json", "json", entry, env, id);
  if (!r.ok) return r.item;
  const read = await readText(r.ref.resolved_path);
  if (!read.ok) return makeItem(r.head, read.verdict, { problems: [] });
  let doc: unknown;
  try {
    doc = JSON.parse(read.text);
  } catch (e) {
    return makeItem(r.head, fail(`JSON read/parse failed: ${errorMessage(e)}`), { problems: [] });
  }
  const problems = jsonProblems(doc, isRecord(entry) ? entry : {});
  return makeItem(r.head, problems.length ? fail(problems.join("; ")) : pass(), { problems });
}
