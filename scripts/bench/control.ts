/**
 * Control plane latency and follower throughput (control-plane.md §6.2, §11):
 * - request → applied: a harness loop calls `boundary()` on every wake (and after every event while events
 *   stream); measured while silent and while events stream, with `Deno.watchFs` + debounce against a 200 ms
 *   polling baseline (no watcher) measured in the same run;
 * - append → subscriber delivery (`record()` until a follower yields the envelope), watcher vs 200 ms polling;
 * - following a 1,000,000-event file: events/s and peak RSS delta (flat memory is the goal).
 */
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { openPlane } from "../../src/control/plane.ts";
import { acquireLease } from "../../src/control/lease.ts";
import { followRun } from "../../src/control/follow.ts";
import { REQUEST_SCHEMA, writeRequest } from "../../src/control/request.ts";
import type { PlaneHooks } from "../../src/control/plane_types.ts";

const RUN_ID = "20261130T120000Z-BENCH2";
const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "b" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 100) / 100;
}

/** request → applied latency with a runner loop; `streaming` records an event every ~2 ms. */
async function requestLatency(opts: { watch: boolean; pollMs: number; streaming: boolean; samples: number }) {
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-control-" });
  let applied = null as (() => void) | null;
  const hooks: PlaneHooks = {
    applyView: () => applied?.(),
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
    watch: opts.watch,
    pollMs: opts.pollMs,
  });
  let running = true;
  const loop = (async () => {
    while (running) {
      if (opts.streaming) {
        await Promise.race([sleep(2), plane.wake()]);
        plane.record({ type: "message_streamed", data: { delta: "token " } }, ctx);
      } else await plane.wake();
      plane.boundary();
    }
  })();
  const lat: number[] = [];
  for (let i = 0; i < opts.samples; i++) {
    await sleep(20 + Math.random() * 30);
    const done = new Promise<void>((r) => (applied = r));
    const t0 = performance.now();
    await writeRequest(dir, {
      schema: REQUEST_SCHEMA,
      command: "set_view",
      params: { tool_output: i % 2 ? "full" : "none" },
      run_id: RUN_ID,
      author: "bench",
      issued_at: new Date().toISOString(),
    });
    await done;
    lat.push(performance.now() - t0);
  }
  running = false;
  await plane.close("completed", null);
  await loop;
  await Deno.remove(dir, { recursive: true });
  return { p50: pct(lat, 50), p99: pct(lat, 99) };
}

/** append → subscriber delivery latency. */
async function deliveryLatency(opts: { watch: boolean; pollMs: number; samples: number }) {
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
    await sleep(10 + Math.random() * 30);
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
  const samples = Number(Deno.env.get("BENCH_CONTROL_SAMPLES") ?? 40);
  const big = Number(Deno.env.get("BENCH_CONTROL_EVENTS") ?? 1_000_000);
  const silentWatch = await requestLatency({ watch: true, pollMs: 1000, streaming: false, samples });
  const silentPoll = await requestLatency({ watch: false, pollMs: 200, streaming: false, samples });
  const streamWatch = await requestLatency({ watch: true, pollMs: 1000, streaming: true, samples });
  const streamPoll = await requestLatency({ watch: false, pollMs: 200, streaming: true, samples });
  const subWatch = await deliveryLatency({ watch: true, pollMs: 1000, samples });
  const subPoll = await deliveryLatency({ watch: false, pollMs: 200, samples });
  const follow = await followBig(big);
  const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
  return {
    "request_applied_silent_p50_ms": silentWatch.p50,
    "request_applied_silent_p99_ms": silentWatch.p99,
    "request_applied_silent_poll200_p50_ms": silentPoll.p50,
    "request_applied_silent_poll200_p99_ms": silentPoll.p99,
    "request_applied_silent_p50_ratio_vs_poll200": ratio(silentWatch.p50, silentPoll.p50),
    "request_applied_streaming_p50_ms": streamWatch.p50,
    "request_applied_streaming_p99_ms": streamWatch.p99,
    "request_applied_streaming_poll200_p50_ms": streamPoll.p50,
    "request_applied_streaming_poll200_p99_ms": streamPoll.p99,
    "request_applied_streaming_p50_ratio_vs_poll200": ratio(streamWatch.p50, streamPoll.p50),
    "subscriber_delivery_p50_ms": subWatch.p50,
    "subscriber_delivery_p99_ms": subWatch.p99,
    "subscriber_delivery_poll200_p50_ms": subPoll.p50,
    "subscriber_delivery_poll200_p99_ms": subPoll.p99,
    "subscriber_delivery_p50_ratio_vs_poll200": ratio(subWatch.p50, subPoll.p50),
    "follow_events": follow.n,
    "follow_file_mb": Math.round(follow.mb),
    "follow_events_per_s": follow.eventsPerSec,
    "follow_peak_rss_delta_mb": Math.round(follow.rssDeltaMb * 10) / 10,
  };
}

if (import.meta.main) {
  if (Deno.args[0] === "--follow-only") console.log(JSON.stringify(await followOnly(Deno.args[1]!)));
  else console.log(await bench());
}
