/**
 * `control events [TARGET] [--from start|current|<seq>|<run_id>:<seq>] [--run RUN_ID] [--no-follow] [--json]`
 * (docs/reference/control-plane.md §13): replay and follow a run's events.
 */
import { type CommandContext, type CommandSpec, untilInterrupted } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { checkHeadline, type CheckNote } from "../../events/mod.ts";
import { type Cursor, subscribe } from "../../control/mod.ts";
import { controlTarget, localClock, paintFor, runRef, str, TARGET_FLAGS } from "./_common.ts";
import { escapeControl } from "../../util/escape.ts";

/** Parse `--from`. */
export function parseCursor(text: string | undefined): Cursor {
  if (text === undefined || text === "start") return "start";
  if (text === "current") return "current";
  if (/^\d+$/.test(text)) return Number(text);
  const m = /^(.+):(\d+)$/.exec(text);
  if (m) return { runId: m[1]!, seq: Number(m[2]) };
  throw new UsageError(
    "invalid_value",
    `--from does not take "${text}"; expected start, current, <seq> or <run_id>:<seq>`,
  );
}

function chars(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k chars` : `${n} chars`;
}

function oneLine(text: unknown): string {
  return String(text ?? "").replace(/\s+/g, " ").trim();
}

/** A one-line summary of an envelope's data (≤ 120 chars). */
function summarize(e: Record<string, unknown>): string {
  const d = (e.data !== null && typeof e.data === "object" ? e.data : {}) as Record<string, unknown>;
  const input = (d.tool_input !== null && typeof d.tool_input === "object" ? d.tool_input : {}) as Record<
    string,
    unknown
  >;
  let s: string;
  switch (e.type) {
    case "tool_call_started": {
      const arg = input.command ?? input.file_path ?? input.path ?? input.pattern ?? input.url;
      s = `${d.tool_name}${arg !== undefined ? `: ${oneLine(Array.isArray(arg) ? arg.join(" ") : arg)}` : ""}`;
      break;
    }
    case "tool_call_completed":
    case "tool_call_failed": {
      const out = typeof d.tool_output === "string" ? d.tool_output.length : 0;
      const how = e.type === "tool_call_failed" ? " failed" : "";
      const exit = typeof d.exit_code === "number" ? ` exit ${d.exit_code}` : "";
      s = `${d.tool_name}${how}${exit} (${chars(out)})`;
      break;
    }
    case "message_streamed":
      s = oneLine(d.delta);
      break;
    case "message_received":
    case "message_sent":
      s = oneLine(d.content);
      break;
    case "run_opened":
      {
        const n = Array.isArray(d.selection) ? d.selection.length : 0;
        s = `${d.packet} · ${n} ${n === 1 ? "prompt" : "prompts"}${d.resumed ? " (resumed)" : ""}`;
      }
      break;
    case "run_started":
      s = `${d.model ?? "model ?"}${d.cwd ? ` in ${d.cwd}` : ""}`;
      break;
    case "run_completed":
      s = String(d.stop_reason ?? "");
      break;
    case "run_cancelled":
      s = String(d.reason ?? "");
      break;
    case "prompt_started":
      s = `${d.prompt_name} (${d.mode} ${d.attempt}) ${d.provider}${d.model ? ` / ${d.model}` : ""}`;
      break;
    case "prompt_finished":
      s = `${d.status}${d.decision ? ` (${d.decision})` : ""} after ${d.attempts} attempt(s)${
        d.steered ? " · steered" : ""
      }${d.amended ? " · amended" : ""}`;
      break;
    case "verification_finished": {
      const c = (d.counts ?? {}) as Record<string, number>;
      // Named checks (docs/run-summary.md) when the event carries them; report ids in streams of earlier versions.
      const bad = Array.isArray(d.checks)
        ? (d.checks as CheckNote[]).map(checkHeadline)
        : [...(Array.isArray(d.failures) ? d.failures : []), ...(Array.isArray(d.faults) ? d.faults : [])];
      s = `${d.status} ${c.passed ?? 0}/${c.items ?? 0} passed${bad.length ? ` · ${bad.join("; ")}` : ""}`;
      break;
    }
    case "view_changed": {
      const v = (d.view ?? {}) as Record<string, string>;
      s = Object.keys(v).sort().map((k) => `${k}=${v[k]}`).join(" ") + ` by ${d.author}`;
      break;
    }
    case "steer_accepted":
      s = `by ${d.author} (${d.text_chars} chars, ${d.pending} pending)`;
      break;
    case "steer_delivered":
      s = `by ${d.author} via ${d.delivery} (#${d.count})`;
      break;
    case "steer_refused":
      s = `by ${d.author}: ${d.reason}`;
      break;
    case "session_resumed":
      s = `${d.reason} (resume ${d.resume_number})`;
      break;
    case "agent_control":
      s = `${d.kind} ${d.outcome} by ${d.author} (iteration ${d.iteration})${d.reason ? `: ${oneLine(d.reason)}` : ""}`;
      break;
    case "token_usage_updated":
      s = `${d.input_tokens} in / ${d.output_tokens} out`;
      break;
    case "run_finished":
      s = `${d.status}${d.reason ? ` (${d.reason})` : ""}`;
      break;
    case "error_occurred":
    case "run_failed":
      s = `${d.error_code}: ${oneLine(d.error_message)}`;
      break;
    case "notice":
      s = `${d.level} ${d.code}: ${oneLine(d.message)}`;
      break;
    default:
      s = JSON.stringify(d);
  }
  // Everything an event carries is untrusted: one line, control characters escaped, before it is cut.
  const shown = escapeControl(s);
  return shown.length > 120 ? shown.slice(0, 119) + "…" : shown;
}

