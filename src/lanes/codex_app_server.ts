/**
 * The codex `app-server` protocol (JSON-RPC over stdio, docs/reference/providers.md §3.1): the requests the lane
 * sends (`initialize` → `initialized` → `thread/start` or `thread/resume` → `turn/start`, then `turn/steer` and
 * `turn/interrupt`), and the translation of the server's v2 notifications into the very lines `codex exec --json`
 * prints for the same turn, so one parser (src/lanes/codex_stream.ts) yields the same canonical events whichever
 * transport ran the turn. Pure: no process here.
 */
import { arr, count, isObject, type JsonObject, num, obj, str } from "./_json.ts";
import type { SessionSpec } from "./types.ts";

/** JSON-RPC error code the app-server answers a `turn/steer` with when the turn id is wrong or no turn is active. */
export const APP_SERVER_INVALID_REQUEST = -32600;
/** JSON-RPC error code we answer a server request we do not serve with. */
export const METHOD_NOT_FOUND = -32601;

/** `permission_mode` → the app-server's `sandbox` value (the exec lane's `-s` values). */
const SANDBOX: Readonly<Record<string, string>> = {
  default: "read-only",
  auto: "workspace-write",
  bypass: "danger-full-access",
  plan: "read-only",
};

/**
 * Params of `thread/start` (fresh session) or `thread/resume` (resumeSessionId set) for a session spec. The `-c`
 * overrides of the exec lane (reasoning effort, login shell, writable roots) go on the `app-server` command line.
 */
export function threadParams(spec: SessionSpec): JsonObject {
  const o = spec.options;
  const params: JsonObject = { cwd: spec.cwd, approvalPolicy: "never" };
  if (o.model) params["model"] = o.model;
  if (o.permission_mode !== null) params["sandbox"] = SANDBOX[o.permission_mode] ?? "read-only";
  if (spec.resumeSessionId !== null) params["threadId"] = spec.resumeSessionId;
  return params;
}

/** A text input of `turn/start` and `turn/steer`. */
export function textInput(text: string): JsonObject[] {
  return [{ type: "text", text, text_elements: [] }];
}

/** One JSON-RPC line (without the newline). */
export function rpcLine(msg: JsonObject): string {
  return JSON.stringify(msg);
}

/** What one message from the app-server is. */
export type ServerMessage =
  | { kind: "response"; id: number; result: JsonObject }
  | { kind: "error"; id: number; code: number; message: string }
  | { kind: "request"; id: number | string; method: string; params: JsonObject }
  | { kind: "notification"; method: string; params: JsonObject }
  | { kind: "invalid"; why: string };

/** Classify a decoded JSON-RPC object. Pure. */
export function classify(raw: JsonObject): ServerMessage {
  const method = str(raw, "method");
  const id = raw["id"];
  const params = obj(raw, "params") ?? {};
  if (method !== null) {
    if (typeof id === "number" || typeof id === "string") return { kind: "request", id, method, params };
    return { kind: "notification", method, params };
  }
  if (typeof id !== "number") return { kind: "invalid", why: "a JSON-RPC response without a numeric id" };
  const err = obj(raw, "error");
  if (err !== null) {
    return { kind: "error", id, code: num(err, "code") ?? 0, message: str(err, "message") ?? "JSON-RPC error" };
  }
  const result = obj(raw, "result");
  if (result === null) return { kind: "invalid", why: `response ${id} has neither result nor error` };
  return { kind: "response", id, result };
}

const STATUS: Readonly<Record<string, string>> = {
  inProgress: "in_progress",
  completed: "completed",
  failed: "failed",
  declined: "declined",
};

function status(item: JsonObject): string {
  const s = str(item, "status") ?? "completed";
  return STATUS[s] ?? s;
}

/** A v2 `ThreadItem` as the exec item of the same kind, without its id; null for items exec does not print. */
export function execItem(item: JsonObject): JsonObject | null {
  switch (str(item, "type")) {
    case "agentMessage":
      return { type: "agent_message", text: str(item, "text") ?? "" };
    case "reasoning": {
      const summary = arr(item, "summary").filter((s): s is string => typeof s === "string");
      return { type: "reasoning", text: summary.join("\n\n") };
    }
    case "commandExecution":
      return {
        type: "command_execution",
        command: str(item, "command") ?? "",
        aggregated_output: str(item, "aggregatedOutput") ?? "",
        exit_code: num(item, "exitCode"),
        status: status(item),
      };
    case "fileChange":
      return {
        type: "file_change",
        changes: arr(item, "changes").filter(isObject).map((c) => ({
          path: str(c, "path") ?? "",
          kind: str(obj(c, "kind"), "type") ?? str(c, "kind") ?? "update",
        })),
        status: status(item),
      };
    case "mcpToolCall":
      return {
        type: "mcp_tool_call",
        server: str(item, "server") ?? "unknown",
        tool: str(item, "tool") ?? "unknown",
        arguments: item["arguments"] ?? null,
        result: item["result"] ?? null,
        error: item["error"] ?? null,
        status: status(item),
      };
    case "webSearch":
      return { type: "web_search", query: str(item, "query") ?? "" };
    default:
      return null;
  }
}

