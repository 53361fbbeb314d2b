/**
 * Offline re-rendering of a recorded event stream (the `replay` command): the same renderers and chrome as a live
 * run, one renderer per provider stream, headers at `prompt_started`, steer notices and outcome lines from runner
 * events. Pure: everything that needs files (path diffs, prompt files, steer texts) is injected.
 */
import type { Envelope, View } from "../events/mod.ts";
import { DEFAULT_VIEW } from "../events/types.ts";
import { painter } from "./ansi.ts";
import { type HeaderInfo, promptOutcomeLine, renderHeader, steerNotice } from "./chrome.ts";
import { createRenderer, switchRenderer } from "./create.ts";
import type { Renderer } from "./types.ts";

/** Inputs of {@link replayEvents}. */
export interface ReplayOptions {
  /** Fixed view settings; null follows the recorded launch view and its `view_changed` events. */
  view: Partial<View> | null;
  color: boolean;
  tty: boolean;
  diff_max_lines: number;
  tool_output_max_lines: number;
  /** Builds a path diff for a session cwd (e.g. `gitPathDiff`), or null for none. */
  pathDiffFor: ((cwd: string) => (path: string) => string[] | null) | null;
  /** Header details the events do not carry (prompt file, body, log file) for a prompt attempt. */
  headerExtras?: (promptId: string, at: string) => Pick<HeaderInfo, "promptFile" | "body" | "logFile">;
  /** The text of a steer by its request name (from the interventions record), when known. */
  steerText?: (request: string) => string | null;
}

/** Rendered text of a replay and what it covered. */
export interface ReplayResult {
  output: string;
  /** The view in effect at the end. */
  view: View;
  /** Visible events rendered. */
  events: number;
  /** Prompt ids seen, in order. */
  prompts: string[];
}

const TERMINAL = new Set(["run_completed", "run_failed", "run_cancelled"]);

/** Re-render recorded envelopes as the live run would have shown them under the given view. */
export function replayEvents(events: readonly Envelope[], opts: ReplayOptions): ReplayResult {
  const p = painter(opts.color);
  let view: View = { ...DEFAULT_VIEW, ...(opts.view ?? {}) };
  const follow = opts.view === null;
  let renderer: Renderer | null = null;
  let cwd = "";
  let out = "";
  let count = 0;
  const prompts: string[] = [];

  const pathDiff = (path: string) => (opts.pathDiffFor && cwd ? opts.pathDiffFor(cwd)(path) : null);
  const renderSettings = () => ({
    ...view,
    diff_max_lines: opts.diff_max_lines,
    tool_output_max_lines: opts.tool_output_max_lines,
    color: opts.color,
    tty: opts.tty,
    pathDiff: opts.pathDiffFor ? pathDiff : null,
  });
  const newRenderer = (): Renderer => createRenderer(renderSettings());
  const endStream = () => {
    if (renderer) out += renderer.finish();
    renderer = null;
  };
  const brk = () => (renderer ? renderer.breakLine() : "");

  for (const ev of events) {
    if (ev.hidden) continue;
    switch (ev.type) {
      case "run_opened":
        if (follow && ev.data.view) view = { ...view, ...ev.data.view };
        continue;
      case "view_changed": {
        if (!follow || !ev.data.view) continue;
        const next = { ...view, ...ev.data.view };
        if (renderer && next.log_mode !== view.log_mode) {
          view = next;
          // The stream continues under the new mode (docs/reference/control-plane.md §7), as in a live run.
          const switched = switchRenderer(renderer, renderSettings());
          out += switched.text;
          renderer = switched.renderer;
        } else {
          view = next;
          renderer?.setView(next);
        }
        continue;
      }
      case "prompt_started": {
        endStream();
        count++;
        const d = ev.data;
        const id = ev.prompt_id ?? "?";
        if (!prompts.includes(id)) prompts.push(id);
        cwd = d.cwd ?? "";
        const extras = opts.headerExtras?.(id, ev.at) ?? { promptFile: null, body: null, logFile: null };
        const info: HeaderInfo = {
          promptId: id,
          name: d.prompt_name,
          attempt: d.attempt,
          mode: d.mode,
          project: d.cwd || null,
          provider: d.provider,
          model: d.model,
          ...extras,
        };
        out += (out === "" ? "" : "\n") + renderHeader(info, view.log_mode, opts.color);
        continue;
      }
      case "steer_accepted": {
        count++;
        const text = opts.steerText?.(ev.data.request) ?? `${ev.data.text_chars} chars from ${ev.data.author}`;
        out += brk() + steerNotice("accepted", text, opts.color);
        continue;
      }
      case "steer_delivered":
        count++;
        endStream();
        out += steerNotice(ev.data.delivery === "restart_with_steer" ? "restarting" : "resuming", "", opts.color);
        continue;
      case "steer_refused":
        count++;
        out += brk() + steerNotice("refused", ev.data.reason, opts.color);
        continue;
      case "session_resumed":
        count++;
        endStream();
        out += p("yellow", `↳ resuming the session after ${ev.data.reason} (resume ${ev.data.resume_number})`) + "\n";
        continue;
      case "verification_finished": {
        count++;
        endStream();
        const d = ev.data;
        const c = d.counts;
        const what = d.status === "pass"
          ? p("green", `Verification passed (${c.passed}/${c.items})`)
          : p("red", `Verification ${d.status === "fault" ? "faulted" : "failed"} for prompt ${ev.prompt_id ?? "?"}`) +
            (d.failures.length || d.faults.length ? `: ${[...d.failures, ...d.faults].join(", ")}` : "");
        out += (out.endsWith("\n\n") || out === "" ? "" : "\n") + what + "\n";
        continue;
      }
      case "prompt_finished":
        count++;
        endStream();
        out += promptOutcomeLine(ev.prompt_id ?? "?", ev.data.status, opts.color);
        continue;
      case "run_finished": {
        count++;
        endStream();
        const reason = ev.data.reason ? `: ${ev.data.reason}` : "";
        out += `\nRun ${ev.run_id} ${ev.data.status}${reason}\n`;
        continue;
      }
      default: {
        if ((ev as { origin: string }).origin === "runner") continue; // runner events of later versions
        count++;
        if (ev.type === "run_started" && typeof ev.data.cwd === "string" && ev.data.cwd) cwd = ev.data.cwd;
        renderer ??= newRenderer();
        out += renderer.render(ev);
        if (TERMINAL.has(ev.type)) endStream();
      }
    }
  }
  endStream();
  return { output: out, view, events: count, prompts };
}
