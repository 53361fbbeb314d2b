/** The enforced contract: amendment records folded over the packet contract, and the contract diff (docs/reference/contract.md §10). */
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { storePaths } from "../store/paths.ts";
import { canonicalJson } from "./canonical.ts";
import { isRecord } from "../util/is_record.ts";
import type { AmendmentRecord, Contract } from "./types.ts";
import { RunFailedError } from "../errors.ts";
import type { Prompt } from "../packet/mod.ts";
import { persistedEffect } from "./persisted.ts";
import { packetContract, wrap } from "./packet_contract.ts";

export { packetContract };

/** Read `<store>/amendments/<prompt>.jsonl`; lines without a known operation or a clause are skipped. */
export async function readAmendments(storeRoot: string, promptId: string): Promise<AmendmentRecord[]> {
  const path = storePaths(storeRoot).amendmentsFile(promptId);
  const text = await readStoreTextOrNull(path);
  if (text === null) return [];
  const out: AmendmentRecord[] = [];
  const lines = text.split("\n");
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    // A last line without its newline is a write cut short (the command's intent settles it, src/control/
    // amend_intent.ts); any other line that is not a record would drop a check without a word.
    const torn = i === lines.length - 1;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch (e) {
      if (torn || tornThenWritten(line, lines, i)) continue;
      throw invalidAmendments(path, i + 1, `not JSON (${(e as Error).message})`);
    }
    if (
      r === null || typeof r !== "object" || Array.isArray(r) ||
      typeof (r as AmendmentRecord).clause !== "string" ||
      !["add", "drop", "replace", "remove"].includes((r as AmendmentRecord).operation)
    ) {
      throw invalidAmendments(path, i + 1, "not an amendment record (needs a clause and an operation)");
    }
    out.push(r as AmendmentRecord);
  }
  return out;
}

/**
 * Whether line `i`, which is not JSON, is a write cut short that was then written whole: a later line starts with it
 * (a cut in the middle of a character leaves U+FFFD at its end, dropped here). A crash mid-append leaves the torn
 * line; the next append ends it with a newline (src/util/safe_fs.ts), and the command's intent, settled before the
 * next amendment is written (src/control/amend_intent.ts), writes the same record again, byte for byte. Any other
 * line that is not a record is an error.
 */
function tornThenWritten(line: string, lines: readonly string[], i: number): boolean {
  const cut = line.replace(/\uFFFD+$/, "");
  if (cut.trim() === "") return false;
  for (let j = i + 1; j < lines.length; j++) {
    if (lines[j]!.startsWith(cut) && lines[j]!.length > cut.length) return true;
  }
  return false;
}

function invalidAmendments(path: string, line: number, what: string): RunFailedError {
  return new RunFailedError(
    "amendments_store_invalid",
    `${path} line ${line} is ${what}: the amendment it held cannot be enforced, so the prompt's contract is unknown`,
    { hints: [`restore that line from a copy, or remove it knowingly (its check would no longer apply)`] },
  );
}

/**
 * The ids of the prompts that have an amendments file under `<store>/amendments` (any entry named `<id>.jsonl`: what
 * it is, {@link readAmendments} checks), read in one listing; empty when the directory is absent, null when it cannot
 * be listed. A check over a whole packet at a run's start reads the file of these prompts only (a point-in-time view,
 * as one read per prompt is): every other prompt's enforced contract is its packet contract.
 */
export function amendedPromptIds(storeRoot: string): Set<string> | null {
  const ids = new Set<string>();
  try {
    for (const e of Deno.readDirSync(storePaths(storeRoot).amendments)) {
      if (e.name.endsWith(".jsonl")) ids.add(e.name.slice(0, -".jsonl".length));
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return ids;
    return null;
  }
  return ids;
}

/** Fold amendment records over a contract in file order; persisted records are skipped (pure). */
export function foldAmendments(contract: Contract, records: AmendmentRecord[]): Contract {
  const out: Contract = {};
  for (const [k, v] of Object.entries(contract)) out[String(k)] = wrap(v);
  for (const r of records) {
    if (r.persisted === true) continue;
    const entries = Array.isArray(r.entries) ? r.entries : [];
    switch (r.operation) {
      case "add":
        out[r.clause] = [...(out[r.clause] ?? []), ...entries];
        break;
      case "drop":
        delete out[r.clause];
        break;
      case "replace":
        out[r.clause] = [...entries];
        break;
      case "remove": {
        const current = out[r.clause];
        if (current === undefined) break;
        const drop = entries.map(canonicalJson);
        out[r.clause] = current.filter((e) => {
          const i = drop.indexOf(canonicalJson(e));
          if (i < 0) return true;
          drop.splice(i, 1);
          return false;
        });
        break;
      }
    }
  }
  return out;
}

/** The label of a contract entry: strings as written; objects as sorted `key=<json value>` pairs. */
export function entryLabel(entry: unknown): string {
  if (typeof entry === "string") return entry;
  if (isRecord(entry)) {
    return Object.keys(entry).sort().map((k) => `${k}=${canonicalJson(entry[k])}`).join(" ");
  }
  return canonicalJson(entry);
}

function multisetMinus(a: unknown[], b: unknown[]): unknown[] {
  const pool = b.map(canonicalJson);
  const out: unknown[] = [];
  for (const e of a) {
    const i = pool.indexOf(canonicalJson(e));
    if (i >= 0) pool.splice(i, 1);
    else out.push(e);
  }
  return out;
}

/** One line of the contract diff. */
export interface ContractDiffLine {
  change: "same" | "removed" | "added";
  clause: string;
  entry: string;
}

/** The contract diff of docs/reference/contract.md §10: per clause (alphabetical) `same`, then `removed`, then `added` entries. */
export function contractDiff(packet: Contract, enforced: Contract): ContractDiffLine[] {
  const clauses = [...new Set([...Object.keys(packet), ...Object.keys(enforced)])].sort();
  const out: ContractDiffLine[] = [];
  for (const clause of clauses) {
    const p = wrap(packet[clause]);
    const e = wrap(enforced[clause]);
    const removed = multisetMinus(p, e);
    const added = multisetMinus(e, p);
    const same = multisetMinus(p, removed);
    for (const x of same) out.push({ change: "same", clause, entry: entryLabel(x) });
    for (const x of removed) out.push({ change: "removed", clause, entry: entryLabel(x) });
    for (const x of added) out.push({ change: "added", clause, entry: entryLabel(x) });
  }
  return out;
}

/**
 * The enforced contract of a prompt on a store root, with the amendment records in effect: run-local ones, and
 * persisted ones — whose change is in the prompt as loaded, or written back after a live run loaded it (then folded
 * here, see src/contract/persisted.ts). Every record listed is on the result, the report and the commit trailer.
 */
export async function enforcedContract(
  prompt: Prompt,
  storeRoot: string,
): Promise<{ contract: Contract; amendments: AmendmentRecord[] }> {
  const records = await readAmendments(storeRoot, prompt.id);
  const effect = await persistedEffect(prompt, records);
  const fold = records.map((r) => (effect.pending.has(r.id) ? { ...r, persisted: false } : r));
  const inEffect = records.filter((r) => r.persisted !== true || effect.visible.has(r.id));
  return { contract: foldAmendments(packetContract(prompt), fold), amendments: inEffect };
}
