/** Rendering untrusted text on a terminal: control characters are shown escaped, never emitted raw. */

// C0 controls (tab and newline included), DEL, C1 controls, and the Unicode line/paragraph separators.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `text` with every control character (ESC, BEL, CR, newline, …) replaced by a visible `\xNN` / `\uNNNN` escape. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
