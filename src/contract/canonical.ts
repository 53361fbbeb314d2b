/** Canonical JSON (sorted keys) and the contract digest (docs/reference/contract.md §7). */
import { sha256 } from "./sha256.ts";

/** JSON with object keys sorted recursively; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * Digests already computed, by canonical JSON: a prompt's contract is digested by its vacuous probe and again by its
 * verification. Bounded: emptied when full.
 */
const digests = new Map<string, string>();
const DIGEST_MEMO_SIZE = 256;

/** `sha256:<hex>` of the canonical JSON of a value. */
export function sha256Digest(value: unknown): Promise<string> {
  const text = canonicalJson(value);
  const known = digests.get(text);
  if (known !== undefined) return Promise.resolve(known);
  // Hashed in this thread (src/contract/sha256.ts): a few hundred bytes cost less than a worker-thread hop.
  const hash = sha256(new TextEncoder().encode(text));
  const digest = "sha256:" + Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
  if (digests.size >= DIGEST_MEMO_SIZE) digests.clear();
  digests.set(text, digest);
  return Promise.resolve(digest);
}
