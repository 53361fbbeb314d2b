/** The renderer factory and the default line budgets of the renderers. */
import type { Renderer, RenderSettings, StreamState } from "./types.ts";
import { CompactRenderer } from "./compact.ts";
import { VerboseRenderer } from "./verbose.ts";
import { StudioRenderer } from "./studio.ts";

/** Default line budgets (docs/reference/events-and-rendering.md §6, §8). */
export const DEFAULT_DIFF_MAX_LINES = 60;
/** Default `tool_output: full` line cap. */
export const DEFAULT_TOOL_OUTPUT_MAX_LINES = 200;

/**
 * A renderer for `settings.log_mode` (compact, verbose or studio). `carried`: the stream state of the renderer it
 * replaces mid-stream (see {@link switchRenderer}); null starts a fresh stream.
 */
export function createRenderer(settings: RenderSettings, carried: StreamState | null = null): Renderer {
  switch (settings.log_mode) {
    case "verbose":
      return new VerboseRenderer(settings, carried);
    case "studio":
      return new StudioRenderer(settings, carried);
    default:
      return new CompactRenderer(settings, carried);
  }
}

/**
 * A `log_mode` change mid-stream (docs/reference/control-plane.md §7): `text` ends the outgoing renderer's open line
 * (write it before anything else), and the new renderer continues the same stream — open tool calls, counters and
 * the text dedupe carry over, so a tool started under one mode completes with its command and duration under the
 * other, and the footer counts the whole stream. The outgoing renderer's `finish()` is not called.
 */
export function switchRenderer(from: Renderer, settings: RenderSettings): { text: string; renderer: Renderer } {
  const text = from.breakLine();
  return { text, renderer: createRenderer(settings, from.streamState()) };
}
