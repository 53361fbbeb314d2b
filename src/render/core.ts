/**
 * State and rules every renderer shares: hidden events, counters, the thinking filter, the text dedupe rule of docs/reference/events-and-rendering.md §6,
 * tool input memory, and the formatting of stats, diff bodies and tool output lines.
 */
import type { Envelope, EnvelopeOf, View } from "../events/mod.ts";
import type { Renderer, RenderSettings, StreamState } from "./types.ts";
import { type Paint, painter } from "./ansi.ts";
import { budget, type DiffLine, parseMappedLine, type ToolChange, toolChange } from "./diff.ts";
import { nonBlankLines, truncate } from "./text.ts";
import { shownEvent, shownLine } from "./shown.ts";

/** Longest output or diff body line shown, in columns; longer lines end in `…`. */
const MAX_BODY_LINE = 240;
import type { ToolResult } from "./tools.ts";

/** The truncation marker of docs/reference/events-and-rendering.md §6 and §8. */
function moreMarker(n: number): string {
  return `… ${n} more ${n === 1 ? "line" : "lines"} (truncated)`;
}

/** The path-only diff label of docs/reference/events-and-rendering.md §8. */
export function pathLabel(path: string): string {
  return `(current state of ${path}, not this call's change)`;
}

/** One block of diff body: an optional label (path-only) and budgeted lines. */
export interface DiffSection {
  /** The file this section is about, when known. */
  path: string | null;
  label: string | null;
  lines: DiffLine[];
  more: number;
}

/** What a tool completion shows about its change. */
export interface ChangeView {
  /** Present only when the event carries the patch and `diff` ≠ `none`. */
  stat: { added: number; removed: number } | null;
  note: string | null;
  sections: DiffSection[];
  change: ToolChange | null;
}

/** Tool output lines per `tool_output` (`preview`: last 3 non-blank; `full`: capped, with the marker count). */
export interface OutputView {
  style: "preview" | "full";
  lines: string[];
  more: number;
}

type Kind = "text" | "thinking";

/** A fresh {@link StreamState}. */
export function newStreamState(): StreamState {
  return {
    events: 0,
    tools: 0,
    started: new Map(),
    printedIds: new Set(),
    lastDeltaId: new Map(),
    kindsSince: 0,
    noIdKindsSince: 0,
    usage: null,
    lastError: null,
  };
}

/** Base class of the three renderers. Subclasses format; this class decides what is shown. */
export abstract class RendererCore implements Renderer {
  abstract readonly mode: View["log_mode"];
  protected readonly paint: Paint;
  protected readonly settings: RenderSettings;
  protected view: Omit<View, "log_mode">;
  /** The last character written was a newline (or nothing was written yet). */
  protected atLineStart = true;
  /** Counters, open tool calls, text dedupe (docs/reference/events-and-rendering.md §6); carried across a mode switch. */
  protected readonly state: StreamState;

  constructor(settings: RenderSettings, carried: StreamState | null = null) {
    this.settings = settings;
    this.state = carried ?? newStreamState();
    this.paint = painter(settings.color);
    this.view = { tool_output: settings.tool_output, thinking: settings.thinking, diff: settings.diff };
  }

  /** Apply view settings other than `log_mode`. */
  setView(view: Partial<View>): void {
    if (view.tool_output !== undefined) this.view.tool_output = view.tool_output;
    if (view.thinking !== undefined) this.view.thinking = view.thinking;
    if (view.diff !== undefined) this.view.diff = view.diff;
  }

  /** Visible events rendered in this stream (across mode switches). */
  protected get events(): number {
    return this.state.events;
  }

  /** Tool calls started in this stream (across mode switches). */
  protected get tools(): number {
    return this.state.tools;
  }

  /** The stream's state, for the renderer that replaces this one on a `log_mode` change. */
  streamState(): StreamState {
    return this.state;
  }

  /** Text that ends an open line so the caller can print whole lines (steer notices, markers). */
  breakLine(): string {
    if (this.atLineStart) return "";
    this.atLineStart = true;
    this.closeText();
    return "\n";
  }

