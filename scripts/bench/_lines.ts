/** Complete lines appended to a file since the last read: the bench's one-clock reader of logs being written. */
export class AppendedLines {
  #offset = 0;
  #partial = "";
  // One buffer and one decoder per reader: a fresh 64 KiB buffer per read was garbage made every poll (the control
  // case polls every 2 ms while it waits), and a decoder per read dropped a character split across two reads.
  readonly #buf = new Uint8Array(64 * 1024);
  readonly #dec = new TextDecoder();

  constructor(private readonly path: string) {}

  /**
   * The complete lines appended since the last call and the instant (this process's `performance.now()`) they were
   * read; none while the file does not exist yet. A torn last line is kept for the next call.
   */
  read(): { at: number; lines: string[] } {
    let f: Deno.FsFile;
    try {
      f = Deno.openSync(this.path, { read: true });
    } catch {
      return { at: performance.now(), lines: [] }; // not written yet
    }
    try {
      f.seekSync(this.#offset, Deno.SeekMode.Start);
      for (;;) {
        const n = f.readSync(this.#buf);
        if (n === null || n === 0) break;
        this.#offset += n;
        this.#partial += this.#dec.decode(this.#buf.subarray(0, n), { stream: true });
      }
    } finally {
      f.close();
    }
    const at = performance.now();
    const lines = this.#partial.split("\n");
    this.#partial = lines.pop() ?? "";
    return { at, lines: lines.filter((l) => l.trim() !== "") };
  }
}
