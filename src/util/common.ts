/** Small shared helpers (used by control/ and store/): host identity, default author, byte lengths, record guards. */

import { osUser } from "./os_user.ts";
import { isRecord } from "./is_record.ts";

export { isRecord };

let cachedHost: string | null | undefined;

/**
 * This machine's hostname. Uses `Deno.hostname()` when `sys` is granted, else `/proc/sys/kernel/hostname` or
 * `/etc/hostname` (commands such as `control steer` keep only read/write/env). Null when nothing is readable.
 */
export function localHostname(): string | null {
  if (cachedHost !== undefined) return cachedHost;
  let host: string | null = null;
  try {
    host = Deno.hostname();
  } catch {
    for (const path of ["/proc/sys/kernel/hostname", "/etc/hostname"]) {
      try {
        const text = Deno.readTextFileSync(path).trim();
        if (text) {
          host = text;
          break;
        }
      } catch { /* try the next source */ }
    }
  }
  cachedHost = host;
  return host;
}

/**
 * Default author of control commands: `USER`, else `USERNAME`, else the OS user of the process (its name from
 * `/etc/passwd`, or `uid:<n>`), else `"unknown"` (docs/reference/control-plane.md §3.1).
 */
export function defaultAuthor(): string {
  for (const name of ["USER", "USERNAME"]) {
    try {
      const v = Deno.env.get(name);
      if (v && v.trim()) return v.trim();
    } catch { /* env not granted */ }
  }
  return osUser() ?? "unknown";
}

const encoder = new TextEncoder();

/** UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** A JSON object document, or null when the text is absent, not JSON, or not an object (for leniently read files). */
export function jsonRecordOrNull(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** The error message of an unknown thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Milliseconds between two ISO strings (or now), never negative; 0 when `from` is null or invalid. */
export function elapsedSince(from: string | null, nowMs: number): number {
  if (!from) return 0;
  const t = Date.parse(from);
  return Number.isFinite(t) ? Math.max(0, Math.round(nowMs - t)) : 0;
}
