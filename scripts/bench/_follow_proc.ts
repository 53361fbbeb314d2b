/**
 * The two processes of the follow benchmark (scripts/bench/follow.ts).
 * - `--writer <storeRoot> <count>`: holds the lease, writes a running snapshot and an empty `events.jsonl`, prints
 *   `ready`, waits for `go` on stdin, then appends `count` events in 10,000-line writes at full speed through the
 *   runner's appender (sealing segments at the default 64 MiB bound; the last event `run_finished`), marks the
 *   snapshot completed and prints `done <events/s> <segments sealed>`.
 * - `--follower <storeRoot>`: prints `following`, follows the run from the start until `run_finished`, checks
 *   that every seq arrived once and in order, and prints `{n, ms, rssDeltaMb}` as JSON.
 */
import { followRun } from "../../src/control/follow.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { initialSnapshot } from "../../src/control/snapshot.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { DEFAULT_SEGMENT_BYTES, EventAppender } from "../../src/control/event_log.ts";
import { storePaths } from "../../src/store/paths.ts";

/** The run id of the followed run. */
export const FOLLOW_RUN_ID = "20261130T120000Z-BENCH3";

function line(seq: number, last: boolean): string {
  return JSON.stringify({
    seq,
    at: "2026-11-30T12:00:00.000Z",
    run_id: FOLLOW_RUN_ID,
    origin: last ? "runner" : "provider",
    type: last ? "run_finished" : "message_streamed",
    prompt_id: "01",
    attempt: 1,
    stream: "initial",
    provider: "simulated",
    session_id: "b",
    timestamp: null,
    data: last ? { status: "completed", reason: null } : { delta: `token ${seq} é ` },
  });
}

async function writer(storeRoot: string, count: number): Promise<void> {
  const lease = await acquireLease(storeRoot, { runId: FOLLOW_RUN_ID, packetDir: storeRoot, argv: ["bench"] });
  await Deno.mkdir(`${storeRoot}/control`, { recursive: true });
  const snap = initialSnapshot({
    runId: FOLLOW_RUN_ID,
    packet: { name: "bench", dir: storeRoot },
    storeRoot,
    workspace: null,
    selectedCount: 1,
    maxSteers: 3,
    view: { ...DEFAULT_VIEW },
    startedAt: new Date().toISOString(),
    lastSeq: 0,
    eventCount: 0,
    hostname: null,
  });
  await Deno.writeTextFile(`${storeRoot}/control/snapshot.json`, JSON.stringify(snap));
  // The runner's own appender with the default segment bound: a million events span several sealed segments, so
  // the follower follows across real seals (docs/reference/control-plane.md §5.2).
  const p = storePaths(storeRoot);
  await Deno.mkdir(p.eventsArchive, { recursive: true });
  let n = 1;
  const appender = new EventAppender(p.events, false, {
    maxBytes: Number(Deno.env.get("BENCH_FOLLOW_SEGMENT_BYTES") ?? DEFAULT_SEGMENT_BYTES),
    nextSegment: () => p.eventSegment(FOLLOW_RUN_ID, n++),
  });
  console.log("ready");
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    if (chunk.includes("go")) break;
  }
  const t0 = performance.now();
  for (let seq = 1; seq <= count; seq++) {
    appender.push(line(seq, seq === count));
    if (seq % 10_000 === 0) appender.flush();
  }
  const ms = performance.now() - t0;
  appender.close();
  await Deno.writeTextFile(
    `${storeRoot}/control/snapshot.json`,
    JSON.stringify({ ...snap, status: "completed", last_seq: count, event_count: count }),
  );
  await lease.release();
  console.log(`done ${Math.round(count / (ms / 1000))} ${appender.sealed}`);
}

async function follower(storeRoot: string): Promise<void> {
  const rss0 = Deno.memoryUsage().rss;
  let peak = rss0;
  let n = 0;
  let last = 0;
  console.log("following");
  const t0 = performance.now();
  for await (const item of followRun(storeRoot, FOLLOW_RUN_ID, { follow: true, pollMs: 1000 })) {
    if (item.seq !== last + 1) throw new Error(`follower got ${item.type} seq ${item.seq} after ${last}`);
    last = item.seq;
    n++;
    if (n % 10_000 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
  }
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ n, ms, rssDeltaMb: (peak - rss0) / 1e6 }));
}

if (import.meta.main) {
  if (Deno.args[0] === "--writer") await writer(Deno.args[1]!, Number(Deno.args[2]));
  else if (Deno.args[0] === "--follower") await follower(Deno.args[1]!);
  else throw new Error("usage: _follow_proc.ts --writer <storeRoot> <count> | --follower <storeRoot>");
}
