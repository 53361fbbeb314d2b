/** Complete lines appended to a file since the last read: the bench's one-clock reader of logs being written. */
export class AppendedLines {
  #offset = 0;
  #partial = "";

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
      const buf = new Uint8Array(64 * 1024);
      const dec = new TextDecoder();
      for (;;) {
        const n = f.readSync(buf);
        if (n === null || n === 0) break;
        this.#offset += n;
        this.#partial += dec.decode(buf.subarray(0, n), { stream: true });
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
