/**
 * The packet fingerprint (docs/reference/runner.md §10.5): SHA-256 of canonical JSON of every prompt's identity, body, contract,
 * script, recovery and execution overrides, plus the normalised manifest options. Amendments are state, not part
 * of it; CLI flags are not part of it either.
 */
import { FindingSink } from "./findings.ts";
import { MANIFEST_OPTION_KEYS, normalizeLayer, PROMPT_EXECUTION_KEYS, PROVIDER_BAGS } from "./options.ts";
import type { Packet } from "./types.ts";

/** JSON with object keys sorted at every depth (undefined dropped). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** Hex SHA-256 of a string. */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The fingerprint input document (exposed for tests and debugging). */
function fingerprintInput(packet: Packet): Record<string, unknown> {
  const quiet = new FindingSink();
  const execKeys = [...PROMPT_EXECUTION_KEYS, ...PROVIDER_BAGS] as string[];
  return {
    manifest: normalizeLayer(packet.manifest, MANIFEST_OPTION_KEYS, { file: "manifest" }, quiet),
    prompts: packet.prompts.map((p) => {
      const overrides: Record<string, unknown> = {};
      for (const k of execKeys) if (p.frontMatter[k] !== undefined) overrides[k] = p.frontMatter[k];
      return {
        id: p.id,
        phase: p.phase,
        name: p.name,
        body: p.body,
        targets: p.targets,
        commit: p.commit,
        depends_on: p.dependsOn,
        verify: p.verify,
        simulate: p.simulate,
        recovery: p.frontMatter.recovery ?? null,
        overrides,
      };
    }),
  };
}

/** SHA-256 (hex) of the canonical fingerprint input. */
export async function packetFingerprint(packet: Packet): Promise<string> {
  return await sha256Hex(canonicalJson(fingerprintInput(packet)));
}
