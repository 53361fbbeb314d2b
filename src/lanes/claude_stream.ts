/**
 * Parser for Claude-shaped stream-json (`system`, `assistant`, `user`, `stream_event`, `result` lines), used by the
 * claude lane (docs/reference/events-and-rendering.md §4.1) and, with usage taken from assistant messages, by amp (§4.3).
 */
import type { ProviderErrorInfo, ProviderEvent, TokenUsage } from "../events/mod.ts";
import { arr, cost, count, isObject, type JsonObject, num, obj, str, textOf } from "./_json.ts";
import { statusInMessage } from "./hints.ts";
import type { LineParser, ParseContext, ParsedLine } from "./profile.ts";
import { failureEvents, unknownLine } from "./_events.ts";

/** Where token usage comes from. */
export type ClaudeUsageSource = "result" | "assistant";

/** Options of {@link createClaudeStreamParser}. */
export interface ClaudeStreamOptions {
  provider: string;
  /** `result`: only `result.usage` counts (claude); `assistant`: summed once per message id (amp). */
  usage: ClaudeUsageSource;
}

function usageFrom(u: JsonObject | null, costUsd: number | null): TokenUsage | null {
  if (u === null && costUsd === null) return null;
  const t: TokenUsage = { input_tokens: count(u, "input_tokens") ?? 0, output_tokens: count(u, "output_tokens") ?? 0 };
  const cached = count(u, "cache_read_input_tokens");
  if (cached !== null) t.cached_input_tokens = cached;
  if (costUsd !== null) t.cost_usd = costUsd;
  return t;
}

