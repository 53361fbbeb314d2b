/** Renderer and sink contracts (docs/reference/events-and-rendering.md §5–§10). */
import type { Envelope, View } from "../events/mod.ts";

/** Settings a renderer honours; `setView` changes the View part at runtime. */
export interface RenderSettings extends View {
  diff_max_lines: number;
  tool_output_max_lines: number;
  /** Emit ANSI colour. */
  color: boolean;
  /** Output goes to a terminal: studio may use `\r` overwrites (only when `color` too). */
  tty: boolean;
  /**
   * Path-only diffs at `diff: full`: returns the `git diff` body lines for a path (already mapped to `+ text`,
   * `- text` and `  text`, see `gitPathDiff` in git_diff.ts), or null.
   * Injected by the runner so renderers never touch the filesystem themselves.
   */
  pathDiff: ((path: string) => string[] | null) | null;
}

/** Turns canonical events into text. One synchronous step per event (a control-plane boundary follows). */
export interface Renderer {
  readonly mode: View["log_mode"];
  /** Text for one event (possibly empty). Hidden events return "". */
  render(event: Envelope): string;
  /** Text at stream end (footer). */
  finish(): string;
  /** Apply view settings other than log_mode (a log_mode change replaces the renderer). */
  setView(view: Partial<View>): void;
  /**
   * Text ("\n" or "") that ends an open line (a text run, a studio `◐` line) so the caller can print whole lines of
   * its own between events (steer notices, log markers). The renderer then continues on a fresh line. Also call it
   * on the outgoing renderer before replacing it on a `log_mode` change (it prints no footer).
   */
  breakLine(): string;
}

/** Receives rendered text. */
export interface TextSink {
  write(text: string): void;
  flush(): void;
  close(): void;
}

/** Receives events (per-attempt events file). */
export interface EventSink {
  event(event: Envelope): void;
  flush(): void;
  close(): void;
}
