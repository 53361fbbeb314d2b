/**
 * Spare files for the attempts' logs (docs/bench.md, "Eighth pass"). An attempt's `.log` and `.events.jsonl` are new
 * files, and creating a file was the slowest step of an attempt's start (ext4 without a journal scans the inodes freed
 * in the last minute for one it may reuse). So the run keeps two empty files made ahead of time, off the runner's
 * thread, under fixed hidden names in `logs/` (`.spare-1`, `.spare-2`: no `.log` or `.events.jsonl` suffix, so no
 * reader takes them for an attempt's files). An attempt gives a spare its name with `link()` — which, like the
 * create-new open it replaces, fails on a taken name and never replaces nor follows anything there — removes the
 * spare name, and checks the handle against the new name as a created file is checked (`verifyHandle()`). The state
 * names the file only after that, as before. Without a ready spare the file is created as before.
 *
 * When they are made matters on a small machine: the spares are made while the runner waits for a prompt's
 * `progress.log` fsync (`appendProgress()` in src/run/context.ts) and at the run's open, one at a time — never while
 * an attempt's session or verification runs, whose CPU and file calls the worker thread would compete with, nor while
 * the attempt names its files (making a file holds the directory's lock, which the next link would wait for).
 *
 * Only the lease holder writes `logs/`, so fixed names are safe. The spares are removed when the run closes; a spare
 * left by a crash is removed by the next run on the store before it makes its own, so at most two empty hidden files
 * outlive a killed runner.
 */
import { FILE_MODE } from "../util/fs.ts";
import { lstatStoreSync, verifyHandle } from "../util/safe_fs.ts";
import { storePaths } from "../store/paths.ts";

/** One spare: its fixed path and, once made, its open handle. */
interface Slot {
  readonly path: string;
  file: Deno.FsFile | null;
}

/** The number of spares: an attempt takes two (its log and its events file). */
const SLOTS = 2;

/** The spare files of one run's `logs/` directory. */
export class SpareFiles {
  readonly #slots: Slot[];
  #closed = false;
  /** Set when the file system refused a link (no hard links there): every attempt creates its files. */
  #off = false;
  /** `logs/` was checked (a real directory under the store root) since the run opened. */
  #dirOk = false;
  /** The making of the missing spares under way, if any. */
  #making: Promise<void> | null = null;

  constructor(readonly dir: string) {
    this.#slots = Array.from({ length: SLOTS }, (_, i) => ({ path: `${dir}/.spare-${i + 1}`, file: null }));
  }

  /** The fixed paths of the spares (tests, docs). */
  get paths(): string[] {
    return this.#slots.map((s) => s.path);
  }

  /**
   * `logs/` was just checked or made (an attempt's start, or the run's open): spares may be made there from the next
   * {@link refill} on (not at once: an attempt creating its own files now would wait for the directory's lock).
   */
  dirChecked(): void {
    this.#dirOk = true;
  }

  /** How many spares are ready to be taken. */
  get ready(): number {
    return this.#slots.filter((s) => s.file !== null).length;
  }

  /**
   * Start making every missing spare, asynchronously (a worker thread); never throws. Nothing before `logs/` was
   * checked ({@link dirChecked}): the spares are made there without a check of their own.
   */
  refill(): void {
    if (this.#closed || this.#off || !this.#dirOk || this.#making !== null) return;
    this.#making = this.#makeAll().finally(() => {
      this.#making = null;
    });
  }

  /** Resolves once no spare is being made (tests). */
  async settled(): Promise<void> {
    while (this.#making !== null) await this.#making;
  }

  /**
   * Make the missing spares one after the other: while a file is being made the directory is locked, and even the
   * path check before the next open (on the runner's thread) would wait for it.
   */
  async #makeAll(): Promise<void> {
    for (const s of this.#slots) {
      if (s.file === null && !this.#closed) await this.#make(s);
    }
  }

  async #make(s: Slot): Promise<void> {
    try {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(s.path, { read: true, append: true, createNew: true, mode: FILE_MODE });
      } catch (e) {
        if (!(e instanceof Deno.errors.AlreadyExists)) return;
        // Left by a killed runner (or planted): removed by name (a link itself, never what it names), made again.
        const info = await Deno.lstat(s.path);
        if (info.isDirectory) return;
        await Deno.remove(s.path);
        file = await Deno.open(s.path, { read: true, append: true, createNew: true, mode: FILE_MODE });
      }
      if (this.#closed) {
        file.close();
        removeQuietly(s.path);
        return;
      }
      s.file = file;
    } catch {
      /* no spare in this slot: the attempt creates its file itself */
    }
  }

  /**
   * Give a ready spare the name `path`: its handle (checked against `path`), `"taken"` when something is at `path`
   * already (the spare is kept for the next name), or null when no spare is ready or the link failed otherwise (the
   * caller creates the file). Throws `StoreIntegrityError` when what `path` names is not the spare's file. The slot
   * is made again at the next {@link refill}: not at once, since making a file holds the directory's lock, which the
   * next link (the attempt's events file) would wait for.
   */
  adopt(path: string): Deno.FsFile | "taken" | null {
    const s = this.#slots.find((x) => x.file !== null);
    if (s === undefined || this.#off) return null;
    const file = s.file!;
    try {
      Deno.linkSync(s.path, path);
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists) return "taken";
      // No hard links on this file system, or the spare is gone: stop using spares for this run.
      this.#off = true;
      return null;
    }
    s.file = null;
    removeQuietly(s.path); // a name left behind is removed before that slot is made again
    verifyHandle(path, file);
    return file;
  }

  /** Close the handles and remove the spares (the run closes), once a spare being made is done. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.settled();
    for (const s of this.#slots) {
      if (s.file !== null) {
        s.file.close();
        s.file = null;
      }
      removeQuietly(s.path);
    }
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch { /* absent, or not ours to remove (a directory): left */ }
}

let active: SpareFiles | null = null;

/**
 * Start keeping spare files in the store's `logs/` for one run: made at once when `logs/` is there, else after the
 * first attempt made it (that attempt creates its own files). A second run in the same process takes over; each
 * closes its own with {@link closeSpareFiles}.
 */
export function openSpareFiles(storeRoot: string): SpareFiles {
  const p = storePaths(storeRoot);
  active = new SpareFiles(p.logs);
  let there = false;
  try {
    there = lstatStoreSync(p.root, "dir") !== null && lstatStoreSync(p.logs, "dir") !== null;
  } catch { /* not a plain directory: the attempt refuses it by name */ }
  if (there) {
    active.dirChecked();
    active.refill();
  }
  return active;
}

/** Stop keeping spares and remove them. */
export async function closeSpareFiles(spares: SpareFiles | null): Promise<void> {
  if (spares === null) return;
  if (active === spares) active = null;
  await spares.close();
}

/** The spares of the run writing `logsDir`, if one keeps them. */
export function sparesFor(logsDir: string): SpareFiles | null {
  return active !== null && active.dir === logsDir ? active : null;
}
