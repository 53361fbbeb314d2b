/**
 * Runner overhead per event: one simulated stream of many `message_streamed` events pushed through the real
 * pipeline — `plane.record` (events.jsonl + snapshot fold), the compact renderer, a tty-like sink on /dev/null, the
 * attempt log file sink, the compact per-attempt events file and a boundary per event. Compared with iterating the
 * same event source with no processing, measured in the same run. Memory is sampled every 10 % of the stream: the
 * live heap must stay flat (target ≥ 50,000 events/s end to end). With `--v8-flags=--expose-gc` the heap is sampled
 * after a full GC, which separates a leak from V8 simply keeping freed pages (RSS).
 */
import { createScratchRepo } from "../../examples/setup.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { openPlane } from "../../src/control/plane.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import type { LaneSession } from "../../src/lanes/types.ts";
import { eventsFileSink, fileSink } from "../../src/render/sinks.ts";
import { RunContext } from "../../src/run/context.ts";
import { newRenderer } from "../../src/run/attempt.ts";
import { SteerDesk } from "../../src/run/steering.ts";
import { StateStore } from "../../src/run/state.ts";
import { pumpStream } from "../../src/run/stream.ts";

const EVENTS = Number(Deno.env.get("BENCH_RUNNER_EVENTS") ?? 1_000_000);
const SAMPLES = 10;

async function* source(n: number, onSample: (i: number) => void): AsyncGenerator<ProviderEvent> {
  yield { type: "run_started", data: { provider_session_id: "bench-1", model: "simulated-demo" } };
  const step = Math.max(1, Math.floor(n / SAMPLES));
  for (let i = 1; i <= n; i++) {
    yield { type: "message_streamed", data: { delta: "token " } };
    if (i % step === 0) onSample(i);
  }
  yield { type: "run_completed", data: { stop_reason: "end_turn" } };
}

function session(events: AsyncIterable<ProviderEvent>): LaneSession {
  return {
    events,
    sessionId: "bench-1",
    isReady: () => true,
    whenReady: () => Promise.resolve(),
    interrupt: () => Promise.resolve(),
    kill: () => {},
    end: () => ({ kind: "ok" }),
    process: null,
  };
}

const gcExposed = typeof (globalThis as { gc?: unknown }).gc === "function";
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10;

/** Run the runner benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.makeTempDir({ prefix: "pr-bench-runner-" });
  const devnull = Deno.openSync("/dev/null", { write: true });
  try {
    const dir = `${root}/pkt`;
    await Deno.mkdir(`${dir}/prompts`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/prompt_runner_packet.md`,
      "---\nname: bench\nprovider: simulated\nmodel: simulated-demo\nrepos:\n  app: {path: app}\n---\n",
    );
    await Deno.writeTextFile(`${dir}/prompts/01_x.prompt.md`, "---\nid: 1\n---\n# Bench\n");
    await createScratchRepo(`${dir}/app`);
    const packet = await loadPacket(dir);
    const prompt = packet.prompts[0]!;
    const storeRoot = storeRootForPacket(packet.dir);

    // Baseline: the same event source, iterated with no processing.
    let t0 = performance.now();
    for await (const _e of source(EVENTS, () => {})) { /* nothing */ }
    const baselineMs = performance.now() - t0;

    const state = await StateStore.open(storeRoot);
    const enc = new TextEncoder();
    const ctx = new RunContext(packet, storeRoot, "20261130T120501Z-BENCHA", state, new Map(), null, {
      stdout: { write: (t: string) => void devnull.writeSync(enc.encode(t)), isTerminal: false },
      stderr: { write: () => {}, isTerminal: false },
      json: false,
      color: false,
    }, { commit: "none", keepGoing: false, repairFirst: false, random: Math.random });
    const desk = new SteerDesk(ctx, () => 3);
    ctx.plane = await openPlane({
      storeRoot,
      runId: ctx.runId,
      resumed: false,
      packet: { name: packet.name, dir: packet.dir },
      workspace: null,
      view: ctx.view,
      selectedCount: 1,
      maxSteers: 3,
      hooks: {
        applyView: () => {},
        steerGate: () => desk.gate(),
        steerAccepted: (s) => desk.accepted(s),
        notice: () => {},
      },
    });
    await Deno.mkdir(`${storeRoot}/logs`, { recursive: true });
    ctx.attemptLog = fileSink(`${storeRoot}/logs/bench.log`);
    const events = eventsFileSink(`${storeRoot}/logs/bench.events.jsonl`, "compact");
    const rss: number[] = [];
    const heap: number[] = [];
    const s = session(source(EVENTS, () => {
      (globalThis as { gc?: () => void }).gc?.();
      const m = Deno.memoryUsage();
      rss.push(m.rss);
      heap.push(m.heapUsed);
    }));
    ctx.live = {
      session: s,
      promptId: prompt.id,
      attempt: 1,
      cwd: prompt.cwd,
      renderer: newRenderer(ctx, prompt),
      provider: "simulated",
    };
    t0 = performance.now();
    const obs = await pumpStream(ctx, s, {
      promptId: prompt.id,
      attempt: 1,
      kind: "initial",
      provider: "simulated",
      sessionId: null,
    }, events);
    ctx.attemptLog.write(ctx.live.renderer.finish());
    const runnerMs = performance.now() - t0;
    ctx.live = null;
    events.close();
    ctx.attemptLog.close();
    await ctx.plane.close("completed", null);
    const first = rss[0] ?? 0;
    const last = rss.at(-1) ?? 0;
    return {
      events: obs.events,
      runner_events_per_s: Math.round(obs.events / (runnerMs / 1000)),
      runner_us_per_event: Math.round(runnerMs * 1000 / obs.events * 100) / 100,
      baseline_events_per_s: Math.round((EVENTS + 2) / (baselineMs / 1000)),
      overhead_ratio_vs_bare_iteration: Math.round(runnerMs / baselineMs * 10) / 10,
      rss_first_sample_mb: mb(first),
      rss_last_sample_mb: mb(last),
      rss_max_sample_mb: mb(Math.max(...rss)),
      rss_growth_ratio_last_vs_first: first ? Math.round(last / first * 100) / 100 : 0,
      heap_used_first_sample_mb: mb(heap[0] ?? 0),
      heap_used_last_sample_mb: mb(heap.at(-1) ?? 0),
      heap_used_samples_mb: heap.map(mb).join(" "),
      rss_samples_mb: rss.map(mb).join(" "),
      heap_sampled_after_gc: gcExposed ? "yes" : "no (run with --v8-flags=--expose-gc for exact heap samples)",
      target: "runner_events_per_s >= 50000, rss flat",
    };
  } finally {
    devnull.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) console.log(await bench());
