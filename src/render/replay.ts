/**
 * Offline re-rendering of a recorded event stream (the `replay` command): the same renderers and chrome as a live
 * run, one renderer per provider stream, headers at `prompt_started`, steer notices and outcome lines from runner
 * events. Pure: everything that needs files (path diffs, prompt files, steer texts) is injected.
 */
import type { Envelope, View } from "../events/mod.ts";
import { type CheckNote, checkNoteLines } from "../events/check_lines.ts";
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

/** The named checks of a `verification_finished` event: a red headline each, the output tail dim under it. */
function checkText(notes: CheckNote[], p: ReturnType<typeof painter>): string {
  let out = "";
  for (const note of notes) {
    const [head, ...tail] = checkNoteLines(note);
    out += p("red", head!) + "\n";
    for (const l of tail) out += p("dim", l) + "\n";
  }
  return out;
}

const TERMINAL = new Set(["run_completed", "run_failed", "run_cancelled"]);

/**
 * Re-renders envelopes one at a time, as the live run would have shown them under the given view: {@link push}
 * returns the text an envelope produces, {@link finish} the text that closes the last stream. Holds one renderer
 * and the prompt ids seen, never the events, so a replay of any length streams in flat memory.
 */
export class Replayer {
  readonly #opts: ReplayOptions;
  readonly #p: ReturnType<typeof painter>;
  readonly #follow: boolean;
  #view: View;
  #renderer: Renderer | null = null;
  #cwd = "";
  /** Whether anything was written yet, and whether it ended in a blank line (separators depend on both). */
  #started = false;
  #tail = "";
  #prompts = new Set<string>();
  /** Visible events rendered. */
  events = 0;

  constructor(opts: ReplayOptions) {
    this.#opts = opts;
    this.#p = painter(opts.color);
    this.#view = { ...DEFAULT_VIEW, ...(opts.view ?? {}) };
    this.#follow = opts.view === null;
  }

  /** The view in effect now. */
  get view(): View {
    return this.#view;
  }

  /** Prompt ids seen, in order. */
  get prompts(): string[] {
    return [...this.#prompts];
  }

  #renderSettings() {
    const opts = this.#opts;
    const pathDiff = (path: string) => (opts.pathDiffFor && this.#cwd ? opts.pathDiffFor(this.#cwd)(path) : null);
    return {
      ...this.#view,
      diff_max_lines: opts.diff_max_lines,
      tool_output_max_lines: opts.tool_output_max_lines,
      color: opts.color,
      tty: opts.tty,
      pathDiff: opts.pathDiffFor ? pathDiff : null,
    };
  }

  #newRenderer(): Renderer {
    return createRenderer(this.#renderSettings());
  }

  #endStream(): string {
    const text = this.#renderer ? this.#renderer.finish() : "";
    this.#renderer = null;
    return text;
  }