/**
 * Translates one app-server connection's notifications into exec lines. Stateful: exec numbers its items `item_0`,
 * `item_1`, … in the order it first reports them, and reports the thread's cumulative token usage at the end of
 * each turn.
 */
export class ExecLineTranslator {
  #ids = new Map<string, string>();
  #next = 0;
  #usage: JsonObject | null = null;
  #threadAnnounced = false;
  #userMessages = 0;
  /** Tool items started and not completed, by exec id (an interrupted turn reports them failed). */
  #open = new Map<string, JsonObject>();

  /** The `thread.started` line for a `thread/start` or `thread/resume` response (once per connection). */
  threadStarted(threadId: string): JsonObject[] {
    if (this.#threadAnnounced) return [];
    this.#threadAnnounced = true;
    return [{ type: "thread.started", thread_id: threadId }];
  }

  #id(raw: string): string {
    let id = this.#ids.get(raw);
    if (id === undefined) {
      id = `item_${this.#next++}`;
      this.#ids.set(raw, id);
    }
    return id;
  }

  #item(kind: "item.started" | "item.completed", params: JsonObject): JsonObject[] {
    const item = obj(params, "item");
    if (item === null) return [];
    if (str(item, "type") === "userMessage") {
      // The first is the prompt (the session reports it itself); later ones are steers entering the thread.
      if (kind !== "item.completed" || this.#userMessages++ === 0) return [];
      const text = arr(item, "content").filter(isObject).map((c) => str(c, "text") ?? "").join("");
      return [{ type: "user_message", text }];
    }
    const mapped = execItem(item);
    if (mapped === null) return [];
    // Exec prints only tool items when they start; messages and reasoning when they complete.
    const isTool = ["command_execution", "file_change", "mcp_tool_call", "web_search"].includes(String(mapped.type));
    if (kind === "item.started" && !isTool) return [];
    const id = this.#id(str(item, "id") ?? `anon_${this.#next}`);
    if (isTool && kind === "item.started") this.#open.set(id, mapped);
    else this.#open.delete(id);
    return [{ type: kind, item: { id, ...mapped } }];
  }

  /** The turn's closing line (`turn.completed` with usage, or `turn.failed`); none for an interrupted turn. */
  #turnEnd(params: JsonObject): JsonObject[] {
    const turn = obj(params, "turn");
    const st = str(turn, "status");
    if (st === "completed") {
      const t = this.#usage ?? {};
      return [{
        type: "turn.completed",
        usage: {
          input_tokens: count(t, "inputTokens") ?? 0,
          cached_input_tokens: count(t, "cachedInputTokens") ?? 0,
          cache_write_input_tokens: count(t, "cacheWriteInputTokens") ?? 0,
          output_tokens: count(t, "outputTokens") ?? 0,
          reasoning_output_tokens: count(t, "reasoningOutputTokens") ?? 0,
        },
      }];
    }
    if (st === "failed") {
      return [{ type: "turn.failed", error: { message: str(obj(turn, "error"), "message") ?? "turn failed" } }];
    }
    // Interrupted: the server never completes the tools it stopped; the record says they failed.
    const stopped = [...this.#open].map(([id, it]) => ({
      type: "item.completed",
      item: { ...it, id, status: "failed" },
    }));
    this.#open.clear();
    return stopped;
  }

  /** Exec lines for one notification; most notifications (deltas, status, rate limits) have none. */
  notification(method: string, params: JsonObject): JsonObject[] {
    switch (method) {
      case "turn/started":
        return [{ type: "turn.started" }];
      case "item/started":
        return this.#item("item.started", params);
      case "item/completed":
        return this.#item("item.completed", params);
      case "thread/tokenUsage/updated":
        this.#usage = obj(obj(params, "tokenUsage"), "total");
        return [];
      case "turn/completed":
        return this.#turnEnd(params);
      case "error": {
        const message = str(obj(params, "error"), "message") ?? "app-server error";
        // Exec prints a retry as `Reconnecting... <message>`; the parser keeps those as warnings.
        if (params["willRetry"] === true) return [{ type: "error", message: `Reconnecting... ${message}` }];
        return [{ type: "error", message }];
      }
      default:
        return [];
    }
  }
}
