/**
 * A prompt's packet contract (docs/reference/contract.md): what the packet itself asks, before any amendment. Kept
 * apart from the amendment folding (./enforced.ts, which re-exports it) so that `packet lint` loads no store reader.
 */
import type { Contract } from "./types.ts";
import type { Prompt } from "../packet/mod.ts";

/** A clause's entries as a list: one value wrapped, null or absent as none. */
export function wrap(v: unknown): unknown[] {
  return v === undefined || v === null ? [] : Array.isArray(v) ? [...v] : [v];
}

/**
 * The packet contract of a prompt as the verifier sees it: `verify:` with single values wrapped, plus the legacy
 * commands (`validation:` / `## Validation Commands`) as `commands` when `verify.commands` is absent.
 */
export function packetContract(prompt: Prompt): Contract {
  const out: Contract = {};
  for (const [k, v] of Object.entries(prompt.verify ?? {})) out[String(k)] = wrap(v);
  if (out.commands === undefined && prompt.legacyCommands.length > 0) out.commands = [...prompt.legacyCommands];
  return out;
}
