/** The colour palette of docs/reference/events-and-rendering.md §11 and ANSI stripping for file sinks. */

/** Palette escape sequences (docs/reference/events-and-rendering.md §11). */
const PALETTE = {
  red: "\x1b[0;31m",
  green: "\x1b[0;32m",
  yellow: "\x1b[1;33m",
  blue: "\x1b[0;34m",
  magenta: "\x1b[0;35m",
  cyan: "\x1b[0;36m",
  dim: "\x1b[2m",
  bold: "\x1b[1m",
} as const;

/** The reset sequence. */
const RESET = "\x1b[0m";

/** A palette colour name. */
export type Color = keyof typeof PALETTE;

/** A painter: wraps text in a colour, or returns it unchanged when colour is off. */
export type Paint = (color: Color, text: string) => string;

/** A painter for the given colour switch; with `false` it never emits ANSI. */
export function painter(enabled: boolean): Paint {
  if (!enabled) return (_c, text) => text;
  return (c, text) => (text === "" ? "" : PALETTE[c] + text + RESET);
}

// CSI sequences (ESC [ params intermediates final) and two-byte ESC sequences.
// deno-lint-ignore no-control-regex
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

/** Remove ANSI escape sequences. */
export function stripAnsi(text: string): string {
  return text.indexOf("\x1b") < 0 ? text : text.replace(CSI, "");
}
