/** The text streams commands, renderers and the runner write to (stdout, stderr, or a test capture). */

/** A writable text stream. */
export interface TextOut {
  write(text: string): void;
  /** Whether this stream is a terminal. */
  readonly isTerminal: boolean;
  /**
   * Write one CI workflow command line this process minted (src/render/ci_commands.ts), ending the open line first.
   * A stream that guards workflow commands ({@link guardWorkflowCommands}) lets only these through; without it the
   * line is written like any other.
   */
  command?(line: string): void;
  /** End a line the stream still holds back, at exit. */
  flush?(): void;
}

/** Write a workflow command line: through the stream's {@link TextOut.command} when it has one. */
export function writeCommand(out: TextOut, line: string): void {
  if (out.command) out.command(line);
  else out.write(line + "\n");
}

/** A {@link TextOut} over a Deno stream, written synchronously so output order is exact. */
export function denoOut(stream: typeof Deno.stdout | typeof Deno.stderr): TextOut {
  const enc = new TextEncoder();
  return {
    write(text: string) {
      const bytes = enc.encode(text);
      let off = 0;
      while (off < bytes.length) {
        try {
          off += stream.writeSync(bytes.subarray(off));
        } catch (e) {
          if (e instanceof Deno.errors.BrokenPipe) return;
          throw e;
        }
      }
    },
    isTerminal: stream.isTerminal(),
  };
}

/** Leading whitespace as the runner trims it (.NET's: Unicode spaces and NEL). */
const LEADING_SPACE = /^[\s\u0085]+/;

/**
 * A {@link TextOut} whose lines cannot be GitHub Actions workflow commands unless this process minted them
 * (docs/ci.md). The runner reads a command from any line of a step's stdout or stderr that starts, after
 * whitespace, with `::` (or the older `##[`): an agent's message, a tool's output or a file name printed at the
 * start of a line could otherwise open a group, add an annotation, mask text or stop command processing. Such a line
 * is written as it is, byte for byte, between `::stop-commands::<token>` and `::<token>::` (the runner's own escape,
 * with a token nobody else knows); every other line passes unchanged. {@link TextOut.command} writes the lines the
 * process means as commands. Line ends are LF, CR or CRLF, as the runner splits them.
 */
export function guardWorkflowCommands(out: TextOut, token: () => string = () => crypto.randomUUID()): TextOut {
  /** The start of the current line while it could still turn out to be a command (whitespace and up to 2 marks). */
  let pending = "";
  /** Whether the current line's start has been decided (written); false at a line start. */
  let decided = false;
  /** The token of the stop around the current line, when it is one. */
  let stopped: string | null = null;
  let minted: string | null = null;
  const stopToken = () => minted ??= token();

  /** Whether a line start (leading whitespace trimmed) is, or may still become, a command. */
  const verdict = (start: string): "command" | "text" | "open" => {
    const s = start.replace(LEADING_SPACE, "");
    if (s.startsWith("::") || s.startsWith("##[")) return "command";
    if (s === "" || s === ":" || s === "#" || s === "##") return "open";
    return "text";
  };

  const write = (text: string) => {
    let buf = "";
    let i = 0;
    while (i < text.length) {
      if (!decided) {
        // Gather the line's start until it is decided or the line ends.
        let j = i;
        while (j < text.length && text[j] !== "\n" && text[j] !== "\r") {
          pending += text[j];
          j++;
          if (verdict(pending) !== "open") break;
        }
        i = j;
        const v = verdict(pending);
        if (v === "open" && i >= text.length) break; // more may come
        if (v === "command") {
          stopped = stopToken();
          buf += `::stop-commands::${stopped}\n`;
        }
        buf += pending;
        pending = "";
        decided = true;
        continue;
      }
      // The rest of a decided line, up to and including its end.
      let k = i;
      while (k < text.length && text[k] !== "\n" && text[k] !== "\r") k++;
      if (k >= text.length) {
        buf += text.slice(i);
        break;
      }
      const crlf = text[k] === "\r" && text[k + 1] === "\n";
      const end = k + (crlf ? 2 : 1);
      buf += text.slice(i, end);
      if (stopped !== null) {
        buf += `::${stopped}::\n`;
        stopped = null;
      }
      decided = false;
      i = end;
    }
    if (buf !== "") out.write(buf);
  };

  return {
    isTerminal: out.isTerminal,
    write(text: string) {
      // The common case: a decided line continues with no line end in the text.
      if (decided && stopped === null && !/[\r\n]/.test(text)) out.write(text);
      else write(text);
    },
    command(line: string) {
      if (decided || pending !== "") write("\n");
      out.write(line + "\n");
    },
    flush() {
      // What is held back cannot be a command on its own; a stop is always ended (it would outlive this process).
      if (pending !== "") {
        out.write(pending);
        pending = "";
        decided = true;
      }
      if (stopped !== null) out.write(`\n::${stopped}::\n`);
      stopped = null;
    },
  };
}
