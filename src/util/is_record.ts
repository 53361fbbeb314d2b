/** The plain-object test shared by the readers of JSON and YAML documents (no imports, so any reader can take it). */

/** Whether a value is a plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
