/**
 * The runner's audit writer (docs/reference/control-plane.md §3.2–§3.3, §6.4): appends to `log.jsonl` with single writes on an
 * O_APPEND descriptor, skipping keys already present (indexed at open), and writes receipts only if absent.
 */
import { FILE_MODE, parseJsonLines, prettyJson } from "../util/fs.ts";
import { lstatStoreSync, openStoreFileSync } from "../util/safe_fs.ts";
import { readStoreTextOrNullSync } from "../util/safe_read.ts";
import type { LogEntry, Receipt } from "./log.ts";
import { meterWrite } from "../util/read_meter.ts";
import { storePaths } from "../store/paths.ts";

/** Synchronous writer of log entries and receipts. */
export class AuditWriter {
  readonly #paths;
  readonly #keys = new Set<string>();
  #file: Deno.FsFile | null = null;
  /** Entries appended since the last fsync (a prompt boundary with none costs no fsync). */
  #unsynced = false;
  readonly #enc = new TextEncoder();
  /** Test seam: called before each receipt write; throwing simulates a failed write. */
  beforeReceipt: ((name: string) => void) | null = null;

  constructor(storeRoot: string) {
    this.#paths = storePaths(storeRoot);
  }

  /** Read existing entries, index their keys, and return them (for reconciliation). */
  open(): Record<string, unknown>[] {
    let entries: Record<string, unknown>[] = [];
    entries = parseJsonLines(readStoreTextOrNullSync(this.#paths.log) ?? "");
    for (const e of entries) if (typeof e.key === "string") this.#keys.add(e.key);
    this.#file = openStoreFileSync(this.#paths.log);
    return entries;
  }

  /**
   * `log.jsonl` renamed away, removed or replaced under the runner: append to the file now at the path (created if
   * missing; never a symlink, FIFO or device put there), so followers and readers keep seeing new entries.
   */
  #reopenIfReplaced(): void {
    const own = this.#file?.statSync().ino ?? null;
    let st: Deno.FileInfo | null = null;
    try {
      st = Deno.lstatSync(this.#paths.log);
    } catch { /* removed or renamed away */ }
    if (own === null || (st !== null && (st.ino === own || st.ino === null || !st.isFile))) return;
    try {
      // Read-write and checked against the path (src/util/safe_fs.ts): a FIFO or link swapped in is refused.
      const file = openStoreFileSync(this.#paths.log);
      this.#file?.close();
      this.#file = file;
    } catch { /* raced with another change: checked again at the next append */ }
  }

  /** Whether an entry with this key is already in the log. */
  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Append an entry unless its key exists. Throws when the write fails (the request then stays pending). */
  append(entry: LogEntry): void {
    if (this.#keys.has(entry.key)) return;
    if (!this.#file) throw new Error("audit log is not open");
    this.#reopenIfReplaced();
    const bytes = this.#enc.encode(JSON.stringify(entry) + "\n");
    const n = this.#file.writeSync(bytes);
    this.#unsynced = true;
    if (n !== bytes.length) throw new Error(`short append to ${this.#paths.log}: ${n} of ${bytes.length} bytes`);
    this.#keys.add(entry.key);
  }

  /** Whether a receipt exists for a request name. */
  hasReceipt(name: string): boolean {
    try {
      Deno.lstatSync(`${this.#paths.outcomes}/${name}`);
      return true;
    } catch {
      return false;
    }
  }

  /** Write `outcomes/<name>` atomically if absent (temp in `.tmp/`, then hard link, which fails when taken). */
  writeReceipt(receipt: Receipt): void {
    this.beforeReceipt?.(receipt.request);
    const dest = `${this.#paths.outcomes}/${receipt.request}`;
    // A short temp name whatever the request's name (a long one would overflow NAME_MAX with a prefix).
    const rand = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16);
    const tmp = `${this.#paths.controlTmp}/.receipt-${Deno.pid}-${rand}`;
    // A regular leftover of a crashed writer is replaced; a link or special file there is refused (never followed).
    if (lstatStoreSync(tmp, "file") !== null) Deno.removeSync(tmp);
    Deno.writeTextFileSync(tmp, prettyJson(receipt), { createNew: true, mode: FILE_MODE });
    try {
      Deno.linkSync(tmp, dest);
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    } finally {
      try {
        Deno.removeSync(tmp);
      } catch { /* gone */ }
    }
  }

  /** fsync the log, when entries were appended since the last fsync. */
  sync(): void {
    if (!this.#file || !this.#unsynced) return;
    this.#file.syncSync();
    this.#unsynced = false;
    meterWrite("log.jsonl fsync");
  }

  /** fsync and close. */
  close(): void {
    if (!this.#file) return;
    try {
      this.#file.syncSync();
    } finally {
      this.#file.close();
      this.#file = null;
    }
  }
}
