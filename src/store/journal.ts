/**
 * The run journal (docs/reference/runner.md §10.5 [P2]): `runs/<run_id>/journal.jsonl`, one line per run lifecycle fact —
 * `{seq, at, run_id, type, data}` with types `run_created`, `run_resumed`, `prompt_finished`, `run_completed`,
 * `run_failed`, `run_superseded`. Each line is appended with a single write and fsynced; a torn final line (a crash
 * mid-append) is moved to `journal.jsonl.torn.<n>` before the next append, so the journal stays valid JSON Lines.
 */
import { storePaths } from "./paths.ts";
import { FILE_MODE } from "../util/fs.ts";
import { appendStoreLine, ensureStoreDir, readStoreBytesOrNullSync } from "../util/safe_fs.ts";
import { nowIso } from "../util/time.ts";

/** Journal entry types. */
export type JournalType =
  | "run_created"
  | "run_resumed"
  | "prompt_finished"
  | "run_completed"
  | "run_failed"
  | "run_superseded"
  | "packet_amended";

/** One journal line. */
export interface JournalEntry {
  seq: number;
  at: string;
  run_id: string;
  type: JournalType;
  data: Record<string, unknown>;
}

/** The journal path of a run. */
export function journalPath(storeRoot: string, runId: string): string {
  return `${storePaths(storeRoot).runDir(runId)}/journal.jsonl`;
}

const NL = 0x0a;

/** Split file bytes into the complete lines (up to and including the last newline) and a torn tail (pure). */
export function splitTorn(bytes: Uint8Array): { complete: Uint8Array; torn: Uint8Array } {
  const end = bytes.lastIndexOf(NL) + 1;
  return { complete: bytes.subarray(0, end), torn: bytes.subarray(end) };
}

/** The next `seq` after the complete lines of a journal: highest recorded seq + 1, starting at 1 (pure). */
export function nextJournalSeq(completeText: string): number {
  let max = 0;
  for (const line of completeText.split("\n")) {
    if (!line.trim()) continue;
    try {
      const seq = (JSON.parse(line) as { seq?: unknown }).seq;
      if (typeof seq === "number" && Number.isInteger(seq) && seq > max) max = seq;
    } catch { /* an undecodable complete line keeps its place; it never decides seq */ }
  }
  return max + 1;
}

function readBytesOrNull(path: string): Promise<Uint8Array | null> {
  // Never read through a link or a FIFO (docs/store.md).
  return Promise.resolve().then(() => readStoreBytesOrNullSync(path));
}

/** Move a torn tail to the first free `journal.jsonl.torn.<n>` (n ≥ 1) and cut it from the journal. */
async function moveTorn(path: string, completeLength: number, torn: Uint8Array): Promise<string> {
  for (let n = 1;; n++) {
    const target = `${path}.torn.${n}`;
    try {
      const f = await Deno.open(target, { write: true, createNew: true, mode: FILE_MODE });
      try {
        let off = 0;
        while (off < torn.length) off += await f.write(torn.subarray(off));
        await f.sync();
      } finally {
        f.close();
      }
      await Deno.truncate(path, completeLength);
      return target;
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) continue;
      throw e;
    }
  }
}

/** Append one entry to a run's journal (fsynced); returns it. Only the lease holder of the run appends. */
export async function appendJournal(
  storeRoot: string,
  runId: string,
  type: JournalType,
  data: Record<string, unknown> = {},
): Promise<JournalEntry> {
  const path = journalPath(storeRoot, runId);
  await ensureStoreDir(storeRoot, storePaths(storeRoot).runDir(runId));
  const bytes = await readBytesOrNull(path) ?? new Uint8Array();
  const { complete, torn } = splitTorn(bytes);
  if (torn.length > 0) await moveTorn(path, complete.length, torn);
  const entry: JournalEntry = {
    seq: nextJournalSeq(new TextDecoder().decode(complete)),
    at: nowIso(),
    run_id: runId,
    type,
    data,
  };
  await appendStoreLine(path, JSON.stringify(entry), { fsync: true });
  return entry;
}
