/**
 * Rendering untrusted text on a terminal: control characters are shown escaped, never emitted raw
 * (docs/rendering.md, "Untrusted text"). Every human surface — the listings, the reports, the run's live log, error
 * messages — passes packet, store and agent text through one of these before it colours or pads it; the escapes are
 * plain ASCII, so widths measured afterwards are the widths shown.
 */

// C0 controls (tab and newline included), DEL, C1 controls, and the Unicode line/paragraph separators.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// The same without newline and tab.
// deno-lint-ignore no-control-regex
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
// Whether a text needs escaping at all (the common case — none — costs one scan).
// deno-lint-ignore no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function shown(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character (ESC, BEL, CR, newline, tab, …) replaced by a visible `\xNN` / `\uNNNN`
 * escape: for one-line values (names, titles, file names, ids, paths), where even a newline only forges a line.
 */
export function escapeControl(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL, shown) : text;
}

/**
 * `text` with every control character but newline and tab shown escaped: for multi-line text (an agent's messages,
 * a tool's output, an error with its hints), whose lines are its own.
 */
export function escapeControlKeepLines(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL_BUT_LINES, shown) : text;
}
