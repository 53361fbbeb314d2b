/** Parser for `codex exec --json` lines (docs/reference/events-and-rendering.md §4.2). */
import type { ProviderErrorInfo, ProviderEvent, TokenUsage } from "../events/mod.ts";
import { arr, count, isObject, type JsonObject, num, obj, parseJsonObject, str, textOf } from "./_json.ts";
import { statusInMessage } from "./hints.ts";
import type { LineParser, ParseContext, ParsedLine } from "./profile.ts";
import { unknownLine } from "./_events.ts";

/** A codex error message with any embedded JSON error document unwrapped. */
export interface CodexErrorInfo {
  message: string;
  code: string | null;
  status: number | null;
}

/**
 * The HTTP status an API error type stands for, when the error document carries no status of its own (codex puts
 * only the API's error JSON into its message: the status line is gone). Both APIs' vocabularies.
 */
const STATUS_OF_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  permission_denied: 403,
  not_found_error: 404,
  model_not_found: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

/**
 * Unwrap a codex error message: a message that is itself JSON (or ends in a JSON document, as in
 * `unexpected status 400 Bad Request: {"error": …}`) becomes its `error.message`, keeping `code`/`type` and status.
 */
export function unwrapCodexError(message: string): CodexErrorInfo {
  const status = statusInMessage(message);
  const brace = message.indexOf("{");
  const doc = brace >= 0 ? parseJsonObject(message.slice(brace)) : null;
  const err = obj(doc, "error") ?? (doc !== null && str(doc, "message") !== null ? doc : null);
  if (err !== null) {
    const inner = str(err, "message");
    const code = str(err, "code") ?? str(err, "type");
    const typed = STATUS_OF_ERROR_TYPE[str(err, "code") ?? ""] ?? STATUS_OF_ERROR_TYPE[str(err, "type") ?? ""] ?? null;
    return {
      message: inner ?? message,
      code,
      status: num(err, "status") ?? num(doc, "status") ?? status ?? typed,
    };
  }
  return { message, code: null, status };
}

function toolInput(item: JsonObject): { name: string; input: Record<string, unknown> } | null {
  switch (str(item, "type")) {
    case "command_execution":
      return { name: "shell", input: { command: item["command"] ?? "" } };
    case "file_change":
      return {
        name: "file_change",
        input: {
          changes: arr(item, "changes").filter(isObject).map((c) => ({
            path: str(c, "path") ?? "",
            kind: str(c, "kind") ?? "update",
          })),
        },
      };
    case "mcp_tool_call": {
      const args = item["arguments"];
      const input = isObject(args)
        ? args
        : typeof args === "string"
        ? (parseJsonObject(args) ?? { arguments: args })
        : {};
      return { name: `mcp:${str(item, "server") ?? "unknown"}.${str(item, "tool") ?? "unknown"}`, input };
    }
    case "web_search":
      return { name: "web_search", input: { query: str(item, "query") ?? "" } };
    default:
      return null;
  }
}

function toolResult(item: JsonObject): { output: string; failed: boolean; exitCode: number | null } {
  const status = str(item, "status") ?? "completed";
  switch (str(item, "type")) {
    case "command_execution": {
      const exitCode = num(item, "exit_code");
      const failed = status === "failed" || status === "declined" || (exitCode !== null && exitCode !== 0);
      return { output: str(item, "aggregated_output") ?? "", failed, exitCode };
    }
    case "file_change": {
      const lines = arr(item, "changes").filter(isObject).map((c) =>
        `${str(c, "kind") ?? "update"} ${str(c, "path") ?? ""}`
      );
      return { output: lines.join("\n"), failed: status !== "completed", exitCode: null };
    }
    case "mcp_tool_call": {
      const error = item["error"];
      const result = item["result"];
      const failed = status === "failed" || (error !== null && error !== undefined);
      const output = failed
        ? (isObject(error) ? str(error, "message") ?? textOf(error) : textOf(error))
        : textOf(isObject(result) && Array.isArray(result["content"]) ? result["content"] : result);
      return { output, failed, exitCode: null };
    }
    default:
      return { output: "", failed: status === "failed", exitCode: null };
  }
}

