/**
 * The simulated lane's crash-safe script cursor (docs/crash_recovery.md): every write of an attempt's script gets an
 * index. A crash-recovery session continues the interrupted attempt's script from its cursor: writes below `applied`
 * are skipped, and a pending append is first cut back to its recorded size, so no append ever lands twice.
 *
 * The cursor is kept in memory and written only when a crash would otherwise be misread: before an append (pending,
 * with the file's size; the append before it is then applied), and when a session starts where a missing file would
 * read differently (a continued or renumbered script). An overwrite is not recorded: redone after a crash it leaves
 * the same content whether or not it had landed, and so does redoing a pending append that had landed (cut back
 * first). A trivial prompt's one overwrite therefore writes no cursor file at all.
 */
import { ensureDir } from "../util/fs.ts";
import { atomicWriteStoreText, ensureStoreDir } from "../util/safe_fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { failpoint } from "../util/failpoint.ts";
import { meterWrite } from "../util/read_meter.ts";
import type { SimulatedCursor } from "./types.ts";

/** The cursor file's content. */
export interface CursorDoc {
  /** The `simulate.attempts` entry (1-based) the attempt plays; null when unknown (read from an older cursor). */
  script: number | null;
  /** Writes with an index below this were applied. */
  applied: number;
  /** The write in progress when the cursor was saved, if any. */
  pending: { index: number; path: string; size: number } | null;
}

/**
 * Read a cursor file; a missing one (or one that does not decode) reads as nothing applied. A cursor path that exists
 * but cannot be read (a directory, a planted link) throws naming it: reading it as "nothing applied" would replay
 * writes a crashed attempt already made.
 */
export async function readCursor(path: string): Promise<CursorDoc> {
  const text = await readStoreTextOrNull(path);
  if (text === null) return { script: null, applied: 0, pending: null };
  try {
    const v = JSON.parse(text) as Partial<CursorDoc>;
    const applied = typeof v.applied === "number" && v.applied >= 0 ? v.applied : 0;
    const p = v.pending;
    const pending = p && typeof p.index === "number" && typeof p.path === "string" && typeof p.size === "number"
      ? { index: p.index, path: p.path, size: p.size }
      : null;
    const script = typeof v.script === "number" && v.script >= 1 ? v.script : null;
    return { script, applied, pending };
  } catch {
    return { script: null, applied: 0, pending: null };
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

/** One write a script asks for: the resolved path, the text, and whether it appends. */
export interface ScriptWrite {
  path: string;
  text: string;
  append: boolean;
}

/** Applies a script's writes in order, keeping the cursor (when one is given) crash-safe. */
export class ScriptWriter {
  #next = 0;
  #skipBelow = 0;
  #pending: CursorDoc["pending"] = null;
  #path: string | null;
  #storeRoot: string | null;
  #dirReady = false;

  private constructor(path: string | null, storeRoot: string | null) {
    this.#path = path;
    this.#storeRoot = storeRoot;
  }

  /** The `simulate.attempts` entry (1-based) this session plays. */
  script = 1;

  /**
   * A writer for a session playing attempt `attempt`'s script: a crash-recovery session continues the interrupted
   * attempt's entry and cursor; any other attempt plays the entry after its previous attempt's (so a recovered
   * attempt does not shift the script), else the entry numbered like the attempt.
   */
  static async open(cursor: SimulatedCursor | null | undefined, attempt: number): Promise<ScriptWriter> {
    const w = new ScriptWriter(cursor?.path ?? null, cursor?.storeRoot ?? null);
    w.script = attempt;
    if (!cursor) return w;
    if (cursor.continueFrom) {
      let doc = await readCursor(cursor.continueFrom.path);
      let script = cursor.continueFrom.attempt;
      // A continuation that left no cursor had nothing of its own to record (a cursor is written at the start unless
      // the script starts fresh, and before every append; an overwrite is safe to redo): it stands where the attempt
      // it continued stood.
      for (const origin of cursor.continueFrom.origins ?? []) {
        if (doc.script !== null) break;
        doc = await readCursor(origin.path);
        script = origin.attempt;
      }
      w.script = doc.script ?? script;
      w.#skipBelow = doc.applied;
      w.#pending = doc.pending;
    } else if (cursor.previous) {
      const prev = await readCursor(cursor.previous);
      if (prev.script !== null) w.script = prev.script + 1;
    }
    // A missing cursor reads as this attempt's own script with nothing applied (readCursor(), and `previous` gives
    // the next attempt the entry after it). Anything else is saved at once, so the next attempt (or a second crash)
    // knows where this one stands.
    if (w.script !== attempt || w.#skipBelow > 0 || w.#pending !== null) {
      await w.#save({ script: w.script, applied: w.#skipBelow, pending: w.#pending });
    }
    return w;
  }

  async #save(doc: CursorDoc): Promise<void> {
    if (!this.#path) return;
    if (!this.#dirReady) {
      // Made when the first cursor is written (most scripts write none): from the store root, never through a link.
      const dir = this.#path.slice(0, this.#path.lastIndexOf("/"));
      if (this.#storeRoot !== null) await ensureStoreDir(this.#storeRoot, dir);
      else await ensureDir(dir);
      this.#dirReady = true;
    }
    meterWrite("simulated cursor");
    // Never through a link planted at the cursor (src/util/safe_fs.ts).
    await atomicWriteStoreText(this.#path, JSON.stringify(doc) + "\n");
  }

  /** Apply one write (or skip it when an interrupted session already applied it). */
  async apply(w: ScriptWrite): Promise<void> {
    const index = this.#next++;
    if (index < this.#skipBelow) return;
    const pending = this.#pending?.index === index ? this.#pending : null;
    this.#pending = null;
    if (pending && w.append && pending.path === w.path && (await sizeOf(w.path)) > pending.size) {
      await Deno.truncate(w.path, pending.size);
    }
    // Only an append is recorded before it is made (and it stays pending after: redone after a crash, it is cut back
    // first). The writes before it have landed, so `applied` moves up to it.
    if (this.#path && w.append) {
      await this.#save({
        script: this.script,
        applied: index,
        pending: { index, path: w.path, size: await sizeOf(w.path) },
      });
    }
    failpoint("simulated.before_write");
    // Synchronous: a trivial script's write is smaller than the worker-thread hops of asynchronous calls.
    const slash = w.path.lastIndexOf("/");
    if (slash > 0) Deno.mkdirSync(w.path.slice(0, slash), { recursive: true });
    Deno.writeTextFileSync(w.path, w.text, { append: w.append });
    failpoint("simulated.after_write");
  }
}
