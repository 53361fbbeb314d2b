/**
 * Waking the runner for requests (docs/reference/control-plane.md §6.2): `Deno.watchFs` on `control/requests/` with a poll
 * fallback; a watcher that errors, ends or reports an overflow (`rescan`) is re-armed, and every re-arm is followed
 * by a rescan so nothing that landed while unwatched waits for the poll. Events are hints only — the listing is the
 * truth — so the waker keeps a dirty flag and resolves waiters.
 *
 * Latency: the first event of a burst wakes the runner at once (leading edge); further events inside the quiet
 * window (`debounceMs`) are folded into one wake-up at its end. A trailing-only debounce put the whole window on
 * every request's path while the provider was silent. Removals are ignored: the runner's own deletions of consumed
 * requests must not wake it, and a removal never creates work.
 */
import { defaultWatch, type WatchFactory, WatchLoop } from "./watch_loop.ts";
import { stageTraceOn, traceStage } from "../util/stage_trace.ts";

export type { WatchFactory };

/** Options of {@link PlaneWaker}. */
export interface PlaneWakerOptions {
  /** Poll fallback interval in ms. */
  pollMs: number;
  /** Quiet window in ms that folds a burst of watch events into at most two wake-ups (0: wake on every event). */
  debounceMs: number;
  /** Use a watcher at all (false: poll only, the benchmarks' baseline). */
  watch: boolean;
  /** Pause before re-arming a watcher that failed or ended (default 250 ms). */
  rearmMs?: number;
  /** Watcher factory (default `Deno.watchFs`, non-recursive). */
  watchFs?: WatchFactory;
  /**
   * Least time in ms between two {@link PlaneWaker.probe}s of the directory's change time (0: every call; negative:
   * never; default 1 with a watcher, never without: the poll-only baseline stays poll-only).
   */
  probeMs?: number;
  /** The probe's `stat` of the directory (default `Deno.statSync`); a fake in tests. */
  statDir?: (dir: string) => Pick<Deno.FileInfo, "mtime" | "ctime">;
}

/** Watches a directory and wakes waiters. */
export class PlaneWaker {
  readonly pollMs: number;
  readonly #dir: string;
  readonly #debounceMs: number;
  readonly #watch: boolean;
  readonly #rearmMs: number;
  readonly #watchFs: WatchFactory;
  /** A rescan is due and no boundary has taken it yet (starts true: the first boundary scans). */
  #dirty = true;
  #waiters: (() => void)[] = [];
  #loop: WatchLoop | null = null;
  #poll: ReturnType<typeof setInterval> | null = null;
  #window: ReturnType<typeof setTimeout> | null = null;
  #trailing = false;
  #stopped = false;
  readonly #probeMs: number;
  readonly #statDir: (dir: string) => Pick<Deno.FileInfo, "mtime" | "ctime">;
  #lastProbe = -Infinity;
  /** The directory's change times at the last probe (`mtime:ctime` in ms), null before the first. */
  #probed: string | null = null;

  constructor(dir: string, opts: PlaneWakerOptions) {
    this.#dir = dir;
    this.pollMs = opts.pollMs;
    this.#debounceMs = opts.debounceMs;
    this.#watch = opts.watch;
    this.#rearmMs = opts.rearmMs ?? 250;
    this.#watchFs = opts.watchFs ?? defaultWatch;
    this.#probeMs = opts.probeMs ?? (opts.watch ? 1 : -1);
    this.#statDir = opts.statDir ?? Deno.statSync;
  }

  /** Watchers armed so far (re-arms included); for tests and diagnostics. */
  get armed(): number {
    return this.#loop?.armed ?? 0;
  }

  /** Start watching and polling. */
  start(): void {
    this.#poll = setInterval(() => this.#poke(true), Math.max(this.pollMs, 50));
    if (!this.#watch) return;
    const trace = stageTraceOn();
    this.#loop = new WatchLoop(this.#dir, {
      watchFs: this.#watchFs,
      rearmMs: this.#rearmMs,
      onEvent: (event) => {
        if (trace) traceStage(`watch_${event.kind}`, event.paths[0]?.slice(event.paths[0].lastIndexOf("/") + 1) ?? "");
        if (event.flag === "rescan") return true;
        if (event.kind !== "remove") this.#poke(false);
        return false;
      },
      // Rescan what landed while nothing watched; at start the flag is already set.
      onGap: () => this.#poke(true),
    });
  }

  #poke(immediate: boolean): void {
    this.#dirty = true;
    if (immediate || this.#debounceMs <= 0) {
      this.#release();
      return;
    }
    if (this.#window !== null) {
      this.#trailing = true;
      return;
    }
    this.#release();
    this.#window = setTimeout(() => {
      this.#window = null;
      const trailing = this.#trailing;
      this.#trailing = false;
      // Only if a boundary has not consumed the burst in the meantime (streaming boundaries take it at once).
      if (trailing && this.#dirty) this.#release();
    }, this.#debounceMs);
  }

  #release(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /**
   * From a loop that is busy (a provider streaming without pause), at most once per `probeMs` of `now` (any ms
   * clock): look at the directory's change times and mark a rescan due when they moved since the last probe. A
   * request renamed in changes them at once, while its watch event still has to travel through the watcher's thread
   * and the event loop — which, with the cores busy, was where the slowest requests waited tens of ms
   * (docs/bench.md, "Control under full load"). A hint like the watcher's: the runner's own claims move the times
   * too (one more, empty, scan), and a change within the times' resolution of the last probe is left to the watcher.
   */
  probe(now: number): void {
    if (this.#probeMs < 0 || now - this.#lastProbe < this.#probeMs || this.#stopped) return;
    this.#lastProbe = now;
    let stamp: string;
    try {
      const st = this.#statDir(this.#dir);
      stamp = `${st.mtime?.getTime()}:${st.ctime?.getTime()}`;
    } catch {
      return; // gone or unreadable: the scan reports it, the watcher re-arms
    }
    if (this.#probed !== null && stamp !== this.#probed) {
      traceStage("probe_changed", "-");
      this.#dirty = true;
    }
    this.#probed = stamp;
  }

  /** Whether a rescan is due; clears the flag. */
  takeDirty(): boolean {
    const d = this.#dirty;
    this.#dirty = false;
    return d;
  }

  /**
   * Resolves at the next wake-up (watch event, poll tick, re-arm) — at once when one happened since the last
   * {@link takeDirty}, so a request that lands while the runner is busy in a boundary is not left for the poll.
   */
  wait(): Promise<void> {
    if (this.#stopped || this.#dirty) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stop watching and polling; releases every waiter. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#poll !== null) clearInterval(this.#poll);
    if (this.#window !== null) clearTimeout(this.#window);
    this.#window = null;
    await this.#loop?.stop();
    this.#release();
  }
}
