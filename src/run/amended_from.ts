/**
 * The read side of an amended fingerprint (docs/amendments.md): whether the current run's recorded fingerprint leads
 * to the packet's current one through persisted amendment records. It only reads, so `plan` asks it without loading
 * the record writer and the journal (./amended_fingerprint.ts records the new fingerprint when a run opens).
 */
import { fingerprintChain } from "../contract/persisted.ts";
import { readCurrentRunRecord } from "../store/run_record_read.ts";

/** The recorded fingerprint and the amendments that changed it, or null when there is nothing to bridge. */
export interface AmendedFrom {
  from: string;
  amendments: string[];
}

/** Whether the current run's fingerprint reaches `current` through persisted amendments only. */
export async function amendedFingerprint(storeRoot: string, current: string): Promise<AmendedFrom | null> {
  const prev = await readCurrentRunRecord(storeRoot);
  if (!prev || prev.packet_fingerprint === "" || prev.packet_fingerprint === current) return null;
  const chain = await fingerprintChain(storeRoot, prev.packet_fingerprint, current);
  return chain ? { from: prev.packet_fingerprint, amendments: chain.map((r) => r.id) } : null;
}
