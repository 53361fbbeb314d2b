/** Parser for antigravity `agy -p … --output-format stream-json` lines (docs/reference/events-and-rendering.md §4.5, unverified). */
import type { ProviderErrorInfo, ProviderEvent, TokenUsage } from "../events/mod.ts";
import { firstNum, isObject, type JsonObject, obj, str, textOf } from "./_json.ts";
import type { LineParser, ParseContext, ParsedLine } from "./profile.ts";
import { failureEvents, unknownLine } from "./_events.ts";

function usageOf(u: JsonObject | null): TokenUsage | null {
  if (u === null) return null;
  const usage: TokenUsage = {
    input_tokens: firstNum(u, "input_tokens", "inputTokens", "prompt_tokens", "promptTokenCount") ?? 0,
    output_tokens: firstNum(u, "output_tokens", "outputTokens", "completion_tokens", "candidatesTokenCount") ?? 0,
  };
  const cached = firstNum(u, "cached_input_tokens", "cachedTokens", "cachedContentTokenCount");
  if (cached !== null) usage.cached_input_tokens = cached;
  const reasoning = firstNum(u, "reasoning_output_tokens", "thoughtsTokenCount", "reasoningTokens");
  if (reasoning !== null) usage.reasoning_output_tokens = reasoning;
  return usage;
}

/** Create a stateful antigravity parser for one stream. */
export function createAntigravityStreamParser(_ctx: ParseContext): LineParser {
  const started = new Map<string, string>();

  function withSession(events: ProviderEvent[], raw: JsonObject): ParsedLine {
    const sid = str(raw, "conversation_id");
    return sid !== null ? { events, sessionId: sid } : { events };
  }

  function stepUpdate(raw: JsonObject): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    const stepType = str(raw, "step_type") ?? "";
    const index = String(raw["step_index"] ?? "?");
    const state = str(raw, "state") ?? "";
    const delta = str(raw, "text_delta");
    if (stepType === "agent_response" && delta) {
      events.push({ type: "message_streamed", data: { delta, message_id: `step-${index}` } });
    } else if ((stepType === "thought" || stepType === "reasoning") && delta) {
      events.push({ type: "message_streamed", data: { delta, kind: "thinking", message_id: `step-${index}` } });
    } else if (stepType === "tool") {
      const name = str(raw, "tool_name") ?? "tool";
      const info = raw["tool_info"];
      const input = isObject(info) ? info : info === undefined || info === null ? {} : { info };
      if (!started.has(index) && (state === "ACTIVE" || state === "DONE")) {
        started.set(index, name);
        events.push({ type: "tool_call_started", data: { tool_call_id: index, tool_name: name, tool_input: input } });
      }
      if (state === "DONE") {
        const output = textOf(raw["tool_output"] ?? raw["output"] ?? raw["result"] ?? "");
        events.push({
          type: "tool_call_completed",
          data: { tool_call_id: index, tool_name: started.get(index) ?? name, tool_output: output, is_error: false },
        });
      }
    } else if (stepType === "context-compaction") {
      events.push({
        type: "notice",
        data: { level: "info", code: "context_compaction", message: "context compacted" },
      });
    }
    const usage = usageOf(obj(raw, "usage"));
    if (usage !== null) events.push({ type: "token_usage_updated", data: usage });
    return events;
  }

  function result(raw: JsonObject): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    const usage = usageOf(obj(raw, "usage"));
    if (usage !== null) events.push({ type: "token_usage_updated", data: usage });
    const status = str(raw, "status") ?? "UNKNOWN";
    if (status === "SUCCESS") {
      events.push({
        type: "run_completed",
        data: { stop_reason: "end_turn", ...(usage !== null ? { token_usage: usage } : {}) },
      });
      return events;
    }
    const err = raw["error"];
    const message = (isObject(err) ? str(err, "message") ?? textOf(err) : textOf(err)) ||
      `antigravity ended with ${status}`;
    const kind = (isObject(err) ? str(err, "status") ?? str(err, "code") : null) ?? status.toLowerCase();
    const pe: ProviderErrorInfo = { provider: "antigravity", kind, message };
    const sid = str(raw, "conversation_id");
    if (sid !== null) pe.session_id = sid;
    events.push(...failureEvents(kind, message, pe));
    return events;
  }

  return {
    json(raw: JsonObject): ParsedLine {
      switch (str(raw, "event") ?? str(raw, "type")) {
        case "init":
          return withSession(
            [{
              type: "run_started",
              data: { provider_session_id: str(raw, "conversation_id"), model: str(raw, "model") },
            }],
            raw,
          );
        case "step_update":
          return withSession(stepUpdate(raw), raw);
        case "result":
          return withSession(result(raw), raw);
        default:
          return unknownLine("unknown event");
      }
    },
  };
}
