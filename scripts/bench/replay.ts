/**
 * Reading a million-event run offline (docs/reference/control-plane.md §5.2): a finished run of 1,000,000 events is
 * written through the runner's own appender with the default 64 MiB segment bound (so it spans several sealed
 * segments plus `events.jsonl`), then `replay` and `control events --no-follow` run over it as subprocesses, each a
 * fresh `deno` process with the command's own permissions, whose peak RSS (maxrss, from GNU time; skipped where that is
 * not installed) is its own. Checked on every timed run: both exit 0; `control events` prints one line per event
 * (`run_finished` as the end line), in seq order across the segments; `replay` prints the run's end line and every
 * prompt header. Reported: events/s of each (median of 5), their peak RSS (the largest of the 5) against an empty
 * `deno run` with the same permissions sampled the same way, and the segment count.
 */
import { DEFAULT_SEGMENT_BYTES, EventAppender } from "../../src/control/event_log.ts";
import { storePaths } from "../../src/store/paths.ts";
import { initialSnapshot } from "../../src/control/snapshot.ts";
import { DEFAULT_VIEW } from "../../src/events/types.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { BenchFailure, BenchSkip, check, median, repeat, round, sized } from "./_harness.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const RUN_ID = "20261130T120000Z-BENCHR";
const PROMPTS = 10;

/** Write a finished run of `count` events (PROMPTS prompts of streamed text and tool calls) with real segments. */
export function writeRun(storeRoot: string, count: number, segmentBytes: number): { segments: number; bytes: number } {
  const p = storePaths(storeRoot);
  Deno.mkdirSync(p.eventsArchive, { recursive: true });
  let n = 1;
  const appender = new EventAppender(p.events, false, {
    maxBytes: segmentBytes,
    nextSegment: () => p.eventSegment(RUN_ID, n++),
  });
  let seq = 0;
  let bytes = 0;
  const put = (type: string, origin: string, prompt: string | null, data: Record<string, unknown>) => {
    const line = JSON.stringify({
      seq: ++seq,
      at: "2026-11-30T12:00:00.000Z",
      run_id: RUN_ID,
      origin,
      type,
      prompt_id: prompt,
      attempt: prompt === null ? null : 1,
      stream: prompt === null ? null : "initial",
      provider: prompt === null ? null : "simulated",
      session_id: prompt === null ? null : "bench",
      timestamp: null,
      data,
    });
    bytes += line.length + 1;
    appender.push(line);
    if (seq % 4096 === 0) appender.flush();
  };
  put("run_opened", "runner", null, { packet: "bench", selection: [], resumed: false, view: { ...DEFAULT_VIEW } });
  const per = Math.floor((count - 2) / PROMPTS) - 5;
  for (let k = 1; k <= PROMPTS; k++) {
    const id = String(k).padStart(2, "0");
    put("prompt_started", "runner", id, {
      prompt_name: `Prompt ${id}`,
      attempt: 1,
      mode: "initial",
      cwd: "",
      provider: "simulated",
      model: "simulated-demo",
    });
    put("run_started", "provider", id, { provider_session_id: "bench", model: "simulated-demo" });
    const body = k === PROMPTS ? count - 2 - (PROMPTS - 1) * (per + 5) - 5 : per;
    for (let i = 0; i < body; i++) {
      if (i % 500 === 499) {
        put("tool_call_started", "provider", id, {
          tool_call_id: `t${i}`,
          tool_name: "Bash",
          tool_input: { command: `echo ${i}` },
        });
      } else put("message_streamed", "provider", id, { delta: `token ${i} é ` });
    }
    put("run_completed", "provider", id, { stop_reason: "end_turn" });
    put("verification_finished", "runner", id, {
      status: "pass",
      counts: { items: 1, passed: 1, failed: 0, faults: 0 },
      failures: [],
      faults: [],
    });
    put("prompt_finished", "runner", id, { status: "completed", decision: null, attempts: 1 });
  }
  put("run_finished", "runner", null, { status: "completed", reason: null });
  appender.close();
  check(seq === count, `the generator wrote ${seq} of ${count} events`);
  return { segments: appender.sealed + 1, bytes };
}

const TIME = "/usr/bin/time";

/**
 * A `deno` subprocess run to its end under GNU time: wall time, its peak RSS (`%M`, the kernel's maxrss of the
 * process, exact), and a line count of its stdout (read as it streams, never held whole).
 */
