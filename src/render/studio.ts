/** The studio renderer (docs/reference/events-and-rendering.md §7.3): indented blocks with status icons. */
import type { Envelope, EnvelopeOf } from "../events/mod.ts";
import { RendererCore } from "./core.ts";
import { oneLine, plural } from "./text.ts";
import { toolActivity, type ToolResult, toolSummaries } from "./tools.ts";

type Kind = "text" | "thinking";

const INDENT = "  ";
const BODY_INDENT = INDENT + "    ";
const CLEAR_LINE = "\r\x1b[2K";

/** Studio mode: `● session started`, `◐ activity` overwritten by `✓ summary  +a −r`, output and diff bodies. */
export class StudioRenderer extends RendererCore {
  readonly mode = "studio" as const;
  private textKind: Kind | null = null;
  /** Tool call id whose `◐` line is open (TTY with colour only). */
  private spinning: string | null = null;

  /** Prefix that ends whatever is open so a fresh line can start. */
  private open(): string {
    this.textKind = null;
    if (this.spinning !== null) {
      this.spinning = null;
      this.atLineStart = true;
      return "\n";
    }
    if (this.atLineStart) return "";
    this.atLineStart = true;
    return "\n";
  }

  protected override closeText(): void {
    this.textKind = null;
    this.spinning = null;
  }

  protected onDelta(delta: string, kind: Kind, fresh = false): string {
    let pre = "";
    if (this.textKind !== kind || fresh) {
      pre = this.open() + "\n";
      this.textKind = kind;
    }
    let body = delta.indexOf("\n") < 0 ? delta : delta.replace(/\n(?=[^\n])/g, "\n" + INDENT);
    if (this.atLineStart && body[0] !== "\n") body = INDENT + body;
    this.atLineStart = body.endsWith("\n");
    return pre + (kind === "thinking" ? this.paint("dim", body) : body);
  }

  protected onMessage(content: string, kind: Kind): string {
    const out = this.onDelta(content, kind);
    this.textKind = null; // the next message is a new block
    return out;
  }

  protected onToolStarted(ev: EnvelopeOf<"tool_call_started">): string {
    const line = this.open() + INDENT + this.paint("cyan", "◐") + " " +
      toolActivity(ev.data.tool_name, ev.data.tool_input ?? {});
    if (this.settings.tty && this.settings.color) {
      this.spinning = ev.data.tool_call_id;
      this.atLineStart = false;
      return line;
    }
    return line + "\n";
  }

  protected onToolFinished(r: ToolResult): string {
    let out: string;
    if (this.spinning === r.id) {
      this.spinning = null;
      this.textKind = null;
      this.atLineStart = true;
      out = CLEAR_LINE;
    } else out = this.open();
    const p = this.paint;
    const icon = r.failed ? p("red", "✗") : p("green", "✓");
    const cv = this.changeView(r);
    const stat = this.formatStat(cv.stat);
    const tail = (stat ? "  " + stat : "") + (cv.note !== null && cv.stat !== null ? " " + cv.note : "");
    const summaries = toolSummaries(r, this.view.tool_output);
    const output = this.formatOutput(this.outputView(r.output), BODY_INDENT);
    if (summaries.length === 1) {
      out += `${INDENT}${icon} ${summaries[0]!.text}${tail}\n${output}${this.formatSections(cv.sections, BODY_INDENT)}`;
      return out;
    }
    // codex file_change: one line per path, each followed by its own section.
    summaries.forEach((s, i) => {
      out += `${INDENT}${icon} ${s.text}${i === 0 ? tail : ""}\n`;
      if (i === 0) out += output;
      out += this.formatSections(cv.sections.filter((sec) => sec.path === s.path), BODY_INDENT);
    });
    return out;
  }

  protected onOther(ev: Envelope): string {
    const p = this.paint;
    switch (ev.type) {
      case "run_started": {
        const d = ev.data;
        const parts = [d.model, d.reasoning_effort ? `(${d.reasoning_effort})` : null].filter(Boolean);
        const head = parts.length ? parts.join(" ") + " " : "";
        return `${this.open()}\n${INDENT}${p("blue", "●")} ${head}session started\n`;
      }
      case "token_usage_updated":
        return "";
      case "run_completed": {
        const u = this.state.usage ?? ev.data.token_usage ?? null;
        const tokens = u ? `${u.input_tokens}/${u.output_tokens} tokens, ` : "";
        const line = `Session complete (${ev.data.stop_reason}) — ${tokens}${plural(this.tools, "tool")}`;
        return `${this.open()}\n${INDENT}${p("blue", "●")} ${line}\n`;
      }
      case "run_failed":
        return `${this.open()}\n${INDENT}${p("red", "✗")} ${oneLine(ev.data.error_message, 2000)}\n`;
      case "error_occurred":
        return `${this.open()}${INDENT}${p("red", "✗")} ${oneLine(ev.data.error_message, 2000)}\n`;
      case "run_cancelled":
        return `${this.open()}${INDENT}${p("yellow", "◐")} interrupted (${ev.data.reason})\n`;
      case "notice": {
        const text = `· ${oneLine(ev.data.message, 2000)}`;
        return `${this.open()}${INDENT}${ev.data.level === "warning" ? p("yellow", text) : p("dim", text)}\n`;
      }
      default:
        return `${this.open()}${INDENT}${p("dim", `? ${ev.type}`)}\n`;
    }
  }

  /** The `✗` line of the error just before already said it. */
  protected onFailedAfterError(_ev: EnvelopeOf<"run_failed">): string {
    return "";
  }

  /** Close an open line; studio has no footer. */
  finish(): string {
    return this.open();
  }
}
