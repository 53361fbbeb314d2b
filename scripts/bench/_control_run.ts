/**
 * The `control` case against a real run (docs/bench.md): `prompt_runner run` of a one-prompt simulated packet whose
 * provider streams M messages at zero delay, in its own process, exactly as a user starts it. While it streams, this
 * process makes Control API calls (`setView`) and times each from the call to the moment it sees the request's
 * `applied` entry in `control/log.jsonl` (one clock, this process's). A sample counts only when the run recorded the
 * request's `view_changed` event before its last streamed message: the request was applied under the full stream.
 * Runs with requests alternate with runs without; the run's streaming rate (its `message_streamed` events over the
 * instants of the first and last) tells what the requests cost the runner.
 */
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { ControlError, setView } from "../../src/control/mod.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";
import { check, median, percentile, round } from "./_harness.ts";
import { streamPacket } from "./_stream_packet.ts";
import { AppendedLines } from "./_lines.ts";
import { flushStageTrace, traceStageAt } from "../../src/util/stage_trace.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads `control/log.jsonl` as it grows (woken by a watcher on the log file itself, polled every 2 ms as a fallback).
 * Not a watcher on `control/`: every write of `events.jsonl` wakes that one, and while the runner streams at full
 * speed this process then spent its time on tens of thousands of watch events a second — its own backlog, measured
 * as request latency (it slowed the Control API call above all).
 */
export class LogTail {
  readonly #log: AppendedLines;
  readonly #watcher: Deno.FsWatcher;
  #tick: (() => void) | null = null;
  /** Request name → its final outcome and when this process first saw it. */
  readonly seen = new Map<string, { outcome: string; at: number }>();

  constructor(storeRoot: string) {
    const p = storePaths(storeRoot);
    this.#log = new AppendedLines(p.log);
    const watcher = Deno.watchFs(p.log, { recursive: false }); // the plane created it when it opened
    this.#watcher = watcher;
    void (async () => {
      try {
        for await (const _ of watcher) this.#tick?.();
      } catch { /* closed */ }
    })();
  }

  #read(): void {
    const { at, lines } = this.#log.read();
    for (const line of lines) {
      const e = JSON.parse(line) as { request?: unknown; outcome?: unknown };
      if (typeof e.request === "string" && (e.outcome === "applied" || e.outcome === "rejected")) {
        if (!this.seen.has(e.request)) this.seen.set(e.request, { outcome: String(e.outcome), at });
      }
    }
  }

  /**
   * The final outcome of `request` once it is in the log; throws after `timeoutMs`. With stage tracing on
   * (src/util/stage_trace.ts), notes when the read that found it was woken and by what (the log's watcher or the
   * 2 ms poll).
   */
  async until(request: string, timeoutMs: number): Promise<{ outcome: string; at: number }> {
    const end = performance.now() + timeoutMs;
    let woken = "first";
    let wokenAt = performance.now();
    for (;;) {
      this.#read();
      const got = this.seen.get(request);
      if (got) {
        traceStageAt(performance.timeOrigin + wokenAt, `bench_woken_${woken}`, request);
        return got;
      }
      check(performance.now() < end, `request ${request} has no outcome in log.jsonl after ${timeoutMs} ms`);
      woken = await new Promise<string>((r) => {
        const t = setTimeout(() => r("poll"), 2);
        this.#tick = () => {
          clearTimeout(t);
          r("watch");
        };
      });
      wokenAt = performance.now();
      this.#tick = null;
    }
  }

  close(): void {
    try {
      this.#watcher.close();
    } catch { /* already closed */ }
  }
}

/** With stage tracing on: the bench's own stages of one request, on the one wall clock. */
export function traceCall(label: string, request: string, callStart: number, callEnd: number, seen: number): void {
  const o = performance.timeOrigin;
  traceStageAt(o + callStart, `bench_case_${label}`, request);
  traceStageAt(o + callStart, "bench_call_start", request);
  traceStageAt(o + callEnd, "bench_call_end", request);
  traceStageAt(o + seen, "bench_seen", request);
}

