/**
 * Persisted amendments (docs/amendments.md): which `persisted: true` records are in effect for a prompt as loaded,
 * which of them a live runner still has to fold (its packet was loaded before the write-back), and the packet
 * fingerprint chain they recorded, so a run resumes across its own persisted amendments.
 */
import { sha256Digest } from "./canonical.ts";
import type { AmendmentRecord } from "./types.ts";
import type { Prompt } from "../packet/mod.ts";
import { parseFrontMatter } from "../packet/front_matter.ts";
import { normalizeVerify } from "../packet/prompt_file.ts";
import { parseJsonLines, readTextOrNull } from "../util/fs.ts";
import { storePaths } from "../store/paths.ts";

/** The digest of a prompt's `verify:` map as the loader normalises it. */
export async function verifyDigest(verify: Record<string, unknown[]>): Promise<string> {
  return await sha256Digest(verify);
}

/** The `verify:` map of a prompt file's text as the loader would read it (`{}` when absent or not a map). */
export async function verifyOfText(text: string): Promise<Record<string, unknown[]>> {
  const fm = (await parseFrontMatter(text)).data;
  const v = fm.verify;
  return v !== null && typeof v === "object" && !Array.isArray(v) ? normalizeVerify(v as Record<string, unknown>) : {};
}

/**
 * The digest of the prompt file's `verify:` on disk, or null. Deliberately tolerant: null reads as "the prompt is
 * current" (every persisted record shown), the same view as when the file was loaded; the loader reports a prompt
 * file that cannot be read or parsed.
 */
export async function diskDigest(file: string): Promise<string | null> {
  try {
    return await verifyDigest(await verifyOfText(await Deno.readTextFile(file)));
  } catch {
    return null;
  }
}

/** Which persisted records are in effect for a prompt as loaded (`visible`) and which still need folding. */
export interface PersistedEffect {
  /** Ids of persisted records whose change is in the loaded prompt, or still to be folded: shown, listed, trailed. */
  visible: Set<string>;
  /** Ids of persisted records written back after the prompt was loaded (a live run): folded like run-local ones. */
  pending: Set<string>;
}

/**
 * Resolve the persisted records of one prompt. When the prompt as loaded equals its file on disk, every persisted
 * record is in effect (its change is in the file). When the file has moved on (a live run loaded it earlier): records
 * without digests and those up to the last whose `verify_digest_after` equals the loaded `verify:` are in the loaded
 * contract; if the file moved on by exactly a chain of later records, those are pending (folded). A file changed by
 * anything else is not followed: the run enforces what it loaded, and the next run sees a changed packet.
 */
export async function persistedEffect(
  prompt: Pick<Prompt, "verify" | "file">,
  records: AmendmentRecord[],
): Promise<PersistedEffect> {
  const persisted = records.filter((r) => r.persisted === true);
  const visible = new Set<string>();
  const pending = new Set<string>();
  if (persisted.length === 0) return { visible, pending };
  const loaded = await verifyDigest(prompt.verify);
  const disk = await diskDigest(prompt.file);
  if (disk === null || disk === loaded) {
    // The prompt is current: every persisted amendment is part of its file's history and is shown.
    for (const r of persisted) visible.add(r.id);
    return { visible, pending };
  }
  // A live run loaded the prompt before the file changed: show what its loaded contract has, fold what it lacks.
  let k = -1;
  persisted.forEach((r, i) => {
    if (r.verify_digest_after === loaded) k = i;
  });
  persisted.forEach((r, i) => {
    if (i <= k || r.verify_digest_after === undefined) visible.add(r.id);
  });
  let d = loaded;
  const chain: string[] = [];
  for (const r of persisted.slice(k + 1)) {
    if (r.verify_digest_before === d && typeof r.verify_digest_after === "string") {
      chain.push(r.id);
      d = r.verify_digest_after;
    }
  }
  if (d !== disk) return { visible, pending };
  for (const id of chain) {
    pending.add(id);
    visible.add(id);
  }
  return { visible, pending };
}

/**
 * The persisted amendments (any prompt) that lead from the fingerprint a run recorded to the packet's current one,
 * in order; null when no such chain exists (the packet changed in some other way).
 */
export async function fingerprintChain(storeRoot: string, from: string, to: string): Promise<AmendmentRecord[] | null> {
  if (from === to) return [];
  const dir = storePaths(storeRoot).amendments;
  const edges: AmendmentRecord[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.endsWith(".jsonl")) continue;
      const text = await readTextOrNull(`${dir}/${e.name}`);
      if (text === null) continue;
      for (const r of parseJsonLines<AmendmentRecord>(text)) {
        if (r.persisted === true && r.packet_fingerprint_before && r.packet_fingerprint_after) edges.push(r);
      }
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  edges.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const chain: AmendmentRecord[] = [];
  let at = from;
  const used = new Set<string>();
  for (;;) {
    const next = edges.find((r) => r.packet_fingerprint_before === at && !used.has(r.id));
    if (!next) return null;
    used.add(next.id);
    chain.push(next);
    at = next.packet_fingerprint_after!;
    if (at === to) return chain;
  }
}