/** One human line of an item. */
export function eventLine(e: Record<string, unknown>): string {
  const seq = typeof e.seq === "number" ? String(e.seq) : "";
  return `${seq.padStart(5)}  ${escapeControl(localClock(e.at))}  ${escapeControl(String(e.type)).padEnd(22)} ${
    summarize(e)
  }`;
}

/**
 * Lines written in batches: at 64 KiB, whenever the follower has delivered everything there is and is about to wait
 * (its `onIdle`, so a live stream is printed as soon as it is read), and at the end. One write per line was the cost
 * of a long replay. No timer: the first `setTimeout` of a process loads Deno's timer layer (~5 ms of a replay of a
 * finished run, docs/bench.md).
 */
class Batched {
  #buf: string[] = [];
  #size = 0;
  constructor(private readonly out: (text: string) => void) {}
  write(text: string): void {
    this.#buf.push(text);
    this.#size += text.length;
    if (this.#size >= 65536) this.flush();
  }
  flush(): void {
    if (this.#size === 0) return;
    const text = this.#buf.join("");
    this.#buf = [];
    this.#size = 0;
    this.out(text);
  }
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--from start|current|<seq>|<run_id>:<seq>] [--run RUN_ID] [--follow|--no-follow] [--json]",
  description: "Replay a run's events from the cursor, then follow them until the run ends.",
  flags: {
    ...TARGET_FLAGS,
    from: { type: "string", value: "CURSOR", description: "start (default), current, <seq> or <run_id>:<seq>" },
    run: { type: "string", value: "RUN_ID", description: "address an earlier run (replayed from its archive)" },
    follow: { type: "boolean", description: "keep printing new events until the run ends (the default)" },
    "no-follow": { type: "boolean", description: "print what exists and exit" },
  },
  async run(ctx: CommandContext): Promise<number> {
    if (ctx.flags.follow === true && ctx.flags["no-follow"] === true) {
      throw new UsageError("conflicting_flags", "--follow and --no-follow contradict each other");
    }
    const from = parseCursor(str(ctx, "from"));
    const target = await controlTarget(ctx, { idsFollow: false });
    const ref = await runRef(target, str(ctx, "run"));
    const paint = paintFor(ctx);
    let lost = 0;
    const out = new Batched((text) => ctx.stdout.write(text));
    await untilInterrupted(async (signal) => {
      const onIdle = () => out.flush();
      for await (const item of subscribe(ref, { from, signal, follow: ctx.flags["no-follow"] !== true, onIdle })) {
        if (ctx.json) {
          out.write(JSON.stringify(item) + "\n");
          continue;
        }
        if (item.type === "gap") {
          const d = item.data as { reason: string; from_seq: number; to_seq: number };
          lost += d.to_seq - d.from_seq + 1;
          out.write(
            paint("red", escapeControl(`-- gap (${d.reason}): events ${d.from_seq}–${d.to_seq} are missing --`)) + "\n",
          );
        } else if (item.type === "resync") {
          const d = item.data as { reason: string; run_id: string };
          out.write(
            paint("dim", escapeControl(`-- resync (${d.reason}): following run ${d.run_id} from seq 1 --`)) + "\n",
          );
        } else if (item.type === "run_finished") {
          const d = item.data as { status?: string };
          out.write(paint("dim", escapeControl(`-- run ${d.status ?? "finished"} --`)) + "\n");
        } else out.write(eventLine(item) + "\n");
      }
    }).finally(() => out.flush());
    // Events that could not be delivered are never a silent success.
    if (lost > 0) ctx.stderr.write(`error: ${lost} event(s) of run ${ref.runId} were lost (see the gap lines)\n`);
    return lost > 0 ? 1 : 0;
  },
};