function cli(args: string[]): Deno.ChildProcess {
  const flags = denoFlagsFor(findCommand(args)!.entry.permissions);
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...flags, MAIN, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** The run id once the run's session is live and streaming (its snapshot says so). */
async function liveRunId(storeRoot: string, run: Deno.ChildProcess, exited: () => boolean): Promise<string> {
  const snap = storePaths(storeRoot).snapshot;
  const end = performance.now() + 60_000;
  while (performance.now() < end && !exited()) {
    try {
      const s = JSON.parse(await Deno.readTextFile(snap)) as { run_id?: unknown; session_live?: unknown };
      if (s.session_live === true && typeof s.run_id === "string") return s.run_id;
    } catch { /* not written yet */ }
    await sleep(2);
  }
  check(false, `the run (pid ${run.pid}) never had a live session`);
}

interface Envelope {
  seq: number;
  type: string;
  at: string;
  data?: { request?: unknown };
}

/** What one run gave. */
export interface RunSample {
  /** request → applied, ms, for the requests applied while the stream ran. */
  e2e: number[];
  /** The API call alone, ms, for the same requests. */
  call: number[];
  /** Streamed messages per second (first to last `message_streamed`). */
  rate: number;
  /** Each counted request: its name and when its call started (ms since the epoch, sub-ms; for tracing). */
  requests: { request: string; startedAt: number; e2e: number; call: number }[];
  messages: number;
  streamMs: number;
}

/** One real run of `messages` full-speed messages; with `requests`, view changes every `gapMs` while it streams. */
export async function realRun(
  root: string,
  messages: number,
  requests: boolean,
  gapMs: [number, number],
): Promise<RunSample> {
  const dir = await streamPacket(root, messages);
  const storeRoot = storeRootForPacket(dir);
  const run = cli(["run", dir, "--no-commit"]);
  const errText = new Response(run.stderr).text();
  let exited = false;
  const status = run.status.then((s) => {
    exited = true;
    return s;
  });
  const pending: { request: string; e2e: number; call: number; startedAt: number }[] = [];
  let tail: LogTail | null = null;
  try {
    const runId = await liveRunId(storeRoot, run, () => exited);
    if (requests) {
      tail = new LogTail(storeRoot);
      for (let i = 0; !exited; i++) {
        await sleep(gapMs[0] + Math.random() * (gapMs[1] - gapMs[0]));
        if (exited) break;
        const t0 = performance.now();
        let name: string;
        try {
          name = (await setView({ storeRoot, runId }, { tool_output: i % 2 ? "full" : "none" }, { author: "bench" }))
            .request;
        } catch (e) {
          if (e instanceof ControlError) break; // the run ended between the check and the call
          throw e;
        }
        const t1 = performance.now();
        const got = await tail.until(name, 30_000);
        if (got.outcome !== "applied") break; // refused at close: "run has finished"
        pending.push({ request: name, e2e: got.at - t0, call: t1 - t0, startedAt: performance.timeOrigin + t0 });
        traceCall("real_run", name, t0, t1, got.at);
      }
    }
    const s = await status;
    check(s.code === 0, `run exited ${s.code}: ${(await errText).slice(-400)}`);
    const lines = (await Deno.readTextFile(storePaths(storeRoot).events)).trimEnd().split("\n")
      .map((l) => JSON.parse(l) as Envelope);
    check(lines.at(-1)?.type === "run_finished", "the run's stream did not end with run_finished");
    const streamed = lines.filter((l) => l.type === "message_streamed");
    check(streamed.length >= messages, `the run streamed ${streamed.length} of ${messages} messages`);
    const first = streamed[0]!, last = streamed.at(-1)!;
    const appliedAt = new Map<string, number>();
    for (const l of lines) {
      if (l.type === "view_changed" && typeof l.data?.request === "string") appliedAt.set(l.data.request, l.seq);
    }
    const under = pending.filter((p) => (appliedAt.get(p.request) ?? Infinity) < last.seq);
    check(pending.every((p) => appliedAt.has(p.request)), "an applied request has no view_changed event");
    const streamMs = Date.parse(last.at) - Date.parse(first.at);
    check(streamMs > 0, "the stream took no measurable time");
    return {
      e2e: under.map((p) => p.e2e),
      call: under.map((p) => p.call),
      rate: (streamed.length - 1) / (streamMs / 1000),
      requests: under,
      messages: streamed.length,
      streamMs,
    };
  } finally {
    flushStageTrace();
    tail?.close();
    if (!exited) run.kill("SIGKILL");
    await status;
    await errText.catch(() => "");
  }
}

/** Most messages a run is given: its events stay in one 64 MiB segment (about 300 bytes each). */
const MAX_MESSAGES = 150_000;

/** Options of {@link realRunLatency}. */
export interface RealRunOptions {
  /** Pairs of runs (one with requests, one without, their order alternated); at least 5. */
  repeats: number;
  /** How long each run should stream, in seconds (sized from a first run without requests). */
  streamSeconds: number;
  /** Messages of the sizing run. */
  probeMessages: number;
  /** Pause before each request, ms (uniform in the range). */
  gapMs: [number, number];
  /** The fewest samples (over every run) the percentiles may be taken over. */
  minSamples: number;
}

/** request → applied against real full-speed runs; the streaming rate with requests vs without. */
export async function realRunLatency(o: RealRunOptions) {
  const root = await Deno.makeTempDir({ prefix: "pr-bench-control-run-" });
  try {
    const probe = await realRun(root, o.probeMessages, false, o.gapMs);
    const messages = Math.min(MAX_MESSAGES, Math.max(o.probeMessages, Math.round(probe.rate * o.streamSeconds)));
    const e2e: number[] = [], call: number[] = [], loaded: number[] = [], unloaded: number[] = [];
    const after: number[] = [];
    const pair = async (i: number) => {
      for (const withRequests of i % 2 ? [false, true] : [true, false]) {
        const r = await realRun(root, messages, withRequests, o.gapMs);
        if (withRequests) {
          e2e.push(...r.e2e);
          call.push(...r.call);
          after.push(...r.e2e.map((x, j) => x - r.call[j]!));
          loaded.push(r.rate);
        } else unloaded.push(r.rate);
      }
    };
    let pairs = 0;
    while (pairs < o.repeats) await pair(pairs++);
    // Each run streams what the probe's rate says, at most MAX_MESSAGES: on a fast machine (the cap binds) or one
    // slower than during the probe, the pairs give fewer requests than the percentiles need, so more pairs follow — at
    // most twice as many again.
    while (e2e.length < o.minSamples && pairs < 3 * o.repeats) await pair(pairs++);
    check(
      e2e.length >= o.minSamples,
      `only ${e2e.length} requests were applied under the stream in ${pairs} runs (${o.minSamples} needed)`,
    );
    return {
      pairs,
      samples: e2e.length,
      messages,
      p50: round(percentile(e2e, 50)),
      p99: round(percentile(e2e, 99)),
      callP50: round(percentile(call, 50)),
      callP99: round(percentile(call, 99)),
      afterP50: round(percentile(after, 50)),
      afterP99: round(percentile(after, 99)),
      loaded: median(loaded),
      unloaded: median(unloaded),
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
