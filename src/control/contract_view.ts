/**
 * The `contract` view (docs/reference/control-plane.md §9.7): a prompt's packet contract, the enforced contract, the
 * amendments applied and their diff — and the target resolution and prompt lookup that `amend` and `relax`
 * (./amend.ts) share with it. Kept apart from the amendment writers so that the read-only `control contract` loads
 * only the packet loader and the contract folding.
 */
import { loadPacket } from "../packet/load.ts";
import type { Packet, Prompt } from "../packet/mod.ts";
import type { AmendmentRecord, Contract } from "../contract/mod.ts";
import { contractDiff, enforcedContract } from "../contract/enforced.ts";
import { normalizePromptId } from "../util/ids.ts";
import { storePaths, storeRootForPacket } from "../store/paths.ts";
import { ControlError } from "./errors.ts";

/** What `contract`, `amend` and `relax` address: a packet dir, a run ref, an explicit pair, or a workspace. */
export type Target =
  | string
  | { storeRoot: string; runId: string }
  | { packetDir: string; storeRoot: string }
  | { workspace: string; packet?: string };

/** What `contract` returns (docs/reference/control-plane.md §13 `--json`). */
export interface ContractView {
  prompt_id: string;
  packet: Contract;
  enforced: Contract;
  amendments: AmendmentRecord[];
  diff: { change: "same" | "removed" | "added"; clause: string; entry: string }[];
}

export interface Resolved {
  packetDir: string;
  storeRoot: string;
  runId: string | null;
}

export async function resolveTarget(target: Target): Promise<Resolved> {
  if (typeof target === "string") {
    const dir = await Deno.realPath(target).catch(() => target);
    return { packetDir: dir, storeRoot: storeRootForPacket(dir), runId: null };
  }
  if ("workspace" in target) {
    throw new ControlError("workspace_packet_binding_required", "workspace targets need an explicit packet", {
      hints: ["use the explicit form: --workspace <manifest.yml> --packet <path>"],
    });
  }
  if ("packetDir" in target) return { packetDir: target.packetDir, storeRoot: target.storeRoot, runId: null };
  // A run ref names its packet in store.json; the store layout code loads only for it.
  const { readStoreInfo } = await import("../store/layout.ts");
  const info = await readStoreInfo(target.storeRoot);
  if (!info) {
    throw new ControlError("target_not_found", `${storePaths(target.storeRoot).storeJson} does not name a packet`);
  }
  return { packetDir: info.packet_dir, storeRoot: target.storeRoot, runId: target.runId };
}

export function findPrompt(packet: Packet, promptId: string): Prompt {
  const id = normalizePromptId(promptId);
  const prompt = id === null ? undefined : packet.prompts.find((p) => p.id === id);
  if (!prompt) {
    throw new ControlError("prompt_not_found", `prompt "${promptId}" is not in packet ${packet.name}`, {
      details: { prompt_id: promptId },
    });
  }
  return prompt;
}

export function packetContract(prompt: Prompt): Contract {
  const out: Contract = {};
  for (const [k, v] of Object.entries(prompt.verify)) out[k] = Array.isArray(v) ? [...v] : [v];
  if (out.commands === undefined && prompt.legacyCommands.length > 0) out.commands = [...prompt.legacyCommands];
  return out;
}

/**
 * The packet contract, the enforced contract, the amendments applied and their diff for one prompt.
 *
 * @example
 * ```ts ignore
 * import { contract } from "./mod.ts";
 * const view = await contract("examples/demo", "3");
 * console.log(view.diff);
 * ```
 */
export async function contract(target: Target, promptId: string): Promise<ContractView> {
  const t = await resolveTarget(target);
  const packet = await loadPacket(t.packetDir);
  const prompt = findPrompt(packet, promptId);
  const base = packetContract(prompt);
  // Persisted amendments are listed too (their change is in `packet` already): an amended contract always shows.
  const { contract: enforced, amendments } = await enforcedContract(prompt, t.storeRoot);
  return { prompt_id: prompt.id, packet: base, enforced, amendments, diff: contractDiff(base, enforced) };
}
