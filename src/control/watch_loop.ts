/**
 * A directory watcher that re-arms itself, shared by the runner's request waker (docs/reference/control-plane.md §6.2) and the
 * followers' tailer (§11.1). Watch events are hints only: a watcher that fails or ends is replaced after a pause
 * (so one that keeps failing cannot spin), one whose owner reports an overflow is replaced at once, and the owner
 * hears of every gap — after a watcher ends and right after its replacement is armed — so it can rescan whatever
 * landed while nothing watched.
 *
 * A watcher is never closed while closing it could freeze the process (a watcher thread blocked opening a FIFO,
 * see watch_release.ts): it is then detached — left open and never read again — and {@link WatchLoop.stop} returns
 * without waiting for it; an overflow is then answered with a rescan on the same watcher instead of a replacement.
 */
import { watcherCloseUnsafe } from "./watch_release.ts";

/** The watcher surface; `Deno.watchFs` by default, a fake in tests. */
export type WatchFactory = (dir: string) => AsyncIterable<Deno.FsEvent> & { close(): void };

/** `Deno.watchFs`, non-recursive. */
export const defaultWatch: WatchFactory = (dir) => Deno.watchFs(dir, { recursive: false });

/** Options of {@link WatchLoop}. */
export interface WatchLoopOptions {
  watchFs: WatchFactory;
  /** Pause before re-arming a watcher that failed or ended. */
  rearmMs: number;
  /** One watch event; return true when it reports an overflow, to replace the watcher without a pause. */
  onEvent(event: Deno.FsEvent): boolean;
  /** Something may have landed while nothing watched. */
  onGap(): void;
}

/** Watches one directory until {@link WatchLoop.stop}, re-arming as needed. The first watcher is armed at once. */
export class WatchLoop {
  #stopped = false;
  #watcher: { close(): void } | null = null;
  #rearm: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;
  readonly #loop: Promise<void>;
  /** Watchers armed so far (re-arms included); for tests and diagnostics. */
  armed = 0;

  constructor(dir: string, opts: WatchLoopOptions) {
    // Runs synchronously up to the first await: the first watcher exists when the constructor returns.
    this.#loop = this.#run(dir, opts);
  }

  async #run(dir: string, opts: WatchLoopOptions): Promise<void> {
    for (let attempt = 0; !this.#stopped; attempt++) {
      let overflow = false;
      try {
        const watcher = opts.watchFs(dir);
        this.#watcher = watcher;
        this.armed++;
        if (attempt > 0) opts.onGap();
        // Iterated by hand: leaving a `for await` calls `return()`, which closes the watcher unconditionally.
        const events = watcher[Symbol.asyncIterator]();
        for (;;) {
          const next = await events.next();
          if (this.#stopped) return; // stop() closed or detached it
          if (next.done) break;
          if (!opts.onEvent(next.value)) continue;
          if (watcherCloseUnsafe()) {
            opts.onGap(); // rescan on the same watcher: replacing it would mean closing it
            continue;
          }
          overflow = true;
          break;
        }
      } catch { /* failed or closed: re-armed below */ }
      if (this.#stopped) return;
      this.#closeWatcher();
      opts.onGap();
      if (!overflow) await this.#pause(opts.rearmMs);
    }
  }

  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#rearm = {
        resolve,
        timer: setTimeout(() => {
          this.#rearm = null;
          resolve();
        }, ms),
      };
    });
  }

  #closeWatcher(): void {
    try {
      if (!watcherCloseUnsafe()) this.#watcher?.close();
    } catch { /* already closed */ }
    this.#watcher = null;
  }

  /**
   * Stop watching; resolves when the loop has ended — or at once when the watcher had to be detached instead of
   * closed (its loop then never ends; the process exits around it).
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#rearm) {
      clearTimeout(this.#rearm.timer);
      this.#rearm.resolve();
      this.#rearm = null;
    }
    if (this.#watcher !== null && watcherCloseUnsafe()) {
      this.#watcher = null; // detached: its pending read never settles, so the loop is not awaited
      return;
    }
    this.#closeWatcher();
    await this.#loop;
  }
}
