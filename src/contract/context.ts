/** Build a {@link VerifyContext} for one prompt of a loaded packet (docs/reference/contract.md §2 repo index and default scope). */
import type { Packet, Prompt } from "../packet/mod.ts";
import type { VerifyContext, VerifySource } from "./types.ts";

/** The repo index of a packet: every manifest repo plus the alias `packet` → the packet dir. */
export function repoIndex(packet: Packet): Record<string, string> {
  const repos: Record<string, string> = {};
  for (const r of packet.repos) repos[r.name] = r.path;
  repos.packet = packet.dir;
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
  };
}
