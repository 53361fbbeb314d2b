/**
 * Render throughput (docs/reference/events-and-rendering.md §5–§10): compact, and studio with `diff: full` + `tool_output: full`,
 * each into a file sink, over a realistic synthetic event mix. The baseline writes `JSON.stringify` of the same
 * events into the same kind of sink in the same run. Each rate is the median of 5 timed passes (after a warm-up);
 * every pass must write output. Targets: studio ≥ 100,000 events/s, compact ≥ 300,000 events/s.
 */
import type { Envelope } from "../../src/events/types.ts";
import { createRenderer, fileSink } from "../../src/render/mod.ts";
import type { RenderSettings } from "../../src/render/types.ts";
import { check, median, repeat, sized } from "./_harness.ts";

function env(seq: number, type: string, data: Record<string, unknown>): Envelope {
  return {
    seq,
    at: new Date(Date.UTC(2026, 10, 30, 12, 0, 0) + seq * 7).toISOString(),
    run_id: "20261130T120000Z-BENCH2",
    origin: "provider",
    type,
    prompt_id: "01",
    attempt: 1,
    stream: "initial",
    provider: "claude",
    session_id: "bench",
    timestamp: null,
    data,
  } as unknown as Envelope;
}

const WORDS = "the runner renders every event of the stream into text and the sinks write it out".split(" ");

/** One session: text and thinking deltas (most events), tool calls with outputs and patches, usage. */
function session(start: number, turns: number): Envelope[] {
  const out: Envelope[] = [];
  let seq = start;
  const push = (type: string, data: Record<string, unknown>) => out.push(env(seq++, type, data));
  push("run_started", { provider_session_id: "bench", model: "claude-sonnet-4-5-20250929", reasoning_effort: "high" });
  for (let t = 0; t < turns; t++) {
    const mid = `msg_${start}_${t}`;
    for (let i = 0; i < 12; i++) {
      push("message_streamed", { delta: WORDS[i % WORDS.length] + " ", kind: "thinking", message_id: mid });
    }
    push("message_received", { content: "thinking…", role: "assistant", kind: "thinking", message_id: mid });
    for (let i = 0; i < 40; i++) {
      push("message_streamed", {
        delta: WORDS[(i * 7) % WORDS.length] + (i % 13 === 12 ? ".\n" : " "),
        message_id: mid,
      });
    }
    push("message_received", { content: "text…", role: "assistant", message_id: mid });
    const id = `${t}`;
    switch (t % 4) {
      case 0: {
        const lines = Array.from({ length: 30 }, (_, i) => `test ${i} ... ok`).join("\n");
        push("tool_call_started", {
          tool_call_id: id,
          tool_name: "Bash",
          tool_input: { command: "deno test -A tests/" },
        });
        push("tool_call_completed", {
          tool_call_id: id,
          tool_name: "Bash",
          tool_output: lines,
          is_error: false,
          exit_code: 0,
        });
        break;
      }
      case 1: {
        const old = Array.from({ length: 10 }, (_, i) => `  const v${i} = compute(${i});`).join("\n") + "\n";
        const next = old.replace("compute(3)", "computeFast(3)").replace("compute(7)", "computeFast(7)") +
          "  done();\n";
        push("tool_call_started", {
          tool_call_id: id,
          tool_name: "Edit",
          tool_input: { file_path: "src/a.ts", old_string: old, new_string: next },
        });
        push("tool_call_completed", {
          tool_call_id: id,
          tool_name: "Edit",
          tool_output: "The file src/a.ts has been updated.",
          is_error: false,
        });
        break;
      }
      case 2: {
        const body = Array.from({ length: 100 }, (_, i) => `${i}\tline ${i}`).join("\n");
        push("tool_call_started", { tool_call_id: id, tool_name: "Read", tool_input: { file_path: "src/b.ts" } });
        push("tool_call_completed", { tool_call_id: id, tool_name: "Read", tool_output: body, is_error: false });
        break;
      }
      default: {
        const content = Array.from({ length: 40 }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
        push("tool_call_started", {
          tool_call_id: id,
          tool_name: "Write",
          tool_input: { file_path: "src/c.ts", content },
        });
        push("tool_call_completed", {
          tool_call_id: id,
          tool_name: "Write",
          tool_output: "File created",
          is_error: false,
        });
      }
    }
    push("token_usage_updated", { input_tokens: 1000 * (t + 1), output_tokens: 80 * (t + 1), cost_usd: 0.001 * t });
  }
  push("run_completed", { stop_reason: "end_turn" });
  return out;
}

function settings(over: Partial<RenderSettings>): RenderSettings {
  return {
    log_mode: "compact",
    tool_output: "summary",
    thinking: "show",
    diff: "stat",
    diff_max_lines: 60,
    tool_output_max_lines: 200,
    color: false,
    tty: false,
    pathDiff: null,
    ...over,
  };
}

function timeRender(events: Envelope[], path: string, s: RenderSettings | null): number {
  const sink = fileSink(path);
  const t0 = performance.now();
  let r = s ? createRenderer(s) : null;
  for (const ev of events) {
    if (r) {
      sink.write(r.render(ev));
      if (ev.type === "run_completed") {
        sink.write(r.finish());
        sink.flush(); // stream end
        r = s ? createRenderer(s) : null;
      }
    } else {
      sink.write(JSON.stringify(ev) + "\n");
    }
  }
  sink.close();
  return performance.now() - t0;
}

/** Events per second of compact and studio (full) rendering into a file sink, against the JSON baseline. */
export async function bench(): Promise<Record<string, number | string>> {
  const events: Envelope[] = [];
  const total = sized(200_000, 40_000);
  while (events.length < total) events.push(...session(events.length + 1, 40));
  const dir = await Deno.makeTempDir({ prefix: "pr-bench-render-" });
  try {
    const run = async (name: string, s: RenderSettings | null) => {
      timeRender(events.slice(0, 20_000), `${dir}/${name}-warm.log`, s); // warm-up
      const times = await repeat(5, async (i) => {
        const ms = timeRender(events, `${dir}/${name}-${i}.log`, s);
        const size = (await Deno.stat(`${dir}/${name}-${i}.log`)).size;
        check(size > events.length, `${name} pass ${i} wrote only ${size} bytes for ${events.length} events`);
        return ms;
      });
      return events.length / (median(times) / 1000);
    };
    const baseline = await run("baseline", null);
    const compact = await run("compact", settings({ log_mode: "compact" }));
    const studio = await run("studio", settings({ log_mode: "studio", diff: "full", tool_output: "full" }));
    const bytes = (await Deno.stat(`${dir}/studio-0.log`)).size;
    return {
      events: events.length,
      repeats: 5,
      baseline_json_events_per_s: Math.round(baseline),
      compact_events_per_s: Math.round(compact),
      studio_full_events_per_s: Math.round(studio),
      compact_vs_baseline_ratio: Number((compact / baseline).toFixed(2)),
      studio_vs_baseline_ratio: Number((studio / baseline).toFixed(2)),
      studio_log_mb: Number((bytes / 1e6).toFixed(1)),
      compact_target_300k: compact >= 300_000 ? "met" : "missed",
      studio_target_100k: studio >= 100_000 ? "met" : "missed",
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
