/**
 * The simulated lane's crash-safe script cursor (docs/crash_recovery.md): every write of an attempt's script gets an
 * index; before a write the cursor records it as pending (with the file's size, for appends), after it as applied.
 * A crash-recovery session continues the interrupted attempt's script from its cursor: applied writes are skipped,
 * and a pending append is first cut back to its recorded size, so no write ever lands twice.
 */
import { atomicWriteText, ensureDir, readTextOrNull } from "../util/fs.ts";
import { failpoint } from "../util/failpoint.ts";
import type { SimulatedCursor } from "./types.ts";

/** The cursor file's content. */
export interface CursorDoc {
  /** Writes with an index below this were applied. */
  applied: number;
  /** The write in progress when the cursor was saved, if any. */
  pending: { index: number; path: string; size: number } | null;
}

/** Read a cursor file; a missing or unreadable one reads as nothing applied. */
export async function readCursor(path: string): Promise<CursorDoc> {
  const text = await readTextOrNull(path).catch(() => null);
  if (text === null) return { applied: 0, pending: null };
  try {
    const v = JSON.parse(text) as Partial<CursorDoc>;
    const applied = typeof v.applied === "number" && v.applied >= 0 ? v.applied : 0;
    const p = v.pending;
    const pending = p && typeof p.index === "number" && typeof p.path === "string" && typeof p.size === "number"
      ? { index: p.index, path: p.path, size: p.size }
      : null;
    return { applied, pending };
  } catch {
    return { applied: 0, pending: null };
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

  private constructor(path: string | null) {
    this.#path = path;
  }

  /** A writer for a session: continues the interrupted attempt's cursor when the spec says so. */
  static async open(cursor: SimulatedCursor | null | undefined): Promise<ScriptWriter> {
    const w = new ScriptWriter(cursor?.path ?? null);
    if (!cursor) return w;
    const dir = cursor.path.slice(0, cursor.path.lastIndexOf("/"));
    await ensureDir(dir);
    if (cursor.continueFrom) {
      const doc = await readCursor(cursor.continueFrom.path);
      w.#skipBelow = doc.applied;
      w.#pending = doc.pending;
      // This session's own cursor starts where the interrupted one stopped, so a second crash continues too.
      await w.#save(doc);
    }
    return w;
  }

  async #save(doc: CursorDoc): Promise<void> {
    if (this.#path) await atomicWriteText(this.#path, JSON.stringify(doc) + "\n");
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
    if (this.#path) {
      await this.#save({
        applied: index,
        pending: { index, path: w.path, size: w.append ? await sizeOf(w.path) : 0 },
      });
    }
    failpoint("simulated.before_write");
    const slash = w.path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(w.path.slice(0, slash), { recursive: true });
    await Deno.writeTextFile(w.path, w.text, { append: w.append });
    failpoint("simulated.after_write");
    if (this.#path) await this.#save({ applied: index + 1, pending: null });
  }
}
