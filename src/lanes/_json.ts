/** Defensive accessors for raw provider JSON lines (private to src/lanes/). */

/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The object at `key`, or null. */
export function obj(o: JsonObject | null | undefined, key: string): JsonObject | null {
  const v = o?.[key];
  return isObject(v) ? v : null;
}

/** The string at `key`, or null. */
export function str(o: JsonObject | null | undefined, key: string): string | null {
  const v = o?.[key];
  return typeof v === "string" ? v : null;
}

/** The finite number at `key`, or null. */
export function num(o: JsonObject | null | undefined, key: string): number | null {
  const v = o?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/**
 * The token count at `key`: a non-negative safe integer, or null. A provider's negative, fractional or absurd count
 * (`1e308`) never reaches the record, where it would show as `tk:-500` or overflow a run's total.
 */
export function count(o: JsonObject | null | undefined, key: string): number | null {
  const v = num(o, key);
  return v !== null && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

/** The cost in USD at `key`: a finite non-negative number, or null. */
export function cost(o: JsonObject | null | undefined, key: string): number | null {
  const v = num(o, key);
  return v !== null && v >= 0 ? v : null;
}

/** The array at `key`, or an empty array. */
export function arr(o: JsonObject | null | undefined, key: string): unknown[] {
  const v = o?.[key];
  return Array.isArray(v) ? v : [];
}

/** The first number among `keys`, or null. */
export function firstNum(o: JsonObject | null | undefined, ...keys: string[]): number | null {
  for (const k of keys) {
    const v = num(o, k);
    if (v !== null) return v;
  }
  return null;
}

/** Parse one line as a JSON object, or null when it is not one. */
export function parseJsonObject(line: string): JsonObject | null {
  const t = line.trim();
  if (!t.startsWith("{")) return null;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** Text of a value: strings as is, text blocks joined, anything else as compact JSON. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const b of value) {
      if (typeof b === "string") parts.push(b);
      else if (isObject(b) && typeof b.text === "string") parts.push(b.text);
    }
    if (parts.length > 0 || value.length === 0) return parts.join("\n");
  }
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
