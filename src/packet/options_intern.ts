/**
 * Resolved execution options shared between the prompts of a packet (docs/bench.md, memory at 10,000 prompts): most
 * prompts of a long packet resolve to identical options (~1 KB of objects each), so each distinct value is held once,
 * deeply frozen — the run only reads them, and a frozen object shared by many prompts can never be changed for one of
 * them through another.
 */

/** Deep structural equality of plain option values (`Object.is` on leaves: `NaN`, `-0`, `undefined` kept apart). */
function same(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>, rb = b as Record<string, unknown>;
  return ka.every((k, i) => k === kb[i] && same(ra[k], rb[k]));
}

/** Freeze a value and everything it holds. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** One packet's distinct option values: {@link OptionsInterner.intern} returns the held equal value, or holds this one. */
export class OptionsInterner<T extends object> {
  readonly #byText = new Map<string, T[]>();

  /** The shared, deeply frozen value equal to `value` (the first one seen is kept). */
  intern(value: T): T {
    const key = JSON.stringify(value);
    const held = this.#byText.get(key);
    // The JSON text only narrows the search (it writes `undefined`, `NaN` and `Infinity` alike): equality decides.
    const found = held?.find((h) => same(h, value));
    if (found) return found;
    deepFreeze(value);
    if (held) held.push(value);
    else this.#byText.set(key, [value]);
    return value;
  }

  /** Distinct values held (a test seam). */
  get size(): number {
    let n = 0;
    for (const v of this.#byText.values()) n += v.length;
    return n;
  }
}
