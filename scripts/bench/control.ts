/**
 * Control plane latency and follower throughput (docs/reference/control-plane.md §6.2, §11):
 * - request → applied: a runner child process (lease, plane, and the real `pumpStream` loop of src/run/stream.ts
 *   racing the next provider event against `plane.wake()`) serves a simulated provider that is either silent or
 *   streams an event every ~2 ms; this process issues each request with the Control API's `setView` and times it
 *   until the child reports the `applyView` hook on its stdout. Reported end to end (from the `setView` call, so the
 *   client's fsync is included), the client write alone, and after publication (from `setView` returning, i.e. the
 *   file renamed into `requests/`). Measured with `Deno.watchFs` and against a 200 ms polling baseline (no watcher)
 *   in the same run; the baseline's request gaps span a whole poll period so its phase is uniform.
 * - runner CPU while idle (silent provider, no requests) with the watcher and with the 200 ms poll;
 * - append → subscriber delivery (`record()` + the boundary flush until a follower yields the envelope), watcher
 *   vs 200 ms polling;
 * - following a 1,000,000-event file: events/s and peak RSS delta (flat memory is the goal).
 */
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { openPlane } from "../../src/control/plane.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { followRun } from "../../src/control/follow.ts";
import { setView } from "../../src/control/mod.ts";
import type { PlaneHooks } from "../../src/control/plane_types.ts";
import type { LaneSession } from "../../src/lanes/types.ts";
import type { RunContext } from "../../src/run/context.ts";
import { pumpStream } from "../../src/run/stream.ts";

const RUN_ID = "20261130T120000Z-BENCH2";
const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "b" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SELF = new URL(import.meta.url).pathname;

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 100) / 100;
}

/** Options of one runner child. */
interface RunnerMode {
  watch: boolean;
  pollMs: number;
  streaming: boolean;
}

/**
 * The runner half of {@link requestLatency}, run in its own process: takes the lease, opens the plane and pumps a
 * simulated provider through `pumpStream` until stdin closes. Prints `ready` once open and `applied` from inside
 * the `applyView` hook (synchronously, so the parent sees the moment the runner applied the view).
 */
async function runnerOnly(storeRoot: string, mode: RunnerMode): Promise<void> {
  const lease = await acquireLease(storeRoot, { runId: RUN_ID, packetDir: storeRoot, argv: ["bench"] });
  const out = new TextEncoder();
  const say = (line: string) => {
    const bytes = out.encode(line + "\n");
    let off = 0;
    while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
  };
  const hooks: PlaneHooks = {
    applyView: () => say("applied"),
    steerGate: () => ({ promptRunning: false, sessionLive: false, used: 0, max: 3 }),
    steerAccepted() {},
    notice() {},
  };
  const plane = await openPlane({
    storeRoot,
    runId: RUN_ID,
    resumed: false,
    packet: { name: "bench", dir: storeRoot },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 1,
    maxSteers: 3,
    hooks,
    watch: mode.watch,
    pollMs: mode.pollMs,
  });
  plane.transition({ stage: "session", prompt_id: "01", attempt: 1, stream: "initial", session_live: true });
  let stop = () => {};
  const stopped = new Promise<void>((r) => (stop = r));
  let running = true;
  void stopped.then(() => (running = false));
  async function* provider(): AsyncGenerator<ProviderEvent> {
    yield { type: "run_started", data: { provider_session_id: "b", model: "simulated" } };
    if (mode.streaming) {
      while (running) {
        await Promise.race([sleep(2), stopped]);
        if (running) yield { type: "message_streamed", data: { delta: "token " } };
      }
    } else await stopped;
    yield { type: "run_completed", data: { stop_reason: "end_turn" } };
  }
  const session: LaneSession = {
    events: provider(),
    sessionId: "b",
    isReady: () => true,
    whenReady: () => Promise.resolve(),
    interrupt: () => Promise.resolve(),
    kill: () => {},
    end: () => ({ kind: "ok" }),
    process: null,
  };
  // pumpStream only touches the plane when there is no live renderer and no --json output.
  const runCtx = { plane, io: { json: false }, live: null, attemptLog: null } as unknown as RunContext;
  const pumped = pumpStream(runCtx, session, {
    promptId: "01",
    attempt: 1,
    kind: "initial",
    provider: "simulated",
    sessionId: "b",
  }, null);
  say("ready");
  for await (const _ of Deno.stdin.readable) { /* until the parent closes stdin */ }
  stop();
  await pumped;
  await plane.close("completed", null);
  await lease.release();
}

