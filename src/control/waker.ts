/**
 * Waking the runner for requests (control-plane.md §6.2): `Deno.watchFs` on `control/requests/`, debounced, with a
 * poll fallback; a watcher that errors or ends is re-armed. Events are hints only — the listing is the truth — so
 * the waker just keeps a dirty flag and resolves waiters.
 */

/** Watches a directory and wakes waiters. */
export class PlaneWaker {
  readonly pollMs: number;
  readonly #dir: string;
  readonly #debounceMs: number;
  readonly #watch: boolean;
  #dirty = true;
  #waiters: (() => void)[] = [];
  #watcher: Deno.FsWatcher | null = null;
  #loop: Promise<void> | null = null;
  #poll: ReturnType<typeof setInterval> | null = null;
  #debounce: ReturnType<typeof setTimeout> | null = null;
  #rearm: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;
  #stopped = false;

  constructor(dir: string, opts: { pollMs: number; debounceMs: number; watch: boolean }) {
    this.#dir = dir;
    this.pollMs = opts.pollMs;
    this.#debounceMs = opts.debounceMs;
    this.#watch = opts.watch;
  }

  /** Start watching and polling. */
  start(): void {
    this.#poll = setInterval(() => this.#poke(true), Math.max(this.pollMs, 50));
    if (this.#watch) this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        this.#watcher = Deno.watchFs(this.#dir, { recursive: false });
        for await (const _event of this.#watcher) {
          if (this.#stopped) break;
          this.#poke(false);
        }
      } catch { /* re-armed below */ }
      this.#watcher = null;
      if (this.#stopped) break;
      // The watcher ended or failed: rescan everything, then re-arm after a short pause.
      this.#poke(true);
      await new Promise<void>((resolve) => {
        this.#rearm = {
          resolve,
          timer: setTimeout(() => {
            this.#rearm = null;
            resolve();
          }, 250),
        };
      });
    }
  }

  #poke(immediate: boolean): void {
    this.#dirty = true;
    if (immediate || this.#debounceMs <= 0) {
      this.#release();
      return;
    }
    if (this.#debounce !== null) return;
    this.#debounce = setTimeout(() => {
      this.#debounce = null;
      this.#release();
    }, this.#debounceMs);
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Whether a rescan is due; clears the flag. */
  takeDirty(): boolean {
    const d = this.#dirty;
    this.#dirty = false;
    return d;
  }

  /** Resolves at the next wake-up (watch event after the debounce, or a poll tick). */
  wait(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stop watching and polling; releases every waiter. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll !== null) clearInterval(this.#poll);
    if (this.#debounce !== null) clearTimeout(this.#debounce);
    if (this.#rearm) {
      clearTimeout(this.#rearm.timer);
      this.#rearm.resolve();
    }
    try {
      this.#watcher?.close();
    } catch { /* closed */ }
    await this.#loop;
    this.#release();
  }
}
