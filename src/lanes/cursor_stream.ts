/** Parser for cursor `agent -p --output-format stream-json --stream-partial-output` lines (docs/reference/events-and-rendering.md §4.4, unverified). */
import type { ProviderErrorInfo, ProviderEvent, TokenUsage } from "../events/mod.ts";
import { count, isObject, type JsonObject, num, obj, str, textOf } from "./_json.ts";
import type { LineParser, ParseContext, ParsedLine } from "./profile.ts";
import { failureEvents, unknownLine } from "./_events.ts";

const FAILURE_KEYS = ["failure", "rejected", "error", "timeout", "permissionDenied"] as const;

function toolOf(raw: JsonObject): { name: string; body: JsonObject } {
  const tc = obj(raw, "tool_call") ?? {};
  for (const [key, value] of Object.entries(tc)) {
    if (key.endsWith("ToolCall") && isObject(value)) return { name: key.slice(0, -"ToolCall".length), body: value };
  }
  return { name: "unknown", body: {} };
}

/** Create a stateful cursor parser for one stream. */
export function createCursorStreamParser(ctx: ParseContext): LineParser {
  const seenDeltas = new Map<string, Set<string>>();
  const names = new Map<string, string>();

  function notice(level: "info" | "warning", code: string, message: string): ParsedLine {
    return { events: [{ type: "notice", data: { level, code, message } }] };
  }

  function toolCall(raw: JsonObject): ProviderEvent[] {
    const id = str(raw, "call_id") ?? "";
    const { name, body } = toolOf(raw);
    const subtype = str(raw, "subtype");
    if (subtype === "started") {
      names.set(id, name);
      return [{
        type: "tool_call_started",
        data: { tool_call_id: id, tool_name: name, tool_input: obj(body, "args") ?? {} },
      }];
    }
    if (subtype !== "completed") return [];
    const result = obj(body, "result") ?? {};
    const toolName = names.get(id) ?? name;
    const out: ProviderEvent[] = [];
    if (!names.has(id)) {
      out.push({
        type: "tool_call_started",
        data: { tool_call_id: id, tool_name: toolName, tool_input: obj(body, "args") ?? {} },
      });
    }
    const success = obj(result, "success");
    if (success !== null) {
      const exitCode = num(success, "exitCode");
      let output: string;
      let meta: Record<string, unknown> | null = null;
      if (name === "shell") {
        output = `${str(success, "stdout") ?? ""}${str(success, "stderr") ?? ""}`;
      } else if (name === "edit") {
        const { beforeFullFileContent: _b, afterFullFileContent: _a, ...rest } = success;
        meta = rest;
        output = str(success, "message") ?? `edited ${str(success, "path") ?? ""}`.trim();
      } else {
        output = str(success, "content") ?? textOf(success);
      }
      out.push({
        type: "tool_call_completed",
        data: {
          tool_call_id: id,
          tool_name: toolName,
          tool_output: output,
          is_error: false,
          ...(exitCode !== null ? { exit_code: exitCode } : {}),
          ...(meta !== null ? { result_meta: meta } : {}),
        },
      });
      return out;
    }
    const key = FAILURE_KEYS.find((k) => result[k] !== undefined) ?? "error";
    const detail = result[key];
    let output: string;
    if (name === "shell" && isObject(detail)) output = `${str(detail, "stdout") ?? ""}${str(detail, "stderr") ?? ""}`;
    else if (isObject(detail)) output = str(detail, "message") ?? str(detail, "error") ?? textOf(detail);
    else output = textOf(detail);
    const exitCode = isObject(detail) ? num(detail, "exitCode") : null;
    out.push({
      type: "tool_call_failed",
      data: {
        tool_call_id: id,
        tool_name: toolName,
        tool_output: output || key,
        is_error: true,
        ...(exitCode !== null ? { exit_code: exitCode } : {}),
        result_meta: { outcome: key },
      },
    });
    return out;
  }

  function result(raw: JsonObject): ParsedLine {
    const events: ProviderEvent[] = [];
    const u = obj(raw, "usage");
    let usage: TokenUsage | null = null;
    if (u !== null) {
      usage = { input_tokens: count(u, "inputTokens") ?? 0, output_tokens: count(u, "outputTokens") ?? 0 };
      const cached = count(u, "cacheReadTokens");
      if (cached !== null) usage.cached_input_tokens = cached;
      events.push({ type: "token_usage_updated", data: usage });
    }
    const sid = str(raw, "session_id");
    if (str(raw, "subtype") === "success" && raw["is_error"] !== true) {
      const duration = num(raw, "duration_ms");
      events.push({
        type: "run_completed",
        data: {
          stop_reason: "end_turn",
          ...(duration !== null ? { duration_ms: duration } : {}),
          ...(usage !== null ? { token_usage: usage } : {}),
        },
      });
    } else {
      const message = textOf(raw["result"] ?? raw["error"]) || "cursor reported an error";
      const code = str(raw, "subtype") ?? "error";
      const pe: ProviderErrorInfo = { provider: "cursor", kind: code, message };
      if (sid !== null) pe.session_id = sid;
      events.push(...failureEvents(code, message, pe));
    }
    return sid !== null ? { events, sessionId: sid } : { events };
  }

  return {
    json(raw: JsonObject): ParsedLine {
      const type = str(raw, "type") ?? "";
      const subtype = str(raw, "subtype") ?? "";
      switch (type) {
        case "system": {
          if (subtype === "init") {
            const sid = str(raw, "session_id");
            const ev: ProviderEvent = {
              type: "run_started",
              data: { provider_session_id: sid, model: str(raw, "model") },
            };
            return sid !== null ? { events: [ev], sessionId: sid } : { events: [ev] };
          }
          return notice("info", subtype || "system", textOf(raw["message"] ?? raw["text"] ?? subtype));
        }
        case "user": {
          const text = textOf(obj(raw, "message")?.["content"]);
          if (text === ctx.spec.prompt || text === "") return { events: [] };
          return { events: [{ type: "message_sent", hidden: true, data: { content: text, role: "user" } }] };
        }
        case "thinking":
          if (subtype !== "delta") return { events: [] };
          return { events: [{ type: "message_streamed", data: { delta: str(raw, "text") ?? "", kind: "thinking" } }] };
        case "assistant": {
          const text = textOf(obj(raw, "message")?.["content"]);
          const callId = str(raw, "model_call_id");
          const withId = callId !== null ? { message_id: callId } : {};
          if (raw["timestamp_ms"] === undefined) {
            return { events: [{ type: "message_received", data: { content: text, role: "assistant", ...withId } }] };
          }
          const key = callId ?? "";
          const seen = seenDeltas.get(key) ?? new Set<string>();
          seenDeltas.set(key, seen);
          if (seen.has(text)) return { events: [] };
          seen.add(text);
          return { events: [{ type: "message_streamed", data: { delta: text, ...withId } }] };
        }
        case "tool_call":
          return { events: toolCall(raw) };
        case "result":
          return result(raw);
        case "retry":
        case "connection":
          return notice("warning", type, textOf(raw["message"] ?? subtype) || type);
        case "interaction_query":
          return notice("info", type, textOf(raw["message"] ?? raw["query"] ?? subtype) || type);
        default:
          return unknownLine(type || "untyped line");
      }
    },
  };
}
