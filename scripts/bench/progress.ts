/**
 * The cost of showing progress (docs/status.md): (1) every event a run records also goes through `trackPlane()`
 * (src/run/run_progress.ts), which folds it into the status facts — measured as events/s through a plane with and
 * without the tracker, alternated in the same run; (2) on a terminal every write goes through the status line
 * (src/render/status_line.ts): clear, write, redraw — measured as writes/s of compact-renderer-like token text to a
 * counting terminal with and without it. Medians of 9 alternated passes; every pass must have recorded every event (the last
 * seq) and delivered every write.
 */
import type { ProviderEvent } from "../../src/events/types.ts";
import { fakePlane, PROMPT_01_CTX } from "../../tests/support/fake_plane.ts";
import { RunProgress, trackPlane } from "../../src/run/run_progress.ts";
import { StatusLine } from "../../src/render/status_line.ts";
import { progressLine } from "../../src/render/status_words.ts";
import type { TextOut } from "../../src/util/text_out.ts";
import { check, median, round, sized } from "./_harness.ts";

const EVENTS = sized(300_000, 30_000);
const WRITES = sized(200_000, 20_000);
const PASSES = 9;

const ctx = PROMPT_01_CTX;
const EVENT: ProviderEvent = { type: "message_streamed", data: { delta: "token " } };
const USAGE: ProviderEvent = { type: "token_usage_updated", data: { input_tokens: 10, output_tokens: 2 } };

/** Events per second through a plane (tracked or not); checks that every event was recorded. */
function recordPass(tracked: boolean): number {
  const progress = new RunProgress(1);
  const bare = fakePlane();
  const plane = tracked ? trackPlane(bare, progress) : bare;
  plane.transition({ stage: "session", prompt_id: "01", prompt_position: 1, attempt: 1, mode: "run" });
  let last = 0;
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) last = plane.record(i % 100 === 0 ? USAGE : EVENT, ctx).seq;
  const ms = performance.now() - t0;
  check(last === EVENTS, `recorded ${last} of ${EVENTS} events`);
  if (tracked) check(progress.facts().tokens.run.input > 0, "the tracker folded the usage");
  return EVENTS / (ms / 1000);
}

/** Writes per second of token text to a counting terminal, through the status line or straight. */
function writePass(withLine: boolean): number {
  let bytes = 0;
  const tty: TextOut = { isTerminal: true, write: (t) => void (bytes += t.length) };
  const progress = new RunProgress(3);
  const line = new StatusLine({
    out: tty,
    err: null,
    text: () => progressLine(progress.facts(), 0),
    columns: () => 120,
  });
  const out = withLine ? line.stdout : tty;
  const t0 = performance.now();
  for (let i = 0; i < WRITES; i++) out.write(i % 20 === 19 ? "token\n" : "token ");
  const ms = performance.now() - t0;
  line.stop();
  check(bytes >= WRITES * 6, `delivered ${bytes} bytes, expected at least ${WRITES * 6}`);
  return WRITES / (ms / 1000);
}

/** Run the benchmark; numbers carry their units in the key names. */
export function bench(): Promise<Record<string, number>> {
  return Promise.resolve(figures());
}

function figures(): Record<string, number> {
  recordPass(true);
  recordPass(false); // warm both paths
  const tracked: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    bare.push(recordPass(false));
    tracked.push(recordPass(true));
  }
  const perEvent = (rate: number) => 1e9 / rate;
  const trackedRate = median(tracked);
  const bareRate = median(bare);
  {
    writePass(true);
    writePass(false);
    const lined: number[] = [];
    const straight: number[] = [];
    for (let i = 0; i < PASSES; i++) {
      straight.push(writePass(false));
      lined.push(writePass(true));
    }
    const lineRate = median(lined);
    const straightRate = median(straight);
    return {
      progress_events: EVENTS,
      progress_record_events_per_s_tracked: Math.round(trackedRate),
      progress_record_events_per_s_bare: Math.round(bareRate),
      progress_tracker_ns_per_event: round(perEvent(trackedRate) - perEvent(bareRate), 0),
      progress_status_line_writes: WRITES,
      progress_status_line_writes_per_s: Math.round(lineRate),
      progress_straight_writes_per_s: Math.round(straightRate),
      progress_status_line_us_per_write: round((1e6 / lineRate) - (1e6 / straightRate), 2),
    };
  }
}
