/** Prompt id normalisation (docs/reference/packet.md §5): base-10 integer, zero-padded to at least two digits. */

/** Normalise an id value (`7` → `"07"`, `"007"` → `"07"`, `123` → `"123"`); null when not numeric. */
export function normalizePromptId(value: unknown): string | null {
  let s: string;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) return null;
    s = String(value);
  } else if (typeof value === "string") {
    s = value.trim();
    if (!/^\d+$/.test(s)) return null;
  } else {
    return null;
  }
  const n = BigInt(s);
  return n.toString().padStart(2, "0");
}
