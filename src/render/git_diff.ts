/**
 * Path-only diff bodies (docs/reference/events-and-rendering.md §8): the current `git diff` of a file, mapped to
 * `+ x` / `- x` / `  x` lines. The runner injects the result as `RenderSettings.pathDiff`; renderers never run git
 * themselves. The live runner prefetches asynchronously ({@link PathDiffPrefetch}); the synchronous form
 * (./git_diff_sync.ts) serves offline replay.
 */
import { formatMappedLine, parseUnifiedDiff } from "./diff.ts";
import { runHelper } from "../util/helper.ts";

export { gitPathDiff } from "./git_diff_sync.ts";

const decoder = new TextDecoder();

/** Deadline of one render-time git call. */
const PATH_DIFF_TIMEOUT_MS = 10_000;

async function gitAsync(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const out = await runHelper("git", {
    args: ["-c", "core.quotePath=false", ...args],
    cwd,
    stderr: false,
    timeoutMs: PATH_DIFF_TIMEOUT_MS,
  });
  return { code: out.timedOut ? null : out.code, stdout: decoder.decode(out.stdout) };
}

/** {@link gitPathDiff} for one path without blocking the event loop (bounded git helpers). */
async function gitPathDiffAsync(cwd: string, path: string): Promise<string[] | null> {
  if (cwd === "") return null;
  try {
    const tracked = (await gitAsync(cwd, ["ls-files", "--error-unmatch", "--", path])).code === 0;
    const r = tracked
      ? await gitAsync(cwd, ["diff", "--no-color", "--no-ext-diff", "--", path])
      : await gitAsync(cwd, ["diff", "--no-color", "--no-ext-diff", "--no-index", "--", "/dev/null", path]);
    if (r.code !== 0 && !(r.code === 1 && !tracked)) return null;
    const lines = parseUnifiedDiff(r.stdout).map(formatMappedLine);
    return lines.length ? lines : null;
  } catch {
    return null;
  }
}

/**
 * Path diffs computed before an event is rendered (rendering stays one synchronous step, docs/reference/events-and-rendering.md
 * §8): {@link prefetch} runs the git calls asynchronously — one in flight per path, later callers share it — and
 * {@link get}, the renderer's `pathDiff`, hands each result out once.
 */
export class PathDiffPrefetch {
  readonly #cwd: string;
  readonly #ready = new Map<string, string[] | null>();
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(cwd: string) {
    this.#cwd = cwd;
  }

  /** Compute the current diff of each path (concurrent calls for a path share one computation). */
  async prefetch(paths: readonly string[]): Promise<void> {
    await Promise.all(paths.map((p) => {
      let run = this.#inFlight.get(p);
      if (run === undefined) {
        run = gitPathDiffAsync(this.#cwd, p).then((lines) => {
          this.#ready.set(p, lines);
        }).finally(() => this.#inFlight.delete(p));
        this.#inFlight.set(p, run);
      }
      return run;
    }));
  }

  /** The prefetched diff of `path` (consumed), or null when none was prefetched. Synchronous: a `pathDiff`. */
  readonly get = (path: string): string[] | null => {
    const lines = this.#ready.get(path) ?? null;
    this.#ready.delete(path);
    return lines;
  };

  /** How many git computations are running now (for tests). */
  get inFlight(): number {
    return this.#inFlight.size;
  }
}

const prefetchers = new Map<string, PathDiffPrefetch>();

/** The shared {@link PathDiffPrefetch} of a session cwd (renderers replaced by a view change keep it). */
export function pathDiffPrefetchFor(cwd: string): PathDiffPrefetch {
  let p = prefetchers.get(cwd);
  if (p === undefined) {
    p = new PathDiffPrefetch(cwd);
    prefetchers.set(cwd, p);
  }
  return p;
}