/** User + system CPU seconds of a process so far, from `/proc` (null where there is no procfs). */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

/** Lines of a child's stdout, one waiter at a time. */
class LineQueue {
  #lines: string[] = [];
  #waiter: ((line: string | null) => void) | null = null;
  #ended = false;
  constructor(stream: ReadableStream<Uint8Array>) {
    void (async () => {
      let buf = "";
      for await (const text of stream.pipeThrough(new TextDecoderStream())) {
        buf += text;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          this.#push(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      }
      this.#ended = true;
      this.#waiter?.(null);
    })();
  }
  #push(line: string): void {
    const w = this.#waiter;
    this.#waiter = null;
    if (w) w(line);
    else this.#lines.push(line);
  }
  /** The next line (null at end of stream); throws after `timeoutMs`. */
  next(timeoutMs: number): Promise<string | null> {
    if (this.#lines.length) return Promise.resolve(this.#lines.shift()!);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        reject(new Error(`no line from the runner child within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }
}

/** request → applied latency against a runner child; also the child's CPU while idle when `idleMs` > 0. */
async function requestLatency(mode: RunnerMode & { samples: number; gapMs: [number, number]; idleMs: number }) {
  const storeRoot = await Deno.makeTempDir({ prefix: "pr-bench-control-" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SELF, "--runner", storeRoot, JSON.stringify(mode)],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = new LineQueue(child.stdout);
  const e2e: number[] = [];
  const write: number[] = [];
  const published: number[] = [];
  let idleCpuPct: number | null = null;
  try {
    if ((await lines.next(30_000)) !== "ready") throw new Error("runner child did not start");
    if (mode.idleMs > 0) {
      await sleep(500); // let start-up settle
      const c0 = cpuSeconds(child.pid);
      const t0 = performance.now();
      await sleep(mode.idleMs);
      const c1 = cpuSeconds(child.pid);
      if (c0 !== null && c1 !== null) {
        idleCpuPct = Math.round(((c1 - c0) / ((performance.now() - t0) / 1000)) * 100 * 100) / 100;
      }
    }
    const ref = { storeRoot, runId: RUN_ID };
    for (let i = 0; i < mode.samples; i++) {
      await sleep(mode.gapMs[0] + Math.random() * (mode.gapMs[1] - mode.gapMs[0]));
      const t0 = performance.now();
      await setView(ref, { tool_output: i % 2 ? "full" : "none" }, { author: "bench" });
      const t1 = performance.now();
      const line = await lines.next(10_000);
      const t2 = performance.now();
      if (line !== "applied") throw new Error(`unexpected line from the runner child: ${line}`);
      e2e.push(t2 - t0);
      write.push(t1 - t0);
      published.push(t2 - t1);
    }
  } finally {
    await child.stdin.close();
    await child.status;
    await Deno.remove(storeRoot, { recursive: true });
  }
  return {
    p50: pct(e2e, 50),
    p99: pct(e2e, 99),
    writeP50: pct(write, 50),
    writeP99: pct(write, 99),
    publishedP50: pct(published, 50),
    publishedP99: pct(published, 99),
    idleCpuPct,
  };
}

/** append → subscriber delivery latency. */
async function deliveryLatency(opts: { watch: boolean; pollMs: number; samples: number; gapMs: [number, number] }) {
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-control-" });
  const lease = await acquireLease(dir, { runId: RUN_ID, packetDir: dir, argv: [] });
  const hooks: PlaneHooks = {
    applyView() {},
    steerGate: () => ({ promptRunning: false, sessionLive: false, used: 0, max: 3 }),
    steerAccepted() {},
    notice() {},
  };
  const plane = await openPlane({
    storeRoot: dir,
    runId: RUN_ID,
    resumed: false,
    packet: { name: "bench", dir },
    workspace: null,
    view: { ...DEFAULT_VIEW },
    selectedCount: 1,
    maxSteers: 3,
    hooks,
    watch: false,
  });
  const sentAt = new Map<number, number>();
  const lat: number[] = [];
  let waiter = null as (() => void) | null;
  const follower = (async () => {
    for await (const item of followRun(dir, RUN_ID, { from: "current", pollMs: opts.pollMs, watch: opts.watch })) {
      const t = typeof item.seq === "number" ? sentAt.get(item.seq) : undefined;
      if (t !== undefined) {
        lat.push(performance.now() - t);
        waiter?.();
      }
    }
  })();
  await sleep(100);
  for (let i = 0; i < opts.samples; i++) {
    await sleep(opts.gapMs[0] + Math.random() * (opts.gapMs[1] - opts.gapMs[0]));
    const got = new Promise<void>((r) => (waiter = r));
    const env = plane.record({ type: "notice", data: { level: "info", code: "bench", message: `n${i}` } }, ctx);
    sentAt.set(env.seq, performance.now());
    plane.boundary(); // the runner flushes at every boundary
    await got;
  }
  await plane.close("completed", null);
  await follower;
  await lease.release();
  await Deno.remove(dir, { recursive: true });
  return { p50: pct(lat, 50), p99: pct(lat, 99) };
}

/** Follow a finished 1,000,000-event stream from the start. */
async function followBig(count: number) {
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-control-" });
  await Deno.mkdir(`${dir}/control`, { recursive: true });
  await Deno.writeTextFile(`${dir}/control/snapshot.json`, JSON.stringify({ run_id: RUN_ID, status: "completed" }));
  const file = await Deno.open(`${dir}/control/events.jsonl`, { write: true, create: true });
  const enc = new TextEncoder();
  const chunk: string[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const type = seq === count ? "run_finished" : "message_streamed";
    const data = seq === count ? { status: "completed" } : { delta: `token ${seq} é ` };
    chunk.push(
      JSON.stringify({
        seq,
        at: "2026-11-30T12:00:00.000Z",
        run_id: RUN_ID,
        origin: seq === count ? "runner" : "provider",
        type,
        prompt_id: "01",
        attempt: 1,
        stream: "initial",
        provider: "simulated",
        session_id: "b",
        timestamp: null,
        data,
      }),
    );
    if (chunk.length === 10_000 || seq === count) {
      const bytes = enc.encode(chunk.join("\n") + "\n");
      let off = 0;
      while (off < bytes.length) off += await file.write(bytes.subarray(off));
      chunk.length = 0;
    }
  }
  file.close();
  const size = (await Deno.stat(`${dir}/control/events.jsonl`)).size;
  // Follow in a fresh process so the RSS delta measures the follower alone, not the generator's garbage.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--follow-only", dir],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  await Deno.remove(dir, { recursive: true });
  const r = JSON.parse(new TextDecoder().decode(out.stdout)) as { n: number; eventsPerSec: number; rssDeltaMb: number };
  return { ...r, mb: size / 1e6 };
}

/** The follower half of {@link followBig}, run in its own process. */
async function followOnly(dir: string) {
  const rss0 = Deno.memoryUsage().rss;
  let peak = rss0;
  let n = 0;
  const t0 = performance.now();
  for await (const _ of followRun(dir, RUN_ID, { follow: true, pollMs: 1000 })) {
    n++;
    if (n % 10_000 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  const secs = (performance.now() - t0) / 1000;
  return { n, eventsPerSec: Math.round(n / secs), rssDeltaMb: (peak - rss0) / 1e6 };
}

/** Run the control plane benchmarks. */
export async function bench(): Promise<Record<string, number | string>> {
  const samples = Number(Deno.env.get("BENCH_CONTROL_SAMPLES") ?? 200);
  const pollSamples = Number(Deno.env.get("BENCH_CONTROL_POLL_SAMPLES") ?? 40);
  const idleMs = Number(Deno.env.get("BENCH_CONTROL_IDLE_MS") ?? 5000);
  const big = Number(Deno.env.get("BENCH_CONTROL_EVENTS") ?? 1_000_000);
  const watched = { watch: true, pollMs: 1000, samples, gapMs: [10, 60] as [number, number] };
  const polled = { watch: false, pollMs: 200, samples: pollSamples, gapMs: [20, 220] as [number, number] };
  const silentWatch = await requestLatency({ ...watched, streaming: false, idleMs });
  const silentPoll = await requestLatency({ ...polled, streaming: false, idleMs });
  const streamWatch = await requestLatency({ ...watched, streaming: true, idleMs: 0 });
  const streamPoll = await requestLatency({ ...polled, streaming: true, idleMs: 0 });
  const subWatch = await deliveryLatency({ ...watched, watch: true });
  const subPoll = await deliveryLatency(polled);
  const follow = await followBig(big);
  const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
  return {
    "request_samples": samples,
    "request_poll200_samples": pollSamples,
    "request_applied_silent_p50_ms": silentWatch.p50,
    "request_applied_silent_p99_ms": silentWatch.p99,
    "request_applied_silent_after_publish_p50_ms": silentWatch.publishedP50,
    "request_applied_silent_after_publish_p99_ms": silentWatch.publishedP99,
    "request_applied_silent_poll200_p50_ms": silentPoll.p50,
    "request_applied_silent_poll200_p99_ms": silentPoll.p99,
    "request_applied_silent_p50_ratio_vs_poll200": ratio(silentWatch.p50, silentPoll.p50),
    "request_applied_streaming_p50_ms": streamWatch.p50,
    "request_applied_streaming_p99_ms": streamWatch.p99,
    "request_applied_streaming_after_publish_p50_ms": streamWatch.publishedP50,
    "request_applied_streaming_after_publish_p99_ms": streamWatch.publishedP99,
    "request_applied_streaming_poll200_p50_ms": streamPoll.p50,
    "request_applied_streaming_poll200_p99_ms": streamPoll.p99,
    "request_applied_streaming_p50_ratio_vs_poll200": ratio(streamWatch.p50, streamPoll.p50),
    "request_client_write_silent_p50_ms": silentWatch.writeP50,
    "request_client_write_silent_p99_ms": silentWatch.writeP99,
    "request_client_write_streaming_p50_ms": streamWatch.writeP50,
    "request_client_write_streaming_p99_ms": streamWatch.writeP99,
    "runner_idle_cpu_pct": silentWatch.idleCpuPct ?? "n/a",
    "runner_idle_cpu_poll200_pct": silentPoll.idleCpuPct ?? "n/a",
    "subscriber_delivery_p50_ms": subWatch.p50,
    "subscriber_delivery_p99_ms": subWatch.p99,
    "subscriber_delivery_poll200_p50_ms": subPoll.p50,
    "subscriber_delivery_poll200_p99_ms": subPoll.p99,
    "subscriber_delivery_p50_ratio_vs_poll200": ratio(subWatch.p50, subPoll.p50),
    "follow_events": follow.n,
    "follow_file_mb": Math.round(follow.mb),
    "follow_events_per_s": follow.eventsPerSec,
    "follow_peak_rss_delta_mb": Math.round(follow.rssDeltaMb * 10) / 10,
    "target": "request/subscriber p50 <= 5 ms, p99 <= 25 ms; follow >= 500000 events/s, flat memory",
  };
}

if (import.meta.main) {
  if (Deno.args[0] === "--follow-only") console.log(JSON.stringify(await followOnly(Deno.args[1]!)));
  else if (Deno.args[0] === "--runner") await runnerOnly(Deno.args[1]!, JSON.parse(Deno.args[2]!) as RunnerMode);
  else console.log(await bench());
}
