/**
 * A persisted amendment changes the packet's fingerprint on purpose (docs/amendments.md): when the current run's
 * recorded fingerprint leads to the packet's current one through a chain of persisted amendment records, the run
 * still resumes, and its record takes the new fingerprint with a `packet_amended` journal entry naming them.
 */
import { fingerprintChain } from "../contract/persisted.ts";
import { appendJournal } from "../store/journal.ts";
import { type OpenedRun, readCurrentRun, writeRunRecord } from "../store/run_record.ts";

/** The recorded fingerprint and the amendments that changed it, or null when there is nothing to bridge. */
export interface AmendedFrom {
  from: string;
  amendments: string[];
}

/** Whether the current run's fingerprint reaches `current` through persisted amendments only. */
export async function amendedFingerprint(storeRoot: string, current: string): Promise<AmendedFrom | null> {
  const prev = await readCurrentRun(storeRoot);
  if (!prev || prev.packet_fingerprint === "" || prev.packet_fingerprint === current) return null;
  const chain = await fingerprintChain(storeRoot, prev.packet_fingerprint, current);
  return chain ? { from: prev.packet_fingerprint, amendments: chain.map((r) => r.id) } : null;
}

/** Give the opened run the current fingerprint; a resumed run journals which amendments changed it. */
export async function recordAmendedFingerprint(
  storeRoot: string,
  opened: OpenedRun,
  current: string,
  from: AmendedFrom,
): Promise<void> {
  if (opened.record.packet_fingerprint === current) return;
  opened.record.packet_fingerprint = current;
  await writeRunRecord(storeRoot, opened.record);
  if (opened.resumed) {
    await appendJournal(storeRoot, opened.runId, "packet_amended", {
      from: from.from,
      to: current,
      amendments: from.amendments,
    });
  }
}
