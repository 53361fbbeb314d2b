/**
 * Following a live event stream (docs/reference/control-plane.md §5): a writer process appends events to `events.jsonl` at full
 * speed while a follower process (fresh, so its RSS is its own) follows the run from the start. The follower is
 * attached before the first event is written, so it reads a file being written, never a finished one. Checked:
 * every event arrives once and in order, ending at `run_finished`. Reported: the follower's events/s over the whole
 * follow, the writer's rate, how long after the writer finished the follower delivered the last event (this
 * process's clock), and the follower's peak RSS growth (flat memory is the goal).
 */
import { check, round, sized } from "./_harness.ts";
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

/** Run the follow benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const count = sized(1_000_000, 50_000);
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
      follow_events: r.n,
      follow_file_mb: round(size / 1e6, 0),
      follow_segments_sealed: sealed!,
      writer_events_per_s: rate!,
      follow_events_per_s: Math.round(r.n / (r.ms / 1000)),
      follow_last_event_after_writer_done_ms: round(Math.max(0, f.at - writerAt), 1),
      follow_peak_rss_delta_mb: round(r.rssDeltaMb, 1),
      target: "follower keeps up with the writer; flat memory",
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
