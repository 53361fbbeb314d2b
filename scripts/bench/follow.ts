/**
 * Following a live event stream (docs/reference/control-plane.md §5): a writer process appends events to `events.jsonl` at full
 * speed while a follower process (fresh, so its RSS is its own) follows the run from the start. The follower is
 * attached before the first event is written, so it reads a file being written, never a finished one. Checked:
 * every event arrives once and in order, ending at `run_finished`. Reported, over 5 such runs (each a fresh writer,
 * follower and store): the median of the follower's events/s over the whole follow, of the writer's rate and of how
 * long after the writer finished the follower delivered the last event (this process's clock), and the largest of
 * the follower's peak RSS growth (flat memory is the goal).
 */
import { check, median, repeat, round, sized } from "./_harness.ts";
import { DEFAULT_SEGMENT_BYTES } from "../../src/control/event_log.ts";

const PROC = new URL("./_follow_proc.ts", import.meta.url).pathname;

/** Lines of a process's stdout, read one at a time. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string | null> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  return async () => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buf += value;
    }
  };
}

/** One checked follow of `count` events. */
interface FollowRun {
  n: number;
  fileMb: number;
  sealed: number;
  writerRate: number;
  followRate: number;
  lagMs: number;
  rssDeltaMb: number;
}

/** Run the follow benchmark: the median of 5 runs (the largest RSS growth). */
export async function bench(): Promise<Record<string, number | string>> {
  const count = sized(1_000_000, 50_000);
  const runs = await repeat(5, () => followOnce(count));
  return {
    repeats: runs.length,
    follow_events: count,
    follow_file_mb: runs[0]!.fileMb,
    follow_segments_sealed: runs[0]!.sealed,
    writer_events_per_s: Math.round(median(runs.map((r) => r.writerRate))),
    follow_events_per_s: Math.round(median(runs.map((r) => r.followRate))),
    follow_last_event_after_writer_done_ms: round(median(runs.map((r) => r.lagMs)), 1),
    follow_peak_rss_delta_mb: round(Math.max(...runs.map((r) => r.rssDeltaMb)), 1),
    target: "follower keeps up with the writer; flat memory",
  };
}

async function followOnce(count: number): Promise<FollowRun> {
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-follow-" });
  const spawn = (args: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "-A", PROC, ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
      // The default 64 MiB bound; --quick writes ~13 MB, so a 2 MiB bound keeps it crossing seals too.
      env: { BENCH_FOLLOW_SEGMENT_BYTES: String(sized(DEFAULT_SEGMENT_BYTES, 2 * 1024 * 1024)) },
    }).spawn();
  const writer = spawn(["--writer", dir, String(count)]);
  let follower: Deno.ChildProcess | null = null;
  try {
    const fromWriter = lineReader(writer.stdout);
    check((await fromWriter()) === "ready", "the writer did not start");
    follower = spawn(["--follower", dir]);
    const fromFollower = lineReader(follower.stdout);
    check((await fromFollower()) === "following", "the follower did not start");
    const stdin = writer.stdin.getWriter();
    await stdin.write(new TextEncoder().encode("go\n"));
    await stdin.close();
    const followerDone = (async () => {
      const out = await fromFollower();
      return { line: out, at: performance.now() };
    })();
    const done = await fromWriter();
    const writerAt = performance.now();
    check(done?.startsWith("done "), `the writer ended with ${JSON.stringify(done)}`);
    check((await writer.status).success, "the writer failed");
    const f = await followerDone;
    check((await follower.status).success, "the follower failed (see its error above)");
    const r = JSON.parse(f.line ?? "null") as { n: number; ms: number; rssDeltaMb: number } | null;
    check(r !== null && r.n === count, `the follower delivered ${r?.n} of ${count} events`);
    let size = (await Deno.stat(`${dir}/control/events.jsonl`)).size;
    for (const e of Deno.readDirSync(`${dir}/control/events`)) {
      size += Deno.statSync(`${dir}/control/events/${e.name}`).size;
    }
    const [rate, sealed] = done!.slice(5).split(" ").map(Number);
    check(sealed! >= 3, `the writer sealed ${sealed} segments; a million events should span several`);
    return {
      n: r.n,
      fileMb: round(size / 1e6, 0),
      sealed: sealed!,
      writerRate: rate!,
      followRate: r.n / (r.ms / 1000),
      lagMs: Math.max(0, f.at - writerAt),
      rssDeltaMb: r.rssDeltaMb,
    };
  } finally {
    try {
      writer.kill();
    } catch { /* exited */ }
    try {
      follower?.kill();
    } catch { /* exited */ }
    await Deno.remove(dir, { recursive: true });
  }
}