  /**
   * Text for one event. Every string the event carries is shown with its control characters escaped
   * ({@link shownEvent}) before any view renders or colours it.
   */
  render(raw: Envelope): string {
    // A line with no event shape (no type, no data object: a hand-edited or foreign line) shows nothing.
    if (raw.hidden || typeof raw.type !== "string" || raw.data === null || typeof raw.data !== "object") return "";
    const ev = shownEvent(raw);
    const st = this.state;
    st.events++;
    const lastError = st.lastError;
    st.lastError = null;
    switch (ev.type) {
      case "message_streamed": {
        const d = ev.data;
        const kind: Kind = d.kind === "thinking" ? "thinking" : "text";
        if ((kind === "thinking" && this.view.thinking === "hide") || !d.delta) return "";
        const bit = kind === "text" ? 1 : 2;
        st.kindsSince |= bit;
        let fresh = false;
        if (d.message_id !== undefined) {
          st.printedIds.add(kind + ":" + d.message_id);
          const last = st.lastDeltaId.get(kind);
          fresh = last !== undefined && last !== d.message_id;
          st.lastDeltaId.set(kind, d.message_id);
        } else st.noIdKindsSince |= bit;
        return this.onDelta(d.delta, kind, fresh);
      }
      case "message_received": {
        const d = ev.data;
        const kind: Kind = d.kind === "thinking" ? "thinking" : "text";
        const bit = kind === "text" ? 1 : 2;
        const dup = d.message_id !== undefined
          ? st.printedIds.has(kind + ":" + d.message_id) || (st.noIdKindsSince & bit) !== 0
          : (st.kindsSince & bit) !== 0;
        st.kindsSince = 0;
        st.noIdKindsSince = 0;
        if (dup || (kind === "thinking" && this.view.thinking === "hide") || !d.content) return "";
        return this.onMessage(d.content, kind);
      }
      case "tool_call_started":
        st.tools++;
        st.started.set(ev.data.tool_call_id, { name: ev.data.tool_name, input: ev.data.tool_input ?? {}, at: ev.at });
        return this.onToolStarted(ev);
      case "tool_call_completed":
      case "tool_call_failed": {
        const d = ev.data;
        const start = st.started.get(d.tool_call_id);
        st.started.delete(d.tool_call_id);
        const meta = d.result_meta ?? null;
        const metaExit = meta && typeof meta.exit_code === "number" ? meta.exit_code : null;
        const exitCode = typeof d.exit_code === "number" ? d.exit_code : metaExit;
        const status = meta && typeof meta.status === "string" ? meta.status : null;
        const result: ToolResult = {
          id: d.tool_call_id,
          name: d.tool_name || start?.name || "tool",
          input: start?.input ?? {},
          output: typeof d.tool_output === "string" ? d.tool_output : JSON.stringify(d.tool_output ?? ""),
          failed: ev.type === "tool_call_failed" || d.is_error === true || status === "failed" ||
            (exitCode !== null && exitCode !== 0),
          exitCode,
          meta,
          startedAt: start?.at ?? null,
          at: ev.at,
        };
        return this.onToolFinished(result);
      }
      case "token_usage_updated":
        st.usage = ev.data;
        return this.onOther(ev);
      case "error_occurred":
        st.lastError = ev.data.error_message;
        return this.onOther(ev);
      case "run_failed":
        // The lane's error_occurred already showed this message: end the session without repeating it.
        if (lastError !== null && lastError === ev.data.error_message) return this.onFailedAfterError(ev);
        return this.onOther(ev);
      default:
        return this.onOther(ev);
    }
  }

  /** Footer text at stream end. */
  abstract finish(): string;
  /** A printed text delta; `fresh`: it begins another message than the previous delta of its kind (a new run). */
  protected abstract onDelta(delta: string, kind: Kind, fresh: boolean): string;
  /** A whole message that was not already shown as deltas. */
  protected abstract onMessage(content: string, kind: Kind): string;
  /** A tool start. */
  protected abstract onToolStarted(ev: EnvelopeOf<"tool_call_started">): string;
  /** A tool completion or failure. */
  protected abstract onToolFinished(r: ToolResult): string;
  /** Every other visible event. */
  protected abstract onOther(ev: Envelope): string;
  /** A `run_failed` whose message the `error_occurred` just before it already showed. */
  protected abstract onFailedAfterError(ev: EnvelopeOf<"run_failed">): string;
  /** Called when an open text run is closed by {@link breakLine}. */
  protected closeText(): void {}

