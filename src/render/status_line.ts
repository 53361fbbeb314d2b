/**
 * The live status line of `run` on a terminal (docs/status.md): one line below the stream, redrawn in place and never
 * interleaved with it. Every write to stdout or stderr first clears the line, then the text goes out, then the line
 * is drawn again. Where it is drawn depends on where the stream's cursor is:
 *
 * - at the start of a line: on that line, the cursor left at its start (the next text overwrites it after a clear);
 * - inside an open line (a compact token line, a text run): on the line below, the cursor moved back to the open
 *   line's column with relative moves only (a scroll at the bottom of the screen keeps them right).
 *
 * The column is tracked from the text written (escape sequences skipped, wide characters counted twice, tabs to
 * the next stop of 8). When it cannot be known — a line reaching the terminal's right margin, where terminals
 * differ — the status line waits for the next line feed or carriage return.
 */
import type { TextOut } from "../util/mod.ts";
import { stripAnsi } from "./ansi.ts";
import { displayWidth } from "./text.ts";

/** Options of {@link StatusLine}. */
export interface StatusLineOptions {
  /** The terminal's stdout. */
  out: TextOut;
  /** The terminal's stderr (same screen), or null when stderr goes elsewhere. */
  err: TextOut | null;
  /** The status text now (one line, no escape sequences needed). */
  text: () => string;
  /** The terminal's width in columns now. */
  columns: () => number;
}

/** The shortest time between two draws caused by writes. */
const REDRAW_GAP_MS = 50;

/** Clear the current line and go to its start. */
const CLEAR = "\r\x1b[2K";

/**
 * Where the stream's cursor is on a terminal `width` columns wide: its column on the current row, whether that row
 * is still empty (nothing written since a line feed), or null when it cannot be known until the next line feed or
 * carriage return (a tab or a character reaching the right margin, where terminals differ).
 */
export type Cursor = { col: number; fresh: boolean } | null;

// CSI sequences and two-byte escapes, as stripped by stripAnsi.
// deno-lint-ignore no-control-regex
const ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/y;

/** The cursor after `text` is written from `cur` (pure). */
export function cursorAfter(cur: Cursor, text: string, width: number): Cursor {
  const cut = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
  let tail = text;
  if (cut >= 0) {
    cur = { col: 0, fresh: text[cut] === "\n" };
    tail = text.slice(cut + 1);
  }
  if (cur === null || tail === "") return cur;
  let col = cur.col;
  let fresh = cur.fresh;
  for (let i = 0; i < tail.length;) {
    if (tail[i] === "\x1b") {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(tail);
      i += m ? m[0].length : 1;
      continue;
    }
    const cp = tail.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    fresh = false;
    const w = ch === "\t" ? (Math.floor(col / 8) + 1) * 8 - col : displayWidth(ch);
    // Reaching the right margin (a pending wrap, a tab or a wide character at the edge): unknown from here on.
    if (col + w >= width) return null;
    col += w;
  }
  return { col, fresh };
}

/** A status line under the stream of one terminal; see the module comment. */
export class StatusLine {
  readonly #o: StatusLineOptions;
  /** Where the stream left the cursor (see {@link cursorAfter}). */
  #cur: Cursor = { col: 0, fresh: true };
  /** Where the status line is now. */
  #shown: "none" | "here" | "below" = "none";
  #stopped = false;
  /** When the line was last drawn after a write (performance.now()), and the timer of a deferred draw. */
  #drawnAt = -Infinity;
  #soon: ReturnType<typeof setTimeout> | null = null;
  /** The stdout the run writes to. */
  readonly stdout: TextOut;
  /** The stderr the run writes to. */
  readonly stderr: TextOut;

  constructor(opts: StatusLineOptions) {
    this.#o = opts;
    this.stdout = { isTerminal: true, write: (t) => this.#write(opts.out, t) };
    const err = opts.err;
    this.stderr = err ? { isTerminal: err.isTerminal, write: (t) => this.#write(err, t) } : opts.out;
  }

  #write(to: TextOut, text: string): void {
    if (text === "") return;
    const clear = this.#clearText();
    if (clear && to === this.#o.out) {
      to.write(clear + text);
    } else {
      if (clear) this.#o.out.write(clear);
      to.write(text);
    }
    this.#cur = cursorAfter(this.#cur, text, this.#width());
    this.#drawAfterWrite();
  }

  /**
   * After a write the line comes back at once, unless it was drawn less than {@link REDRAW_GAP_MS} ago: then once
   * that gap has passed (a fast stream does not redraw it on every token).
   */
  #drawAfterWrite(): void {
    const wait = this.#drawnAt + REDRAW_GAP_MS - performance.now();
    if (wait <= 0) {
      this.draw();
      return;
    }
    if (this.#soon !== null) return;
    this.#soon = setTimeout(() => {
      this.#soon = null;
      this.draw();
    }, wait);
    Deno.unrefTimer(this.#soon);
  }

  /** The text that removes the status line and puts the cursor back where the stream left it. */
  #clearText(): string {
    const shown = this.#shown;
    this.#shown = "none";
    if (shown === "here") return CLEAR;
    if (shown === "below") return `\x1b[B${CLEAR}\x1b[A${this.#back()}`;
    return "";
  }

  /** From column 0 of the open line back to the stream's column on it. */
  #back(): string {
    const c = this.#cur?.col ?? 0;
    return c > 0 ? `\r\x1b[${c}C` : "\r";
  }

  #width(): number {
    const w = this.#o.columns();
    return Number.isFinite(w) && w > 1 ? Math.trunc(w) : 80;
  }

  /** Draw (or redraw) the status line now; a no-op once stopped or where the column is unknown. */
  draw(): void {
    if (this.#stopped) return;
    this.#drawnAt = performance.now();
    const width = this.#width();
    const line = fit(this.#o.text(), width - 1);
    const clear = this.#clearText();
    const cur = this.#cur;
    if (cur === null) { // where the cursor is cannot be known: wait for the next line
      if (clear) this.#o.out.write(clear);
      return;
    }
    if (cur.fresh) {
      this.#o.out.write(`${clear}${CLEAR}${line}\r`);
      this.#shown = "here";
      return;
    }
    this.#o.out.write(`${clear}\n${CLEAR}${line}\x1b[A${this.#back()}`);
    this.#shown = "below";
  }

  /** Remove the status line for good (the run ends). */
  stop(): void {
    if (this.#stopped) return;
    if (this.#soon !== null) clearTimeout(this.#soon);
    this.#soon = null;
    const clear = this.#clearText();
    if (clear) this.#o.out.write(clear);
    this.#stopped = true;
  }
}

/** At most `max` columns of plain text. */
function fit(text: string, max: number): string {
  const plain = stripAnsi(text).replace(/[\r\n\t]/g, " ");
  if (displayWidth(plain) <= max) return plain;
  let out = "";
  let w = 0;
  for (const ch of plain) {
    const cw = displayWidth(ch);
    if (w + cw > max - 1) break;
    out += ch;
    w += cw;
  }
  return out + "…";
}