/** Create a stateful parser for one stream. */
export function createClaudeStreamParser(ctx: ParseContext, opts: ClaudeStreamOptions): LineParser {
  const toolNames = new Map<string, string>();
  const usageById = new Map<string, JsonObject>();
  let streamMessageId: string | null = null;

  function assistantUsage(message: JsonObject | null): ProviderEvent[] {
    const id = str(message, "id");
    const u = obj(message, "usage");
    if (opts.usage !== "assistant" || id === null || u === null || usageById.has(id)) return [];
    usageById.set(id, u);
    const total: TokenUsage = { input_tokens: 0, output_tokens: 0 };
    let cached = 0;
    for (const v of usageById.values()) {
      total.input_tokens += count(v, "input_tokens") ?? 0;
      total.output_tokens += count(v, "output_tokens") ?? 0;
      cached += count(v, "cache_read_input_tokens") ?? 0;
    }
    if (cached > 0) total.cached_input_tokens = cached;
    return [{ type: "token_usage_updated", data: total }];
  }

  function system(raw: JsonObject): ParsedLine {
    const subtype = str(raw, "subtype") ?? "";
    const sid = str(raw, "session_id");
    if (subtype === "init") {
      const tools = arr(raw, "tools").filter((t): t is string => typeof t === "string");
      const data: ProviderEvent & { type: "run_started" } = {
        type: "run_started",
        data: { provider_session_id: sid, model: str(raw, "model") },
      };
      const cwd = str(raw, "cwd");
      if (cwd !== null) data.data.cwd = cwd;
      if (tools.length > 0) data.data.tools = tools;
      const pm = str(raw, "permissionMode");
      if (pm !== null) data.data.permission_mode = pm;
      const version = str(raw, "claude_code_version") ?? str(raw, "version");
      if (version !== null) data.data.version = version;
      return sid !== null ? { events: [data], sessionId: sid } : { events: [data] };
    }
    if (subtype === "api_retry") {
      const status = num(raw, "error_status") ?? str(raw, "error") ?? "an error";
      const attempt = num(raw, "attempt") ?? "?";
      const max = num(raw, "max_retries") ?? "?";
      return {
        events: [{
          type: "notice",
          data: {
            level: "warning",
            code: "api_retry",
            message: `retrying after ${status} (attempt ${attempt} of ${max})`,
          },
        }],
      };
    }
    return {
      events: [{
        type: "notice",
        hidden: true,
        data: { level: "info", code: subtype === "" ? "system" : subtype, message: `system/${subtype}` },
      }],
    };
  }

  function streamEvent(raw: JsonObject): ParsedLine {
    const ev = obj(raw, "event");
    const type = str(ev, "type");
    if (type === "message_start") {
      streamMessageId = str(obj(ev, "message"), "id");
      return { events: [] };
    }
    if (type !== "content_block_delta") return { events: [] };
    const delta = obj(ev, "delta");
    const dtype = str(delta, "type");
    const withId = streamMessageId !== null ? { message_id: streamMessageId } : {};
    if (dtype === "text_delta") {
      const text = str(delta, "text") ?? "";
      return { events: [{ type: "message_streamed", data: { delta: text, ...withId } }] };
    }
    if (dtype === "thinking_delta") {
      const text = str(delta, "thinking") ?? "";
      return { events: [{ type: "message_streamed", data: { delta: text, kind: "thinking", ...withId } }] };
    }
    return { events: [] };
  }

  function assistant(raw: JsonObject): ParsedLine {
    const message = obj(raw, "message");
    const id = str(message, "id");
    const withId = id !== null ? { message_id: id } : {};
    const events: ProviderEvent[] = [];
    if (str(message, "model") === "<synthetic>") {
      // The CLI's own stand-in text (e.g. "API Error: …"); the `result` line reports the error itself.
      const text = textOf(message?.["content"]);
      return {
        events: [{ type: "notice", hidden: true, data: { level: "info", code: "synthetic_message", message: text } }],
      };
    }
    for (const block of arr(message, "content")) {
      if (!isObject(block)) continue;
      const t = str(block, "type");
      if (t === "text") {
        events.push({
          type: "message_received",
          data: { content: str(block, "text") ?? "", role: "assistant", ...withId },
        });
      } else if (t === "thinking") {
        const content = str(block, "thinking") ?? "";
        events.push({ type: "message_received", data: { content, role: "assistant", kind: "thinking", ...withId } });
      } else if (t === "tool_use") {
        const toolId = str(block, "id") ?? `tool-${toolNames.size + 1}`;
        const name = str(block, "name") ?? "unknown";
        toolNames.set(toolId, name);
        const input = obj(block, "input") ?? {};
        events.push({ type: "tool_call_started", data: { tool_call_id: toolId, tool_name: name, tool_input: input } });
      }
    }
    events.push(...assistantUsage(message));
    return { events };
  }

  function user(raw: JsonObject): ParsedLine {
    const message = obj(raw, "message");
    const content = message?.["content"];
    const events: ProviderEvent[] = [];
    const meta = raw["tool_use_result"];
    const blocks = typeof content === "string"
      ? [{ type: "text", text: content }]
      : Array.isArray(content)
      ? content
      : [];
    for (const block of blocks) {
      if (!isObject(block)) continue;
      const t = str(block, "type");
      if (t === "tool_result") {
        const id = str(block, "tool_use_id") ?? "";
        const name = toolNames.get(id) ?? "unknown";
        const output = textOf(block["content"]);
        const resultMeta = isObject(meta) ? { result_meta: meta } : {};
        if (block["is_error"] === true) {
          events.push({
            type: "tool_call_failed",
            data: { tool_call_id: id, tool_name: name, tool_output: output, is_error: true, ...resultMeta },
          });
        } else {
          events.push({
            type: "tool_call_completed",
            data: { tool_call_id: id, tool_name: name, tool_output: output, is_error: false, ...resultMeta },
          });
        }
      } else if (t === "text") {
        const text = str(block, "text") ?? "";
        if (text.startsWith("[Request interrupted")) {
          events.push({ type: "notice", hidden: true, data: { level: "info", code: "interrupted", message: text } });
        }
      }
    }
    return { events };
  }

  function result(raw: JsonObject): ParsedLine {
    const events: ProviderEvent[] = [];
    const usage = opts.usage === "result" ? usageFrom(obj(raw, "usage"), cost(raw, "total_cost_usd")) : null;
    if (usage !== null) events.push({ type: "token_usage_updated", data: usage });
    const subtype = str(raw, "subtype") ?? "";
    const isError = raw["is_error"] === true;
    const terminalReason = str(raw, "terminal_reason") ?? "";
    const interrupted = ctx.interruptReason();
    const sid = str(raw, "session_id");
    if (interrupted !== null && terminalReason.startsWith("aborted")) {
      events.push({ type: "run_cancelled", data: { reason: interrupted } });
    } else if (!isError && subtype === "success") {
      const data: ProviderEvent & { type: "run_completed" } = {
        type: "run_completed",
        data: { stop_reason: str(raw, "stop_reason") ?? (terminalReason || "end_turn") },
      };
      const duration = num(raw, "duration_ms");
      const turns = num(raw, "num_turns");
      if (duration !== null) data.data.duration_ms = duration;
      if (turns !== null) data.data.num_turns = turns;
      if (usage !== null) data.data.token_usage = usage;
      events.push(data);
    } else {
      const resultText = str(raw, "result");
      const errors = arr(raw, "errors").map((e) => textOf(e)).filter((e) => e !== "");
      const message = resultText || errors.join("; ") || textOf(raw["error"]) ||
        `${opts.provider} ended with ${subtype || "an error"}`;
      const status = num(raw, "api_error_status") ?? (isError ? statusInMessage(message) : null);
      const code = status !== null ? `http_${status}` : subtype || "error";
      const pe: ProviderErrorInfo = { provider: opts.provider, kind: code, message };
      if (status !== null) pe.status = status;
      if (sid !== null) pe.session_id = sid;
      events.push(...failureEvents(code, message, pe));
    }
    return sid !== null ? { events, sessionId: sid } : { events };
  }

  return {
    json(raw: JsonObject): ParsedLine {
      switch (str(raw, "type")) {
        case "system":
          return system(raw);
        case "stream_event":
          return streamEvent(raw);
        case "assistant":
          return assistant(raw);
        case "user":
          return user(raw);
        case "result":
          return result(raw);
        default:
          return unknownLine(str(raw, "type") ?? "untyped line");
      }
    },
  };
}
