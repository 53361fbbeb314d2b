/**
 * A minimal terminal for tests of what a program draws on a TTY: printable text with auto-wrap at `columns` (the
 * pending-wrap rule of VT100/xterm), CR, LF, TAB, and the CSI sequences the status line and renderers use — cursor
 * up/down/forward/back (`A`, `B`, `C`, `D`), column (`G`), erase in line (`K`, `2K`), erase below (`J`); SGR (`m`)
 * and other sequences are ignored. The screen has no bottom: a scroll changes no relative position, so it is not
 * modelled. Characters count one column each except those {@link wide} says are two.
 */

/** Whether a character takes two columns (East Asian wide and emoji ranges used by the tests). */
function wide(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xff60) || (c >= 0x1f300 && c <= 0x1faff);
}

/** A screen that text is written to. */
export class Vt {
  /** Rows of cells; a wide character's second cell is "". */
  rows: string[][] = [[]];
  row = 0;
  col = 0;
  #pendingWrap = false;

  constructor(readonly columns = 80) {}

  #line(r: number): string[] {
    while (this.rows.length <= r) this.rows.push([]);
    return this.rows[r]!;
  }

  #put(ch: string): void {
    const w = wide(ch) ? 2 : 1;
    if (this.#pendingWrap || this.col + w > this.columns) {
      this.row++;
      this.col = 0;
      this.#pendingWrap = false;
    }
    const line = this.#line(this.row);
    while (line.length < this.col) line.push(" ");
    line[this.col] = ch;
    if (w === 2) line[this.col + 1] = "";
    this.col += w;
    if (this.col >= this.columns) {
      this.col = this.columns - 1;
      this.#pendingWrap = true;
    }
  }

  /** Write text as a terminal would show it. */
  write(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === "\x1b") {
        // deno-lint-ignore no-control-regex
        const m = /^\x1b\[([0-9;?]*)([@-~])/.exec(text.slice(i));
        if (!m) {
          i += 1; // a two-byte escape: skipped
          continue;
        }
        i += m[0].length - 1;
        this.#csi(m[1] ?? "", m[2]!);
        continue;
      }
      if (ch === "\r") {
        this.col = 0;
        this.#pendingWrap = false;
      } else if (ch === "\n") {
        this.row++;
        this.col = 0; // the pty's onlcr: LF arrives as CR LF
        this.#pendingWrap = false;
        this.#line(this.row);
      } else if (ch === "\t") {
        this.col = Math.min(this.columns - 1, (Math.floor(this.col / 8) + 1) * 8);
      } else {
        const cp = text.codePointAt(i)!;
        const full = String.fromCodePoint(cp);
        if (full.length === 2) i++;
        this.#put(full);
      }
    }
  }

  #csi(params: string, final: string): void {
    const n = Math.max(1, Number(params || "1") || 1);
    this.#pendingWrap = false;
    const line = this.#line(this.row);
    switch (final) {
      case "A":
        this.row = Math.max(0, this.row - n);
        break;
      case "B":
        this.row += n;
        this.#line(this.row);
        break;
      case "C":
        this.col = Math.min(this.columns - 1, this.col + n);
        break;
      case "D":
        this.col = Math.max(0, this.col - n);
        break;
      case "G":
        this.col = Math.min(this.columns - 1, n - 1);
        break;
      case "K":
        if (params === "2") line.length = 0;
        else if (params === "" || params === "0") line.length = Math.min(line.length, this.col);
        break;
      case "J":
        line.length = Math.min(line.length, this.col);
        this.rows.length = this.row + 1;
        break;
    }
  }

  /** The screen's lines, trailing spaces and trailing empty lines removed. */
  lines(): string[] {
    const out = this.rows.map((r) => r.map((c) => (c === undefined ? " " : c)).join("").replace(/\s+$/, ""));
    while (out.length > 0 && out.at(-1) === "") out.pop();
    return out;
  }
}
