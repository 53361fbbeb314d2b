/** Timestamps and ids (docs/reference/runner.md §10.5). */

/** Current time as UTC ISO-8601 with milliseconds and `Z`. */
export function nowIso(): string {
  return new Date().toISOString();
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** Random base32 characters (alphabet A–Z2–7). */
function randomBase32(n: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(n));
  let s = "";
  for (const b of bytes) s += BASE32[b & 31];
  return s;
}

/** A run id `<YYYYMMDDTHHMMSSZ>-<6 base32>` for the given start time. */
export function newRunId(at: Date = new Date()): string {
  const iso = at.toISOString(); // 2026-11-30T12:05:01.004Z
  const stamp = iso.slice(0, 19).replaceAll("-", "").replaceAll(":", "") + "Z";
  return `${stamp}-${randomBase32(6)}`;
}

/** Whether a string has the run id shape. */
export function isRunId(s: string): boolean {
  return /^\d{8}T\d{6}Z-[A-Z2-7]{6}$/.test(s);
}

/** `YYYYMMDD-HHMMSS` (UTC) for log file names. */
export function fileStamp(at: Date = new Date()): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
}

/** Human duration: `812ms`, `12.3s`, `7m12s`, `1h04m` (docs/reference/control-plane.md §13). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  if (ms < 3_600_000) {
    const m = Math.floor(ms / 60_000);
    const s = Math.floor((ms % 60_000) / 1000);
    return `${m}m${String(s).padStart(2, "0")}s`;
  }
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  return `${h}h${String(m).padStart(2, "0")}m`;
}

/** Human age: `8s`, `3m`, `1h4m` (docs/reference/workspace.md §8.1). */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** Parse a duration flag: `250ms`, `30s`, `10m`, `4h`, or a bare number of milliseconds. Null when invalid. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? "ms";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}
