/** The renderer factory and the default line budgets of the renderers. */
import type { Renderer, RenderSettings } from "./types.ts";
import { CompactRenderer } from "./compact.ts";
import { VerboseRenderer } from "./verbose.ts";
import { StudioRenderer } from "./studio.ts";

/** Default line budgets (docs/reference/events-and-rendering.md §6, §8). */
export const DEFAULT_DIFF_MAX_LINES = 60;
/** Default `tool_output: full` line cap. */
export const DEFAULT_TOOL_OUTPUT_MAX_LINES = 200;

/** A renderer for `settings.log_mode` (compact, verbose or studio). */
export function createRenderer(settings: RenderSettings): Renderer {
  switch (settings.log_mode) {
    case "verbose":
      return new VerboseRenderer(settings);
    case "studio":
      return new StudioRenderer(settings);
    default:
      return new CompactRenderer(settings);
  }
}