  /** The change view of a tool result under the current `diff` setting. Failed calls show no change. */
  protected changeView(r: ToolResult): ChangeView {
    const none: ChangeView = { stat: null, note: null, sections: [], change: null };
    if (this.view.diff === "none" || r.failed) return none;
    const change = toolChange(r.name, r.input, r.meta);
    if (change === null) return none;
    if (change.kind === "patch") {
      const stat = { added: change.added, removed: change.removed };
      if (this.view.diff !== "full") return { stat, note: change.note, sections: [], change };
      const b = budget(change.lines(), this.settings.diff_max_lines);
      return { stat, note: change.note, sections: [{ path: change.path, label: null, ...b }], change };
    }
    if (this.view.diff !== "full" || this.settings.pathDiff === null) return { ...none, change };
    const sections: DiffSection[] = [];
    for (const p of change.paths) {
      const body = this.settings.pathDiff(p.path);
      if (body === null || body.length === 0) continue;
      const b = budget(body, this.settings.diff_max_lines);
      sections.push({ path: p.path, label: pathLabel(p.path), lines: b.lines.map(parseMappedLine), more: b.more });
    }
    return { stat: null, note: null, sections, change };
  }

  /** Output lines under the current `tool_output` setting, or null for `none` / `summary`. */
  protected outputView(output: string): OutputView | null {
    const mode = this.view.tool_output;
    if (mode !== "preview" && mode !== "full") return null;
    const lines = nonBlankLines(output);
    if (mode === "preview") return { style: "preview", lines: lines.slice(-3), more: 0 };
    const b = budget(lines, this.settings.tool_output_max_lines);
    return { style: "full", lines: b.lines, more: b.more };
  }

  /** `+a −r` (U+2212) coloured; "" when both are 0. */
  protected formatStat(stat: { added: number; removed: number } | null): string {
    if (stat === null || (stat.added === 0 && stat.removed === 0)) return "";
    return `${this.paint("green", `+${stat.added}`)} ${this.paint("red", `\u2212${stat.removed}`)}`;
  }

  /** Diff body lines at an indent: `+ x` green, `- x` red, `  x` dim, labels and markers dim. */
  protected formatSections(sections: readonly DiffSection[], indent: string): string {
    let out = "";
    const p = this.paint;
    for (const s of sections) {
      if (s.label !== null) out += indent + p("dim", s.label) + "\n";
      for (const l of s.lines) {
        // A file's lines (a `diff: full` section reads the file's git diff) are untrusted too.
        const line = shownLine(l.text);
        const text = line.length > MAX_BODY_LINE / 2 ? truncate(line, MAX_BODY_LINE) : line;
        if (l.op === "+") out += indent + p("green", "+ " + text) + "\n";
        else if (l.op === "-") out += indent + p("red", "- " + text) + "\n";
        else out += indent + p("dim", "  " + text) + "\n";
      }
      if (s.more > 0) out += indent + p("dim", moreMarker(s.more)) + "\n";
    }
    return out;
  }

  /** Tool output lines at an indent: `│ line` dim (preview) or `┊ line` (full), then the marker. */
  protected formatOutput(o: OutputView | null, indent: string): string {
    if (o === null) return "";
    let out = "";
    const p = this.paint;
    for (const raw of o.lines) {
      const l = raw.length > MAX_BODY_LINE / 2 ? truncate(raw, MAX_BODY_LINE) : raw;
      out += indent + (o.style === "preview" ? p("dim", "│ " + l) : "┊ " + l) + "\n";
    }
    if (o.more > 0) out += indent + p("dim", moreMarker(o.more)) + "\n";
    return out;
  }
}
