/** Build a {@link VerifyContext} for one prompt of a loaded packet (docs/reference/contract.md §2 repo index and default scope). */
import type { Packet, Prompt } from "../packet/mod.ts";
import type { VerifyContext, VerifySource } from "./types.ts";
import type { HidingState } from "./hiding.ts";

/**
 * The repo index of a packet: every manifest repo, the alias `packet` → the packet dir, and in a workspace each
 * contract artifact as `@artifact:<id>` → its installed path (an `exec` naming that key runs it).
 */
export function repoIndex(packet: Packet): Record<string, string> {
  const repos: Record<string, string> = {};
  for (const r of packet.repos) repos[r.name] = r.path;
  repos.packet = packet.dir;
  for (const [id, path] of Object.entries(packet.artifacts ?? {})) repos[`@artifact:${id}`] = path;
  return repos;
}

/** The verification context of a prompt. */
export function verifyContextFor(
  packet: Packet,
  prompt: Prompt,
  storeRoot: string,
  opts: {
    runId: string | null;
    source: VerifySource;
    attempt: number | null;
    env?: Record<string, string>;
    preexisting?: Record<string, string[]>;
    hiding?: Record<string, HidingState>;
    hidingBaselined?: boolean;
  },
): VerifyContext {
  return {
    promptId: prompt.id,
    runId: opts.runId,
    packetDir: packet.dir,
    storeRoot,
    repos: repoIndex(packet),
    defaultScope: prompt.cwd,
    source: opts.source,
    attempt: opts.attempt,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.preexisting && Object.keys(opts.preexisting).length ? { preexisting: opts.preexisting } : {}),
    ...(opts.hiding && Object.keys(opts.hiding).length ? { hiding: opts.hiding } : {}),
    ...(opts.hidingBaselined ? { hidingBaselined: true } : {}),
  };
}
