/**
 * Pattern searches under a deadline (docs/reference/contract.md §3): `matches`, `source_absent` and `stdout_matches`
 * run a packet's regular expression over text the repository (or a command) chose, and a pattern that backtracks
 * catastrophically on it would block the runner's thread for minutes or forever — no deadline, no Ctrl-C. The search
 * runs on a worker thread instead; past the deadline the caller gets `"timeout"` at once. V8 does not interrupt a
 * running search, so a stuck worker is abandoned (terminated, never reused) and burns its thread until the search ends
 * or the runner exits (every command ends in `Deno.exit`).
 */

/** Deadline of one search (one text: a file of `matches` or `source_absent`, a command's output). */
export const REGEX_DEADLINE_MS = 10_000;

let deadlineMs = REGEX_DEADLINE_MS;

/** Set the deadline of later searches (tests use a short one); returns the previous value. */
export function setRegexDeadlineMs(ms: number): number {
  const previous = deadlineMs;
  deadlineMs = ms;
  return previous;
}

/** The deadline of a search started now. */
export function regexDeadlineMs(): number {
  return deadlineMs;
}

/** How long an idle worker is kept for the next search before it is let go. */
const IDLE_MS = 250;

/** A line of a text that a pattern matched: 0-based line index, pattern index, the line trimmed to 200 chars. */
export type LineHit = [line: number, pattern: number, text: string];

/** The outcome of {@link scanLines}: every hit counted, the first `maxHits` kept. */
export interface LineScan {
  total: number;
  hits: LineHit[];
}

type Job =
  | { kind: "test"; pattern: string; flags: string; text: string }
  | { kind: "lines"; patterns: string[]; flags: string; text: string; maxHits: number };

/**
 * The worker's source, inlined: a worker module file would not be found next to a bundled or compiled runner. Lines end
 * at LF, CRLF, a lone CR, U+2028 and U+2029 (the line terminators of the patterns' own grammar).
 */
const WORKER_SOURCE = `
self.onmessage = (e) => {
  const job = e.data;
  try {
    if (job.kind === "test") {
      self.postMessage({ ok: true, value: new RegExp(job.pattern, job.flags).test(job.text) });
      return;
    }
    const regs = job.patterns.map((p) => new RegExp(p, job.flags));
    const lines = job.text.split(/\\r\\n|[\\n\\r\\u2028\\u2029]/);
    const hits = [];
    let total = 0;
    for (let i = 0; i < lines.length; i++) {
      for (let k = 0; k < regs.length; k++) {
        if (!regs[k].test(lines[i])) continue;
        total++;
        if (hits.length < job.maxHits) hits.push([i, k, lines[i].trim().slice(0, 200)]);
      }
    }
    self.postMessage({ ok: true, value: { total, hits } });
  } catch (err) {
    self.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
`;

let url: string | null = null;
let worker: Worker | null = null;
let idle: ReturnType<typeof setTimeout> | undefined;
/** Searches run one at a time, in call order. */
let queue: Promise<unknown> = Promise.resolve();

function startWorker(): Worker {
  url ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  return new Worker(url, { type: "module" });
}

function letGo(): void {
  worker?.terminate();
  worker = null;
}

function run<T>(job: Job, limitMs: number): Promise<T | "timeout"> {
  const next = queue.then(() =>
    new Promise<T | "timeout">((resolve, reject) => {
      if (idle !== undefined) clearTimeout(idle);
      const w = worker ??= startWorker();
      const settle = () => {
        clearTimeout(timer);
        w.onmessage = null;
        w.onerror = null;
        const t = setTimeout(letGo, IDLE_MS);
        Deno.unrefTimer(t);
        idle = t;
      };
      const timer = setTimeout(() => {
        w.onmessage = null;
        w.onerror = null;
        if (worker === w) letGo();
        resolve("timeout");
      }, limitMs);
      w.onmessage = (e: MessageEvent<{ ok: true; value: T } | { ok: false; error: string }>) => {
        settle();
        if (e.data.ok) resolve(e.data.value);
        else reject(new Error(e.data.error));
      };
      w.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        settle();
        if (worker === w) letGo();
        reject(new Error(e.message));
      };
      w.postMessage(job);
    })
  );
  queue = next.catch(() => {});
  return next;
}

/** Whether `pattern` (compiled with `flags`) matches `text`; `"timeout"` past the deadline. Throws on a bad pattern. */
export function testGuarded(
  pattern: string,
  flags: string,
  text: string,
): Promise<boolean | "timeout"> {
  return run<boolean>({ kind: "test", pattern, flags, text }, deadlineMs);
}

/** Test every pattern on every line of `text`; `"timeout"` past the deadline. Throws on a bad pattern. */
export function scanLines(
  patterns: string[],
  flags: string,
  text: string,
  maxHits: number,
): Promise<LineScan | "timeout"> {
  return run<LineScan>({ kind: "lines", patterns, flags, text, maxHits }, deadlineMs);
}
