/** `contains` and `matches` (docs/reference/contract.md §3): literal text and regular-expression checks on one file. */
import { type ClauseEnv, fail, fault, makeItem, pass, readBytes, regexTimeout, resolveEntry } from "./_common.ts";
import { testGuarded } from "../regex_guard.ts";
import { isRecord, pick } from "../entries.ts";
import { compilePattern } from "./patterns.ts";
import type { ReportItem } from "../types.ts";

/** `contains`: file readable and contains `text` byte-for-byte. A bare string means `text: ""`. */
export async function checkContains(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("contains", "contains", entry, env, id);
  if (!r.ok) return r.item;
  const raw = isRecord(entry) ? pick(entry, "text", "contains") : "";
  const text = typeof raw === "string" ? raw : "";
  const read = await readBytes(r.ref.resolved_path);
  if (!read.ok) return makeItem(r.head, read.verdict);
  const found = text === "" || includesBytes(read.bytes, new TextEncoder().encode(text));
  return makeItem(r.head, found ? pass() : fail(`missing text ${JSON.stringify(text.slice(0, 80))}`));
}

/** Whether `needle` (non-empty) occurs in `hay`: the native first-byte scan, then a compare at each candidate. */
export function includesBytes(hay: Uint8Array, needle: Uint8Array): boolean {
  const first = needle[0]!;
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first); i >= 0 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}

/** `matches`: file readable and the pattern (`u` flag) matches anywhere. */
export async function checkMatches(entry: unknown, env: ClauseEnv, id: string): Promise<ReportItem> {
  const r = resolveEntry("matches", "matches", entry, env, id);
  if (!r.ok) return r.item;
  const pattern = String(isRecord(entry) ? pick(entry, "pattern", "matches") : "");
  const re = compilePattern(pattern);
  if (typeof re === "string") return makeItem(r.head, fail(`invalid pattern: ${re}`));
  const read = await readBytes(r.ref.resolved_path);
  if (!read.ok) return makeItem(r.head, read.verdict);
  const text = new TextDecoder().decode(read.bytes);
  const found = await testGuarded(pattern, "u", text);
  if (found === "timeout") return makeItem(r.head, fault(regexTimeout(pattern), "verifier_timeout"));
  return makeItem(r.head, found ? pass() : fail(`no match for /${pattern}/`));
}
