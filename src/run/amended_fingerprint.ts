/**
 * A persisted amendment changes the packet's fingerprint on purpose (docs/amendments.md): when the current run's
 * recorded fingerprint leads to the packet's current one through a chain of persisted amendment records, the run
 * still resumes, and its record takes the new fingerprint with a `packet_amended` journal entry naming them.
 */
import { appendJournal } from "../store/journal.ts";
import { type OpenedRun, writeRunRecord } from "../store/run_record.ts";
import type { AmendedFrom } from "./amended_from.ts";

export { amendedFingerprint, type AmendedFrom } from "./amended_from.ts";

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
