/**
 * Runner overhead per event: one simulated stream of many `message_streamed` events pushed through the real
 * pipeline — `plane.record` (events.jsonl + snapshot fold), the compact renderer, a tty-like sink on /dev/null, the
 * attempt log file sink, the compact per-attempt events file and a boundary per event (events.jsonl written in
 * batches; the same passes flushing it at every boundary, as before the batching, are measured alternately as the
 * batching gain's baseline). Compared with iterating the
 * same event source with no processing, measured in the same run. The memory pass comes first, in the case's own
 * fresh process (scripts/bench.ts runs every case in one): memory is sampled every 10 % of one long stream and the
 * live heap must stay flat. Throughput is the median of 5 shorter passes (target ≥ 50,000 events/s end to end), and
 * every pass must have pushed every event through. With `--v8-flags=--expose-gc` the heap is sampled after a full
 * GC, which separates a leak from V8 simply keeping freed pages (RSS).
 */
import { createScratchRepo } from "../../examples/setup.ts";
import { loadPacket } from "../../src/packet/load.ts";
import { openPlane } from "../../src/control/plane.ts";
import { storeRootForPacket } from "../../src/store/paths.ts";
import type { ProviderEvent } from "../../src/events/types.ts";
import { benchSession } from "./_session.ts";
import { eventsFileSink, fileSink } from "../../src/render/sinks.ts";
import { RunContext, RunEnv, RunScope } from "../../src/run/context.ts";
import { LiveSlot } from "../../src/run/live_slot.ts";
import { newRenderer } from "../../src/run/attempt.ts";
import { steerGate } from "../../src/run/steering.ts";
import { StateStore } from "../../src/run/state.ts";
import { pumpStream } from "../../src/run/stream.ts";
import type { Packet } from "../../src/packet/types.ts";
import { check, median, repeat, round, sized } from "./_harness.ts";

const RSS_AT_START = Deno.memoryUsage().rss;
const EVENTS = Number(Deno.env.get("BENCH_RUNNER_EVENTS") ?? sized(1_000_000, 50_000));
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

const gcExposed = typeof (globalThis as { gc?: unknown }).gc === "function";
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024 * 10) / 10;

interface Pass {
  ms: number;
  events: number;
  rss: number[];
  heap: number[];
}

/** One stream of `n` events through the real pipeline, as run `runId` of the packet's store. */
async function pumpOnce(
  packet: Packet,
  runId: string,
  n: number,
  devnull: Deno.FsFile,
  sample: boolean,
  flushEveryBoundary = false,
): Promise<Pass> {
  const prompt = packet.prompts[0]!;
  const storeRoot = storeRootForPacket(packet.dir);
  const state = await StateStore.open(storeRoot);
  const enc = new TextEncoder();
  const env = new RunEnv(packet, storeRoot, runId, state, null, {
    stdout: { write: (t: string) => void devnull.writeSync(enc.encode(t)), isTerminal: false },
    stderr: { write: () => {}, isTerminal: false },
    json: false,
    color: false,
  }, { commit: "none", keepGoing: false, repairFirst: false, random: Math.random });
  const scope = new RunScope(env, new LiveSlot(packet.options.view));
  const plane = await openPlane({
    storeRoot,
    runId,
    resumed: false,
    packet: { name: packet.name, dir: packet.dir },
    workspace: null,
    view: scope.view,
    selectedCount: 1,
    maxSteers: 3,
    flushEveryBoundary,
    hooks: {
      applyView: () => {},
      steerGate: () => steerGate(scope),
      steerAccepted: () => {},
      notice: () => {},
    },
  });
  const ctx = new RunContext(scope, plane, new Map());
  await Deno.mkdir(`${storeRoot}/logs`, { recursive: true });
  const log = fileSink(`${storeRoot}/logs/${runId}.log`);
  ctx.slot.beginLog(log);
  const events = eventsFileSink(`${storeRoot}/logs/${runId}.events.jsonl`, "compact");
  const rss: number[] = [];
  const heap: number[] = [];
  const s = benchSession(
    source(n, () => {
      if (!sample) return;
      (globalThis as { gc?: () => void }).gc?.();
      const m = Deno.memoryUsage();
      rss.push(m.rss);
      heap.push(m.heapUsed);
    }),
    "bench-1",
  );
  const live = ctx.slot.beginStream({
    session: s,
    promptId: prompt.id,
    attempt: 1,
    cwd: prompt.cwd,
    renderer: newRenderer(ctx, prompt),
    provider: "simulated",
  });
  const t0 = performance.now();
  const obs = await pumpStream(ctx, s, {
    promptId: prompt.id,
    attempt: 1,
    kind: "initial",
    provider: "simulated",
    sessionId: null,
  }, events);
  log.write(live.renderer.finish());
  const ms = performance.now() - t0;
  ctx.slot.endStream();
  events.close();
  ctx.slot.endLog();
  await ctx.plane.close("completed", null);
  check(obs.events === n + 2, `the runner pushed ${obs.events} of ${n + 2} events`);
  check(obs.firstError === null, `the stream reported an error: ${JSON.stringify(obs.firstError)}`);
  return { ms, events: obs.events, rss, heap };
}

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

    // Memory first, while the process is fresh: one long stream, sampled every 10 %.
    const mem = await pumpOnce(packet, "20261130T120501Z-BENCHM", EVENTS, devnull, true);
    // Throughput: the median of 5 shorter passes, against the bare iteration of the same source.
    const short = Math.max(1000, Math.floor(EVENTS / 5));
    let k = 0;
    // Alternated with the same passes flushing events.jsonl at every boundary (the behaviour before boundaries were
    // batched), so the batching gain is a ratio measured in this run.
    const passes: Pass[] = [];
    const perEvent: Pass[] = [];
    await repeat(5, async () => {
      passes.push(await pumpOnce(packet, `20261130T120502Z-BENCH${k++}`, short, devnull, false));
      perEvent.push(await pumpOnce(packet, `20261130T120503Z-BENCH${k++}`, short, devnull, false, true));
    });
    const baselineMs = median(
      await repeat(5, async () => {
        const t0 = performance.now();
        for await (const _e of source(short, () => {})) { /* nothing */ }
        return performance.now() - t0;
      }),
    );
    const runnerMs = median(passes.map((p) => p.ms));
    const perEventMs = median(perEvent.map((p) => p.ms));
    const rss = mem.rss, heap = mem.heap;
    check(rss.length >= SAMPLES, `only ${rss.length} memory samples`);
    const first = rss[0]!;
    const last = rss.at(-1)!;
    return {
      memory_pass_events: mem.events,
      throughput_pass_events: short + 2,
      repeats: 5,
      runner_events_per_s: Math.round((short + 2) / (runnerMs / 1000)),
      runner_us_per_event: round(runnerMs * 1000 / (short + 2)),
      runner_flush_every_boundary_events_per_s: Math.round((short + 2) / (perEventMs / 1000)),
      batched_vs_flush_every_boundary_ratio: round(perEventMs / runnerMs),
      baseline_events_per_s: Math.round((short + 2) / (baselineMs / 1000)),
      overhead_ratio_vs_bare_iteration: round(runnerMs / baselineMs, 1),
      rss_process_start_mb: mb(RSS_AT_START),
      rss_first_sample_mb: mb(first),
      rss_last_sample_mb: mb(last),
      rss_max_sample_mb: mb(Math.max(...rss)),
      rss_growth_ratio_last_vs_first: round(last / first),
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
