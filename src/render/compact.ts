/** The compact renderer (docs/reference/events-and-rendering.md §7.1): dense tokens sharing lines. */
import type { Envelope, EnvelopeOf } from "../events/mod.ts";
import { RendererCore } from "./core.ts";
import { nonBlankLines, oneLine, plural, shortModel } from "./text.ts";
import type { ToolResult } from "./tools.ts";

type Kind = "text" | "thinking";

const BODY_INDENT = "    ";

/** Compact mode: `r+ model >> text`, `t+Tool t-Tool +3 −1 tr:…`, footer `--- n events, m tools ---`. */
export class CompactRenderer extends RendererCore {
  readonly mode = "compact" as const;
  private inText: Kind | null = null;
  /** A whole message ended the current run: the next text starts a new one. */
  private runEnded = false;

  private token(t: string): string {
    let pre = "";
    if (this.inText !== null) {
      pre = this.atLineStart ? "" : "\n";
      this.inText = null;
    } else if (!this.atLineStart) pre = " ";
    this.atLineStart = false;
    return pre + t;
  }

  private block(text: string): string {
    if (text === "") return "";
    const pre = this.atLineStart ? "" : "\n";
    this.atLineStart = true;
    this.inText = null;
    return pre + text;
  }

  protected override closeText(): void {
    this.inText = null;
  }

  protected onDelta(delta: string, kind: Kind, fresh = false): string {
    let pre = "";
    if (this.inText !== kind || this.runEnded || fresh) {
      if (this.inText !== null && !this.atLineStart) pre = "\n";
      const lineStart = this.inText !== null || this.atLineStart;
      pre += lineStart ? ">> " : " >> ";
      this.inText = kind;
      this.runEnded = false;
    }
    this.atLineStart = delta.endsWith("\n");
    return pre + (kind === "thinking" ? this.paint("dim", delta) : delta);
  }

  protected onMessage(content: string, kind: Kind): string {
    this.runEnded = true; // force a fresh run for this message
    const out = this.onDelta(content, kind);
    this.runEnded = true;
    return out;
  }

  protected onToolStarted(ev: EnvelopeOf<"tool_call_started">): string {
    return this.token(this.paint("green", `t+${ev.data.tool_name}`));
  }

  protected onToolFinished(r: ToolResult): string {
    const p = this.paint;
    let t = r.failed ? `${p("red", "!")} tool ${r.name} failed` : p("green", `t-${r.name}`);
    const cv = this.changeView(r);
    const stat = this.formatStat(cv.stat);
    if (stat) t += " " + stat;
    if (cv.note !== null && cv.stat !== null) t += " " + cv.note;
    if (this.view.tool_output !== "none") {
      const lines = nonBlankLines(r.output);
      if (lines.length > 0) {
        const more = lines.length > 1 ? ` (+${plural(lines.length - 1, "line")})` : "";
        t += " " + p("dim", `tr:${oneLine(lines[0]!, 120)}${more}`);
      }
    }
    let out = this.token(t);
    out += this.block(this.formatOutput(this.outputView(r.output), BODY_INDENT));
    out += this.block(this.formatSections(cv.sections, BODY_INDENT));
    return out;
  }

  protected onOther(ev: Envelope): string {
    const p = this.paint;
    switch (ev.type) {
      case "run_started": {
        const m = ev.data.model;
        return this.token(p("blue", "r+") + (m ? " " + p("magenta", shortModel(m)) : ""));
      }
      case "token_usage_updated": {
        const d = ev.data;
        const cost = typeof d.cost_usd === "number" ? ` $${d.cost_usd.toFixed(4)}` : "";
        return this.token(p("dim", `tk:${d.input_tokens}/${d.output_tokens}${cost}`));
      }
      case "run_completed": {
        const r = ev.data.stop_reason;
        const short = r === "end_turn" ? "end" : r === "tool_use" ? "tool" : r;
        return this.token(p("blue", `r-:${short}`));
      }
      case "error_occurred":
      case "run_failed":
        return this.token(`${p("red", "!")} ${oneLine(ev.data.error_message, 120)}`);
      case "run_cancelled":
        return this.token(`${p("red", "!")} cancelled (${ev.data.reason})`);
      case "notice": {
        const text = `~ ${oneLine(ev.data.message, 120)}`;
        return this.token(ev.data.level === "warning" ? p("yellow", text) : p("dim", text));
      }
      default:
        return this.token(p("dim", `?${ev.type}`));
    }
  }

  /** The error line just before already said it; the footer ends the session. */
  protected onFailedAfterError(_ev: EnvelopeOf<"run_failed">): string {
    return "";
  }

  /** Close the open line and print the footer. */
  finish(): string {
    const pre = this.atLineStart ? "" : "\n";
    this.atLineStart = true;
    this.inText = null;
    return pre + this.paint("dim", `--- ${plural(this.events, "event")}, ${plural(this.tools, "tool")} ---`) + "\n";
  }
}
