/**
 * The run journal (docs/reference/runner.md §10.5 [P2]): `runs/<run_id>/journal.jsonl`, one line per run lifecycle fact —
 * `{seq, at, run_id, type, data}` with types `run_created`, `run_resumed`, `prompt_finished`, `run_completed`,
 * `run_failed`, `run_superseded` (and `packet_amended`, `commit_claimed`). Each line is appended with a single write
 * and fsynced; a torn final line (a crash mid-append) is moved to `journal.jsonl.torn.<n>` before the next append, so
 * the journal stays valid JSON Lines.
 *
 * The journal is read once per process (the first append: torn tail, next `seq`); later appends only count, and
 * re-read only when the file's size is not the size this process left it at (someone else changed it).
 */
import { storePaths } from "./paths.ts";
import { FILE_MODE } from "../util/fs.ts";
import { ensureStoreDir, lstatStoreSync } from "../util/safe_fs.ts";
import { readStoreBytesOrNullSync } from "../util/safe_read.ts";
import { appendHeldLine } from "../util/held_append.ts";
import { nowIso } from "../util/time.ts";
import { meterRead } from "../util/read_meter.ts";
import { failpoint } from "../util/failpoint.ts";

/** Journal entry types. */
export type JournalType =
  | "run_created"
  | "run_resumed"
  | "prompt_finished"
  | "run_completed"
  | "run_failed"
  | "run_superseded"
  | "packet_amended"
  | "commit_claimed";

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

/** Per journal path: the next `seq` and the file size this process left it at. */
const opened = new Map<string, { seq: number; size: number }>();

/** Read a journal once: move a torn tail aside, and return the next seq and the size of its complete lines. */
async function openJournal(path: string): Promise<{ seq: number; size: number }> {
  const bytes = await readBytesOrNull(path) ?? new Uint8Array();
  meterRead("journal", bytes.length);
  const { complete, torn } = splitTorn(bytes);
  if (torn.length > 0) await moveTorn(path, complete.length, torn);
  return { seq: nextJournalSeq(new TextDecoder().decode(complete)), size: complete.length };
}

/**
 * Append one entry to a run's journal (fsynced); returns it. Only the lease holder of the run appends. The file is
 * read on the first append of this process only (see the module comment): an append costs the same at any length.
 */
export async function appendJournal(
  storeRoot: string,
  runId: string,
  type: JournalType,
  data: Record<string, unknown> = {},
): Promise<JournalEntry> {
  const path = journalPath(storeRoot, runId);
  let known = opened.get(path);
  if (known) {
    const info = lstatStoreSync(path, "file");
    if (info?.size !== known.size) known = undefined;
  } else {
    await ensureStoreDir(storeRoot, storePaths(storeRoot).runDir(runId));
  }
  opened.delete(path); // re-read after a failed append
  known ??= await openJournal(path);
  const entry: JournalEntry = { seq: known.seq, at: nowIso(), run_id: runId, type, data };
  const line = JSON.stringify(entry) + "\n";
  await appendHeldLine(path, line, { fsync: true });
  opened.set(path, { seq: known.seq + 1, size: known.size + new TextEncoder().encode(line).length });
  failpoint("journal.after_append");
  return entry;
}
