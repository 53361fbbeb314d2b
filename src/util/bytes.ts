/** Byte arrays: one place for joining pieces (reads, stream chunks, frames). */

/** `parts` copied end to end into one new array (`total`: their summed length, when the caller kept it). */
export function concatBytes(parts: readonly Uint8Array[], total?: number): Uint8Array {
  const out = new Uint8Array(total ?? parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
