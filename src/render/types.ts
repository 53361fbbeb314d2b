/** Renderer and sink contracts (docs/reference/events-and-rendering.md §5–§10). */
import type { Envelope, TokenUsage, View } from "../events/mod.ts";

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
  /** What the stream has shown so far; {@link Renderer.breakLine} then this, when a `log_mode` change replaces it. */
  streamState(): StreamState;
}

/**
 * What a stream has shown so far, independent of the mode: the counters of the footer, the tool calls still open
 * (their input and start time name the command and the duration at completion), the text dedupe memory and the last
 * error shown. A `log_mode` change mid-stream hands it to the next renderer (docs/reference/control-plane.md §7), so a
 * tool started under one mode completes correctly under the other.
 */
export interface StreamState {
  events: number;
  tools: number;
  readonly started: Map<string, { name: string; input: Record<string, unknown>; at: string }>;
  readonly printedIds: Set<string>;
  kindsSince: number;
  /** The `message_id` of the last delta of each kind: a delta of another message starts a new text run. */
  readonly lastDeltaId: Map<string, string>;
  noIdKindsSince: number;
  /** The latest token usage of the stream (studio's closing line). */
  usage: TokenUsage | null;
  /** The message of the last `error_occurred` shown, until the next event: a `run_failed` repeating it is folded. */
  lastError: string | null;
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