  #brk(): string {
    return this.#renderer ? this.#renderer.breakLine() : "";
  }

  /** Record what was emitted (only its last two characters matter for later separators). */
  #emit(text: string): string {
    if (text !== "") {
      this.#started = true;
      this.#tail = (this.#tail + text).slice(-2);
    }
    return text;
  }

  /** The text one envelope produces (often empty). */
  push(ev: Envelope): string {
    // A line with no event shape (no type, no data object) shows nothing: `replay` never fails on a foreign line.
    if (ev.hidden || typeof ev.type !== "string" || ev.data === null || typeof ev.data !== "object") return "";
    const opts = this.#opts;
    const p = this.#p;
    switch (ev.type) {
      case "run_opened":
        if (this.#follow && ev.data.view) this.#view = { ...this.#view, ...ev.data.view };
        return "";
      case "view_changed": {
        if (!this.#follow || !ev.data.view) return "";
        const next = { ...this.#view, ...ev.data.view };
        if (this.#renderer && next.log_mode !== this.#view.log_mode) {
          this.#view = next;
          // The stream continues under the new mode (docs/reference/control-plane.md §7), as in a live run.
          const switched = switchRenderer(this.#renderer, this.#renderSettings());
          this.#renderer = switched.renderer;
          return this.#emit(switched.text);
        } else {
          this.#view = next;
          this.#renderer?.setView(next);
        }
        return "";
      }
      case "prompt_started": {
        let out = this.#emit(this.#endStream());
        this.events++;
        const d = ev.data;
        const id = ev.prompt_id ?? "?";
        this.#prompts.add(id);
        this.#cwd = d.cwd ?? "";
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
        out += this.#emit((this.#started ? "\n" : "") + renderHeader(info, this.#view.log_mode, opts.color));
        return out;
      }
      case "steer_accepted": {
        this.events++;
        const text = opts.steerText?.(ev.data.request) ?? `${ev.data.text_chars} chars from ${ev.data.author}`;
        return this.#emit(this.#brk() + steerNotice("accepted", text, opts.color));
      }
      case "steer_delivered": {
        this.events++;
        const out = this.#emit(this.#endStream());
        const how = ev.data.delivery === "restart_with_steer" ? "restarting" : "resuming";
        return out + this.#emit(steerNotice(how, "", opts.color));
      }
      case "steer_refused":
        this.events++;
        return this.#emit(this.#brk() + steerNotice("refused", ev.data.reason, opts.color));
      case "session_resumed": {
        this.events++;
        const out = this.#emit(this.#endStream());
        return out +
          this.#emit(
            p("yellow", `↳ resuming the session after ${ev.data.reason} (resume ${ev.data.resume_number})`) + "\n",
          );
      }
      case "verification_finished": {
        this.events++;
        const out = this.#emit(this.#endStream());
        const d = ev.data;
        const c = d.counts;
        const named = Array.isArray(d.checks) ? d.checks : null;
        const what = d.status === "pass"
          ? p("green", `Verification passed (${c.passed}/${c.items})`)
          : p("red", `Verification ${d.status === "fault" ? "faulted" : "failed"} for prompt ${ev.prompt_id ?? "?"}`) +
            // A stream of an earlier version names the checks by id only.
            (named === null && (d.failures.length || d.faults.length)
              ? `: ${[...d.failures, ...d.faults].join(", ")}`
              : "");
        const sep = this.#tail === "\n\n" || !this.#started ? "" : "\n";
        return out + this.#emit(sep + what + "\n" + checkText(named ?? [], p));
      }
      case "prompt_finished": {
        this.events++;
        const out = this.#emit(this.#endStream());
        return out + this.#emit(promptOutcomeLine(ev.prompt_id ?? "?", ev.data.status, opts.color));
      }
      case "run_finished": {
        this.events++;
        const out = this.#emit(this.#endStream());
        const reason = ev.data.reason ? `: ${ev.data.reason}` : "";
        return out + this.#emit(`\nRun ${ev.run_id} ${ev.data.status}${reason}\n`);
      }
      default: {
        if ((ev as { origin: string }).origin === "runner") return ""; // runner events of later versions
        this.events++;
        if (ev.type === "run_started" && typeof ev.data.cwd === "string" && ev.data.cwd) this.#cwd = ev.data.cwd;
        this.#renderer ??= this.#newRenderer();
        let out = this.#emit(this.#renderer.render(ev));
        if (TERMINAL.has(ev.type)) out += this.#emit(this.#endStream());
        return out;
      }
    }
  }

  /** The text that closes the last stream. */
  finish(): string {
    return this.#emit(this.#endStream());
  }
}

/** Re-render recorded envelopes as the live run would have shown them under the given view (all at once). */
export function replayEvents(events: Iterable<Envelope>, opts: ReplayOptions): ReplayResult {
  const r = new Replayer(opts);
  let out = "";
  for (const ev of events) out += r.push(ev);
  out += r.finish();
  return { output: out, view: r.view, events: r.events, prompts: r.prompts };
}
