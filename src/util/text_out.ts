/** The text streams commands, renderers and the runner write to (stdout, stderr, or a test capture). */

/** A writable text stream. */
export interface TextOut {
  write(text: string): void;
  /** Whether this stream is a terminal. */
  readonly isTerminal: boolean;
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
