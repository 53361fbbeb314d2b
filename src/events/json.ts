/** The JSON form of envelopes: encoding never drops an event (docs/reference/events-and-rendering.md §1). */
import type { Envelope } from "./types.ts";

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return String(value);
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return value;
}

/** Encode one envelope as one compact JSON line (without the newline). Unencodable values become strings. */
export function encodeEnvelope(envelope: Envelope): string {
  try {
    return JSON.stringify(envelope, replacer);
  } catch {
    // Circular structures: fall back to stringifying data as a whole.
    const { data, ...rest } = envelope;
    return JSON.stringify({ ...rest, data: { unencodable: String(data) } });
  }
}