/** Create a stateful codex parser for one stream. */
export function createCodexStreamParser(ctx: ParseContext): LineParser {
  let turn = 0;
  let errorSeen = false;
  const started = new Map<string, string>();

  function errorEvents(raw: string, withRunFailed: boolean, emitError: boolean): ProviderEvent[] {
    const info = unwrapCodexError(raw);
    const code = info.code ?? (info.status !== null ? `http_${info.status}` : "codex_error");
    const pe: ProviderErrorInfo = { provider: "codex", kind: code, message: info.message };
    if (info.status !== null) pe.status = info.status;
    const out: ProviderEvent[] = [];
    if (emitError) {
      out.push({
        type: "error_occurred",
        data: { error_code: code, error_message: info.message, severity: "error", provider_error: pe },
      });
    }
    if (withRunFailed) {
      out.push({ type: "run_failed", data: { error_code: code, error_message: info.message, provider_error: pe } });
    }
    return out;
  }

  function item(kind: string, raw: JsonObject): ProviderEvent[] {
    const it = obj(raw, "item");
    if (it === null) return [];
    const type = str(it, "type") ?? "";
    const id = `${Math.max(turn, 1)}:${str(it, "id") ?? "?"}`;
    if (type === "todo_list" || type === "plan") {
      return [{
        type: "notice",
        hidden: true,
        data: { level: "info", code: "plan", message: textOf(it["items"] ?? it["text"]) },
      }];
    }
    const tool = toolInput(it);
    if (tool !== null) {
      const out: ProviderEvent[] = [];
      if ((kind === "item.started" || kind === "item.completed") && !started.has(id)) {
        started.set(id, tool.name);
        out.push({
          type: "tool_call_started",
          data: { tool_call_id: id, tool_name: tool.name, tool_input: tool.input },
        });
      }
      if (kind === "item.completed") {
        const r = toolResult(it);
        const base = { tool_call_id: id, tool_name: started.get(id) ?? tool.name, tool_output: r.output };
        const exit = r.exitCode !== null ? { exit_code: r.exitCode } : {};
        out.push(
          r.failed
            ? { type: "tool_call_failed", data: { ...base, is_error: true, ...exit } }
            : { type: "tool_call_completed", data: { ...base, is_error: false, ...exit } },
        );
      }
      return out;
    }
    if (kind !== "item.completed") return [];
    if (type === "agent_message") {
      return [{ type: "message_received", data: { content: str(it, "text") ?? "", role: "assistant" } }];
    }
    if (type === "reasoning") {
      return [{
        type: "message_received",
        data: { content: str(it, "text") ?? "", role: "assistant", kind: "thinking" },
      }];
    }
    if (type === "error") {
      return [{
        type: "notice",
        data: { level: "warning", code: "provider_warning", message: str(it, "message") ?? "" },
      }];
    }
    return [{
      type: "notice",
      hidden: true,
      data: { level: "info", code: `item_${type || "unknown"}`, message: type },
    }];
  }

  return {
    json(raw: JsonObject): ParsedLine {
      const type = str(raw, "type") ?? "";
      switch (type) {
        case "thread.started": {
          const tid = str(raw, "thread_id");
          const o = ctx.spec.options;
          const ev: ProviderEvent = {
            type: "run_started",
            data: { provider_session_id: tid, model: o.model || null },
          };
          if (o.reasoning_effort !== null) ev.data.reasoning_effort = o.reasoning_effort;
          return tid !== null ? { events: [ev], sessionId: tid } : { events: [ev] };
        }
        case "turn.started":
          turn++;
          return {
            events: [{
              type: "notice",
              hidden: true,
              data: { level: "info", code: "turn_started", message: `turn ${turn}` },
            }],
          };
        case "item.started":
        case "item.updated":
        case "item.completed":
          return { events: item(type, raw) };
        case "user_message":
          // Only the app-server transport: a steer's text entering the thread (src/lanes/codex_app_server.ts).
          return { events: [{ type: "message_sent", data: { content: str(raw, "text") ?? "", role: "user" } }] };
        case "item.plan.delta":
          return {
            events: [{
              type: "notice",
              hidden: true,
              data: { level: "info", code: "plan", message: textOf(raw["delta"]) },
            }],
          };
        case "turn.completed": {
          const u = obj(raw, "usage");
          const usage: TokenUsage = {
            input_tokens: count(u, "input_tokens") ?? 0,
            output_tokens: count(u, "output_tokens") ?? 0,
          };
          const cached = count(u, "cached_input_tokens");
          const reasoning = count(u, "reasoning_output_tokens");
          if (cached !== null) usage.cached_input_tokens = cached;
          if (reasoning !== null) usage.reasoning_output_tokens = reasoning;
          return {
            events: [
              { type: "token_usage_updated", data: usage },
              { type: "run_completed", data: { stop_reason: "end_turn", token_usage: usage } },
            ],
          };
        }
        case "error": {
          const message = str(raw, "message") ?? textOf(raw["error"]);
          if (/^Reconnecting\.\.\./.test(message)) {
            return { events: [{ type: "notice", data: { level: "warning", code: "reconnecting", message } }] };
          }
          const events = errorEvents(message, false, true);
          errorSeen = true;
          return { events };
        }
        case "turn.failed": {
          const message = str(obj(raw, "error"), "message") ?? "turn failed";
          const events = errorEvents(message, true, !errorSeen);
          errorSeen = true;
          return { events };
        }
        default:
          return unknownLine(type || "untyped line");
      }
    },
  };
}
