/**
 * The control audit log `control/log.jsonl` (docs/reference/control-plane.md §3.3) and receipts `outcomes/<name>` (§3.2): entry
 * and receipt shapes, and a tolerant reader (blank and undecodable lines are dropped).
 */
import { parseJsonLines } from "../util/fs.ts";
import { readStoreTextOrNull } from "../util/safe_read.ts";
import { storePaths } from "../store/paths.ts";

/** Outcome of a log entry. */
export type LogOutcome = "applied" | "accepted" | "rejected" | "received";

/** One line of `log.jsonl`. */
export interface LogEntry {
  at: string;
  key: string;
  request: string | null;
  run_id: string | null;
  command: string;
  params: Record<string, unknown>;
  author: string;
  outcome: LogOutcome;
  reason: string | null;
  prompt_id: string | null;
  attempt: number | null;
}

/** A receipt `outcomes/<name>`. */
export interface Receipt {
  request: string;
  run_id: string | null;
  command: string;
  outcome: "applied" | "accepted" | "rejected";
  reason: string | null;
  recorded_at: string;
}

/** Read every decodable log entry, oldest first. Missing file → empty list. */
export async function readLogEntries(storeRoot: string): Promise<LogEntry[]> {
  const text = await readStoreTextOrNull(storePaths(storeRoot).log);
  if (text === null) return [];
  return parseJsonLines<Record<string, unknown>>(text).filter((e) =>
    typeof e.key === "string" && typeof e.command === "string" && typeof e.outcome === "string"
  ).map(normalizeEntry);
}

/** Fill defaults of a decoded log line so consumers can rely on the shape. */
export function normalizeEntry(e: Record<string, unknown>): LogEntry {
  const params = e.params !== null && typeof e.params === "object" && !Array.isArray(e.params)
    ? e.params as Record<string, unknown>
    : {};
  return {
    ...e,
    at: typeof e.at === "string" ? e.at : "",
    key: String(e.key),
    request: typeof e.request === "string" ? e.request : null,
    run_id: typeof e.run_id === "string" ? e.run_id : null,
    command: String(e.command),
    params,
    author: typeof e.author === "string" ? e.author : "unknown",
    outcome: e.outcome as LogOutcome,
    reason: typeof e.reason === "string" ? e.reason : null,
    prompt_id: typeof e.prompt_id === "string" ? e.prompt_id : null,
    attempt: typeof e.attempt === "number" ? e.attempt : null,
  };
}