async function measured(
  args: string[],
  onLine: ((line: string) => void) | null,
): Promise<{ ms: number; peakMb: number; code: number; lines: number; stderr: string }> {
  const rssFile = await Deno.makeTempFile({ prefix: "pr-bench-rss-" });
  try {
    const t0 = performance.now();
    const child = new Deno.Command(TIME, {
      args: ["-f", "%M", "-o", rssFile, Deno.execPath(), ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let lines = 0;
    const reading = (async () => {
      let rest = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop()!;
        lines += parts.length;
        if (onLine) { for (const l of parts) onLine(l); }
      }
      if (rest !== "") {
        lines++;
        onLine?.(rest);
      }
    })();
    const errText = new Response(child.stderr).text();
    const [status] = await Promise.all([child.status, reading]);
    const ms = performance.now() - t0;
    const kb = Number((await Deno.readTextFile(rssFile)).trim().split("\n").pop());
    check(Number.isFinite(kb) && kb > 0, `GNU time reported no peak RSS for deno ${args.join(" ")}`);
    return { ms, peakMb: kb / 1024, code: status.code, lines, stderr: await errText };
  } finally {
    await Deno.remove(rssFile);
  }
}

/** Run the replay benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  try {
    await Deno.stat(TIME);
  } catch {
    throw new BenchSkip(`GNU time (${TIME}) is not installed: the peak RSS of a subprocess cannot be measured`);
  }
  const count = sized(1_000_000, 50_000);
  // --quick: a smaller run, with a smaller bound so it still spans several segments.
  const segmentBytes = sized(DEFAULT_SEGMENT_BYTES, 2 * 1024 * 1024);
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-replay-" });
  try {
    await Deno.mkdir(`${dir}/prompts`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/prompt_runner_packet.md`,
      "---\nname: bench\nprovider: simulated\nmodel: simulated-demo\n---\n",
    );
    for (let k = 1; k <= PROMPTS; k++) {
      const id = String(k).padStart(2, "0");
      await Deno.writeTextFile(`${dir}/prompts/${id}_x.prompt.md`, `---\nid: ${k}\n---\n# Prompt ${id}\n`);
    }
    const store = `${dir}/.prompt_runner`;
    const written = writeRun(store, count, segmentBytes);
    check(written.segments >= 3, `the run spans ${written.segments} segments; the case needs several`);
    const snap = initialSnapshot({
      runId: RUN_ID,
      packet: { name: "bench", dir },
      storeRoot: store,
      workspace: null,
      selectedCount: PROMPTS,
      maxSteers: 3,
      view: { ...DEFAULT_VIEW },
      startedAt: new Date().toISOString(),
      lastSeq: count,
      eventCount: count,
      hostname: null,
    });
    await Deno.writeTextFile(
      storePaths(store).snapshot,
      JSON.stringify({ ...snap, status: "completed", stage: "closed" }),
    );

    await Deno.writeTextFile(`${dir}/empty.ts`, "");
    // Each command with its own permissions (as `main.ts` scopes them), the empty run with the same flags.
    const replayFlags = denoFlagsFor(findCommand(["replay"])!.entry.permissions);
    const eventsFlags = denoFlagsFor(findCommand(["control", "events"])!.entry.permissions);
    const base = await repeat(5, () => measured(["run", "--quiet", ...replayFlags, `${dir}/empty.ts`], null));
    const replays = await repeat(5, async () => {
      const headers = { end: false, seen: new Set<string>() };
      const r = await measured(["run", "--quiet", ...replayFlags, MAIN, "replay", dir], (l) => {
        if (l.startsWith(`Run ${RUN_ID} completed`)) headers.end = true;
        else if (/Prompt \d\d/.test(l)) headers.seen.add(l.match(/Prompt (\d\d)/)![1]!);
      });
      if (r.code !== 0) throw new BenchFailure(`replay exited ${r.code}: ${r.stderr.trim().slice(-600)}`);
      check(headers.end, "replay did not print the run's end line");
      check(headers.seen.size === PROMPTS, `replay printed ${headers.seen.size} of ${PROMPTS} prompt headers`);
      return r;
    });
    const events = await repeat(5, async () => {
      let last = 0;
      let ordered = true;
      let end = false;
      const r = await measured(
        ["run", "--quiet", ...eventsFlags, MAIN, "control", "events", dir, "--no-follow"],
        (l) => {
          const seq = Number(l.trim().split(/\s+/)[0]);
          if (l.startsWith("-- run completed")) end = true;
          else if (Number.isInteger(seq) && seq > 0) {
            if (seq !== last + 1) ordered = false;
            last = seq;
          }
        },
      );
      if (r.code !== 0) throw new BenchFailure(`control events exited ${r.code}: ${r.stderr.trim().slice(-600)}`);
      // The last event, run_finished, is printed as the end line.
      check(ordered && last === count - 1, `control events printed seq 1…${last} (in order: ${ordered}) of ${count}`);
      check(end && r.lines === count, `control events printed ${r.lines} lines for ${count} events`);
      return r;
    });
    const basePeak = Math.max(...base.map((r) => r.peakMb));
    return {
      replay_events: count,
      replay_segments: written.segments,
      replay_file_mb: round(written.bytes / 1e6, 0),
      replay_events_per_s: Math.round(count / (median(replays.map((r) => r.ms)) / 1000)),
      replay_peak_rss_mb: round(Math.max(...replays.map((r) => r.peakMb)), 1),
      control_events_events_per_s: Math.round(count / (median(events.map((r) => r.ms)) / 1000)),
      control_events_peak_rss_mb: round(Math.max(...events.map((r) => r.peakMb)), 1),
      empty_deno_peak_rss_mb: round(basePeak, 1),
      target: "replay and control events ≤ 150 MB peak RSS over a 1M-event run",
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
