/**
 * Interpreting the bytes of a claimed request (docs/control-protocol.md "JSON limits"): strict UTF-8, a nesting
 * depth bound checked on the raw text before parsing, and field types — `command` a string, `params` an object,
 * `run_id` a string or null, `author` a string — each with a bounded length. Values are kept verbatim (control
 * characters included); renderers escape them.
 */
import { isRecord } from "../util/common.ts";

/** Deepest accepted nesting of objects and arrays in a request body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 16;
/** Longest accepted `command`, `run_id` and `author` values, in characters. */
export const MAX_FIELD_CHARS = { command: 64, run_id: 128, author: 256 } as const;

/** What a request body turned out to be. */
export type BodyInspection =
  | { kind: "unparseable"; message: string }
  | { kind: "invalid"; reason: string; author: string; params: Record<string, unknown>; command: string }
  | { kind: "no_command"; author: string; params: Record<string, unknown>; runId: string | null }
  | { kind: "request"; command: string; params: Record<string, unknown>; runId: string | null; author: string };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The deepest nesting of `{`/`[` outside strings in JSON text, stopping early once past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** Decode and check a request body. */
export function inspectBody(bytes: Uint8Array): BodyInspection {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { kind: "unparseable", message: "not valid UTF-8" };
  }
  if (text.trim() === "") return { kind: "unparseable", message: "empty file" };
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return { kind: "unparseable", message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return { kind: "unparseable", message: e instanceof Error ? e.message : String(e) };
  }
  if (!isRecord(body)) return { kind: "unparseable", message: `expected an object, got ${typeName(body)}` };
  const params = isRecord(body.params) ? body.params : {};
  const command = typeof body.command === "string" ? body.command : "unknown";
  const authorOk = typeof body.author === "string" && body.author.length <= MAX_FIELD_CHARS.author;
  const author = authorOk && (body.author as string).trim() ? body.author as string : "unknown";
  const invalid = (reason: string, cmd = command): BodyInspection => ({
    kind: "invalid",
    reason,
    author,
    params,
    command: cmd,
  });
  if (body.command !== undefined && typeof body.command !== "string") {
    return invalid(`command must be a string, got ${typeName(body.command)}`, "unknown");
  }
  if (command.length > MAX_FIELD_CHARS.command) {
    return invalid(`command longer than ${MAX_FIELD_CHARS.command} characters`, "unknown");
  }
  if (body.params !== undefined && !isRecord(body.params)) {
    return invalid(`params must be an object, got ${typeName(body.params)}`);
  }
  if (body.author !== undefined && typeof body.author !== "string") {
    return invalid(`author must be a string, got ${typeName(body.author)}`);
  }
  if (!authorOk && body.author !== undefined) {
    return invalid(`author longer than ${MAX_FIELD_CHARS.author} characters`);
  }
  const rawRun = body.run_id;
  if (rawRun !== undefined && rawRun !== null && typeof rawRun !== "string") {
    return invalid(`run_id must be a string or null, got ${typeName(rawRun)}`);
  }
  const runId = typeof rawRun === "string" ? rawRun : null;
  if (runId !== null && runId.length > MAX_FIELD_CHARS.run_id) {
    return invalid(`run_id longer than ${MAX_FIELD_CHARS.run_id} characters`);
  }
  if (body.command === undefined) return { kind: "no_command", author, params, runId };
  return { kind: "request", command, params, runId, author };
}
