/** The verbose renderer (docs/reference/events-and-rendering.md §7.2): one tagged line per non-text event. */
import type { Envelope, EnvelopeOf } from "../events/mod.ts";
import type { Color } from "./ansi.ts";
import { RendererCore } from "./core.ts";
import { oneLine, plural, splitLines, truncate } from "./text.ts";
import type { ToolResult } from "./tools.ts";

type Kind = "text" | "thinking";

const BODY_INDENT = "    ";

function json(value: unknown, max: number): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? "null";
  } catch {
    s = String(value);
  }
  return truncate(s, max);
}

/** Verbose mode: raw text, `[tag] key=value` lines, footer `--- n events, m tools ---`. */
export class VerboseRenderer extends RendererCore {
  readonly mode = "verbose" as const;
  private textKind: Kind | null = null;

  private line(tag: string, color: Color, rest: string): string {
    const pre = this.atLineStart ? "" : "\n";
    this.atLineStart = true;
    this.textKind = null;
    return pre + this.paint(color, `[${tag}]`) + (rest ? " " + rest : "") + "\n";
  }

  protected onDelta(delta: string, kind: Kind, fresh = false): string {
    // A switch between thinking and text, or another message, starts a new line.
    const pre = this.textKind !== null && (this.textKind !== kind || fresh) && !this.atLineStart ? "\n" : "";
    this.textKind = kind;
    this.atLineStart = delta.endsWith("\n");
    return pre + (kind === "thinking" ? this.paint("dim", delta) : delta);
  }

  protected override closeText(): void {
    this.textKind = null;
  }

  protected onMessage(content: string, kind: Kind): string {
    const k = kind === "thinking" ? "kind=thinking " : "";
    return this.line("message_received", "cyan", `${k}content=${truncate(content, 2000)}`);
  }

  protected onToolStarted(ev: EnvelopeOf<"tool_call_started">): string {
    const d = ev.data;
    return this.line(
      "tool_call_started",
      "green",
      `name=${d.tool_name} id=${d.tool_call_id} input=${json(d.tool_input, 120)}`,
    );
  }

  protected onToolFinished(r: ToolResult): string {
    let rest = `name=${r.name}`;
    if (this.view.tool_output !== "none") {
      if (r.exitCode !== null) rest += ` exit_code=${r.exitCode}`;
      rest += ` chars=${r.output.length} lines=${splitLines(r.output).length}`;
    }
    const cv = this.changeView(r);
    const stat = this.formatStat(cv.stat);
    if (stat) rest += "  " + stat;
    if (cv.note !== null && cv.stat !== null) rest += " " + cv.note;
    let out = this.line(r.failed ? "tool_call_failed" : "tool_call_completed", r.failed ? "red" : "green", rest);
    out += this.formatOutput(this.outputView(r.output), BODY_INDENT);
    out += this.formatSections(cv.sections, BODY_INDENT);
    return out;
  }

  protected onOther(ev: Envelope): string {
    switch (ev.type) {
      case "run_started":
        return this.line(
          "run_started",
          "blue",
          `model=${ev.data.model ?? ""} session_id=${ev.data.provider_session_id ?? ""}`,
        );
      case "token_usage_updated": {
        const d = ev.data;
        const cost = typeof d.cost_usd === "number" ? ` cost=$${d.cost_usd.toFixed(6)}` : "";
        return this.line("token_usage", "dim", `input=${d.input_tokens} output=${d.output_tokens}${cost}`);
      }
      case "run_completed":
        return this.line("run_completed", "blue", `stop_reason=${ev.data.stop_reason}`);
      case "run_failed":
        return this.line(
          "run_failed",
          "red",
          `error_code=${ev.data.error_code} error_message=${oneLine(ev.data.error_message, 2000)}`,
        );
      case "error_occurred":
        return this.line(
          "error",
          "red",
          `error_code=${ev.data.error_code} error_message=${oneLine(ev.data.error_message, 2000)}`,
        );
      case "run_cancelled":
        return this.line("run_cancelled", "yellow", `reason=${ev.data.reason}`);
      case "notice":
        return this.line("notice", ev.data.level === "warning" ? "yellow" : "dim", oneLine(ev.data.message, 2000));
      default:
        return this.line("event", "dim", `type=${ev.type} data=${json(ev.data, 120)}`);
    }
  }

  /** Verbose shows every event as its own tagged line, the repeated message included. */
  protected onFailedAfterError(ev: EnvelopeOf<"run_failed">): string {
    return this.onOther(ev);
  }

  /** Close the open line and print the footer. */
  finish(): string {
    const pre = this.atLineStart ? "" : "\n";
    this.atLineStart = true;
    return pre + this.paint("dim", `--- ${plural(this.events, "event")}, ${plural(this.tools, "tool")} ---`) + "\n";
  }
}
