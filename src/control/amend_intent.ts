/**
 * An amendment in flight (docs/amendments.md, "A command stopped mid-amendment"). `control amend` / `control relax`
 * make up to three writes — the prompt file's `verify:` block (with `--persist`), the amendment record, the audit log
 * entry — and a command killed between two of them would leave a contract changed with no record, or a record with no
 * audit entry. So before the first write the command writes an intent, `amendments/<id>.intent.json` (the record and
 * its log entry), and holds an exclusive lock on it until the last write is done; then it removes it.
 *
 * An intent nobody holds is the trace of a command that stopped. The next `control amend` / `relax`, and the next run
 * (under its lease, before anything reads the contract), settle it: the record exists → its log entry is added if
 * missing; no record, `--persist` and the prompt file carries the change → the record and its log entry are added
 * (the file change is never left unattributed); otherwise nothing changed → a `rejected` log entry says the command
 * stopped. Each case is said in one `recovered: …` line.
 */
import type { AmendmentRecord } from "../contract/mod.ts";
import { readAmendments } from "../contract/enforced.ts";
import { diskDigest } from "../contract/persisted.ts";
import { appendStoreLine, createStoreFileSync, ensureStoreDir, lstatStoreSync } from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { isRecord } from "../util/is_record.ts";
import { nowIso } from "../util/time.ts";
import { storePaths } from "../store/paths.ts";
import { type LogEntry, readLogEntries } from "./log.ts";

const SUFFIX = ".intent.json";

/** What an intent file holds. */
interface IntentDoc {
  /** The amendment record the command is writing. */
  record: AmendmentRecord;
  /** Its audit log entry. */
  entry: LogEntry;
  /** The prompt file's absolute path (its `verify:` block is rewritten when `record.persisted`). */
  file: string;
}

/** A held intent: {@link AmendIntent.done} removes the file and releases the lock. */
export class AmendIntent {
  readonly #path: string;
  readonly #file: Deno.FsFile;

  private constructor(path: string, file: Deno.FsFile) {
    this.#path = path;
    this.#file = file;
  }

  /** Write and lock the intent for `doc` (fsync'd before any other write of the amendment). */
  static async begin(storeRoot: string, doc: IntentDoc): Promise<AmendIntent> {
    const paths = storePaths(storeRoot);
    await ensureStoreDir(paths.root, paths.amendments);
    const path = `${paths.amendments}/${doc.record.id}${SUFFIX}`;
    const file = createStoreFileSync(path);
    if (file === null) throw new Error(`amendment ${doc.record.id} is already in flight (${path})`);
    if (!(await file.tryLock(true))) {
      file.close();
      throw new Error(`amendment ${doc.record.id}: its intent ${path} is held by another process`);
    }
    const bytes = new TextEncoder().encode(JSON.stringify(doc) + "\n");
    for (let off = 0; off < bytes.length;) off += await file.write(bytes.subarray(off));
    await file.sync();
    return new AmendIntent(path, file);
  }

  /** Every write is done, or none will be (the write-back failed): remove the intent, then release it. */
  async done(): Promise<void> {
    try {
      await Deno.remove(this.#path);
    } finally {
      this.#file.close();
    }
  }
}

/** The audit log's keys (`amendment:<id>`, …) present now. */
async function logKeys(storeRoot: string): Promise<Set<string>> {
  return new Set((await readLogEntries(storeRoot)).map((e) => e.key));
}

function parseIntent(text: string): IntentDoc | null {
  try {
    const doc = JSON.parse(text) as unknown;
    if (!isRecord(doc) || !isRecord(doc.record) || !isRecord(doc.entry) || typeof doc.file !== "string") return null;
    const r = doc.record;
    if (typeof r.id !== "string" || typeof r.prompt !== "string" || typeof doc.entry.key !== "string") return null;
    return doc as unknown as IntentDoc;
  } catch {
    return null;
  }
}

/**
 * Settle every intent no live command holds (see the module comment); returns one `recovered: …` line per intent
 * settled. An intent still locked is a command at work and is left alone; an unreadable one is left as it is (the
 * store guard refuses anything that is not a regular file).
 */
export async function settleIntents(storeRoot: string): Promise<string[]> {
  const paths = storePaths(storeRoot);
  const names: string[] = [];
  try {
    for (const e of Deno.readDirSync(paths.amendments)) if (e.isFile && e.name.endsWith(SUFFIX)) names.push(e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const said: string[] = [];
  let keys: Set<string> | null = null;
  for (const name of names.sort()) {
    const path = `${paths.amendments}/${name}`;
    if (lstatStoreSync(path, "file") === null) continue;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true, write: true });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue; // settled meanwhile
      throw e;
    }
    try {
      if (!(await file.tryLock(true))) continue; // its command is still at work
      // Settled and removed by another process between the listing and the lock: nothing to do.
      if (lstatStoreSync(path, "file")?.ino !== (await file.stat()).ino) continue;
      const doc = parseIntent((await readStoreTextOrNull(path)) ?? "");
      if (doc === null) continue;
      keys ??= await logKeys(storeRoot);
      const line = await settleOne(storeRoot, doc, keys);
      if (line) said.push(line);
      await Deno.remove(path);
    } finally {
      file.close();
    }
  }
  return said;
}

async function settleOne(storeRoot: string, doc: IntentDoc, keys: Set<string>): Promise<string | null> {
  const paths = storePaths(storeRoot);
  const { record, entry } = doc;
  const recorded = (await readAmendments(storeRoot, record.prompt)).some((r) => r.id === record.id);
  const writeBack = record.persisted === true && typeof record.verify_digest_after === "string" &&
    (await diskDigest(doc.file)) === record.verify_digest_after;
  const logLine = async (e: LogEntry) => {
    await ensureStoreDir(paths.root, paths.control);
    await appendStoreLine(paths.log, JSON.stringify(e), { fsync: true });
    keys.add(e.key);
  };
  const late = "recorded by the next command or run: the one that made it stopped before its last write";
  if (recorded || writeBack) {
    if (!recorded) await appendStoreLine(paths.amendmentsFile(record.prompt), JSON.stringify(record), { fsync: true });
    if (keys.has(entry.key)) return null;
    await logLine({ ...entry, params: { ...entry.params, recovered: late } });
    return recorded
      ? `recovered: amendment ${record.id} of prompt ${record.prompt} was recorded by a command that stopped before ` +
        "its audit entry; logged now"
      : `recovered: amendment ${record.id} of prompt ${record.prompt} was written back to ${doc.file} by a command ` +
        "that stopped before recording it; recorded and logged now";
  }
  const key = `${entry.key}:rejected`;
  if (keys.has(key)) return null;
  await logLine({
    ...entry,
    at: nowIso(),
    key,
    outcome: "rejected",
    reason: "the command stopped before the amendment was recorded: it is not in effect",
    params: { ...entry.params, requested_reason: entry.reason },
  });
  return `recovered: amendment ${record.id} of prompt ${record.prompt} was not made (its command stopped before ` +
    "recording it); logged as rejected";
}
