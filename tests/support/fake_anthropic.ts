/**
 * A loopback fake of the Anthropic Messages API for driving the real `claude` CLI offline (docs/reference/providers.md §7.5).
 *
 * In-process: `await using server = await startFakeAnthropic({logPath})`. Standalone:
 * `deno run --allow-net=127.0.0.1 --allow-write tests/support/fake_anthropic.ts --port-file F --log F`.
 * Turns are scripted by `[[e2e:…]]` directives in the latest user text (see fake_server_common.ts).
 */
import {
  chunks,
  type Directive,
  ErrorBudget,
  type FakeServer,
  type FakeServerOptions,
  jsonResponse,
  type LoggedRequest,
  parseEditArg,
  parseErrorArg,
  parseSlowArg,
  parseWriteArg,
  runStandalone,
  scriptOf,
  type SseEvent,
  sseResponse,
  startFakeServer,
} from "./fake_server_common.ts";

/** The closing text of a turn that answers a tool result. */
export const ANTHROPIC_CLOSING_TEXT = "Done: the tool finished.";
/** The reply to a prompt without directives. */
export const ANTHROPIC_DEFAULT_TEXT = "Hello from the fake Anthropic server.";

interface Block {
  type: string;
  text?: string;
  [k: string]: unknown;
}
interface Message {
  role: string;
  content: string | Block[];
}

/** The API error type each HTTP status carries in the Messages API error documents. */
export const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The `{"type":"error","error":{…}}` body for an HTTP status. */
export function anthropicErrorBody(status: number): { type: "error"; error: { type: string; message: string } } {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: `fake ${type} (HTTP ${status})` } };
}

function blocksOf(m: Message): Block[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}

/** Text of a message's text blocks, joined with newlines. */
export function anthropicMessageText(m: Message): string {
  return blocksOf(m).filter((b) => b.type === "text").map((b) => b.text ?? "").join("\n");
}

/**
 * The latest user message that carries no tool result — or that carries a directive next to one (input written into
 * a running turn is merged with the tool's result) — and how many assistant turns followed it.
 */
export function anthropicAnchor(messages: Message[]): { anchor: Message | null; index: number; step: number } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m || m.role !== "user") continue;
    const blocks = blocksOf(m);
    const directive = blocks.some((b) => b.type === "text" && (b.text ?? "").includes("[[e2e:"));
    if (blocks.some((b) => b.type === "tool_result") && !directive) continue;
    const step = messages.slice(i + 1).filter((x) => x.role === "assistant").length;
    return { anchor: m, index: i, step };
  }
  return { anchor: null, index: -1, step: 0 };
}

/** The working directory claude announces in its system prompt or first user message, if any. */
export function anthropicCwd(body: Record<string, unknown>): string | null {
  const texts: string[] = [];
  const sys = body.system;
  if (typeof sys === "string") texts.push(sys);
  else if (Array.isArray(sys)) { for (const b of sys as Block[]) texts.push(b.text ?? ""); }
  for (const m of (body.messages as Message[] | undefined) ?? []) texts.push(anthropicMessageText(m));
  for (const t of texts) {
    const m = /(?:Primary working directory|Working directory|cwd):\s*(\/\S+)/i.exec(t);
    if (m?.[1]) return m[1];
  }
  return null;
}

function absolute(path: string, cwd: string | null): string {
  if (path.startsWith("/") || !cwd) return path;
  return `${cwd.replace(/\/$/, "")}/${path}`;
}

let counter = 0;
function newId(prefix: string): string {
  counter++;
  return `${prefix}_e2e${Date.now().toString(36)}${counter.toString(36).padStart(4, "0")}`;
}

type TurnBlock =
  | { type: "text"; text: string; slowSeconds?: number }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> };

/** The blocks of one assistant turn given the script and the step within it. */
function planTurn(turn: Directive | null, thinking: boolean, step: number, cwd: string | null): TurnBlock[] {
  const blocks: TurnBlock[] = [];
  if (thinking && step === 0) {
    blocks.push({ type: "thinking", thinking: "Let me think about this request step by step." });
  }
  const closing: TurnBlock = { type: "text", text: ANTHROPIC_CLOSING_TEXT };
  if (!turn) {
    blocks.push(step === 0 ? { type: "text", text: ANTHROPIC_DEFAULT_TEXT } : closing);
    return blocks;
  }
  switch (turn.kind) {
    case "text":
      blocks.push(step === 0 ? { type: "text", text: turn.arg || ANTHROPIC_DEFAULT_TEXT } : closing);
      break;
    case "slow": {
      const seconds = parseSlowArg(turn.arg);
      blocks.push(
        step === 0 ? { type: "text", text: "Working slowly on it. ".repeat(40), slowSeconds: seconds } : closing,
      );
      break;
    }
    case "write": {
      const { path, content } = parseWriteArg(turn.arg);
      if (step === 0) {
        blocks.push({ type: "text", text: `Writing ${path}.` });
        blocks.push({ type: "tool_use", name: "Write", input: { file_path: absolute(path, cwd), content } });
      } else blocks.push(closing);
      break;
    }
    case "edit": {
      const { path, oldText, newText } = parseEditArg(turn.arg);
      const file_path = absolute(path, cwd);
      // claude refuses an Edit of a file it has not Read in this session.
      if (step === 0) blocks.push({ type: "tool_use", name: "Read", input: { file_path } });
      else if (step === 1) {
        blocks.push({
          type: "tool_use",
          name: "Edit",
          input: { file_path, old_string: oldText, new_string: newText, replace_all: false },
        });
      } else blocks.push(closing);
      break;
    }
    case "bash":
      if (step === 0) {
        blocks.push({ type: "tool_use", name: "Bash", input: { command: turn.arg, description: "Run a command" } });
      } else blocks.push(closing);
      break;
    default:
      blocks.push(closing);
  }
  return blocks;
}

/**
 * The JSON text of a tool input in a few `partial_json` pieces, split only between members so that no value (a path
 * in particular) is ever cut — recorded captures can then rewrite scratch paths with a plain string replace.
 */
export function jsonChunks(input: Record<string, unknown>): string[] {
  const members = Object.entries(input).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  if (members.length === 0) return ["{}"];
  return members.map((m, i) => `${i === 0 ? "{" : ","}${m}${i === members.length - 1 ? "}" : ""}`);
}

/** SSE events of one assistant message made of `blocks`. */
function streamTurn(model: string, blocks: TurnBlock[], tickMs: number): SseEvent[] {
  const id = newId("msg");
  const events: SseEvent[] = [];
  const hasTool = blocks.some((b) => b.type === "tool_use");
  events.push({
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 120, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    },
  });
  events.push({ event: "ping", data: { type: "ping" } });
  let outputTokens = 0;
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      });
      const parts = b.slowSeconds ? chunks(b.text, Math.max(1, Math.round((b.slowSeconds * 1000) / tickMs))) : chunks(
        b.text,
        3,
      );
      for (const part of parts) {
        const ev: SseEvent = {
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "text_delta", text: part } },
        };
        if (b.slowSeconds) ev.delayMs = tickMs;
        events.push(ev);
      }
      outputTokens += Math.ceil(b.text.length / 4);
    } else if (b.type === "thinking") {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } },
      });
      for (const part of chunks(b.thinking, 2)) {
        events.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: part } },
        });
      }
      events.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "signature_delta", signature: "fake-signature" } },
      });
      outputTokens += Math.ceil(b.thinking.length / 4);
    } else {
      events.push({
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: newId("toolu"), name: b.name, input: {} },
        },
      });
      for (const part of jsonChunks(b.input)) {
        events.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } },
        });
      }
      outputTokens += 20;
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: hasTool ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: Math.max(1, outputTokens) },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return events;
}

/** Start the fake Anthropic Messages server on 127.0.0.1:0. */
export function startFakeAnthropic(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const tickMs = opts.slowTickMs ?? 250;
  const budget = new ErrorBudget();
  return startFakeServer((req: LoggedRequest, signal) => {
    if (req.method !== "POST" || !req.path.startsWith("/v1/messages")) {
      if (req.method === "HEAD" || req.method === "GET") return new Response(null, { status: 200 });
      return jsonResponse(404, anthropicErrorBody(404));
    }
    if (req.path.startsWith("/v1/messages/count_tokens")) return jsonResponse(200, { input_tokens: 120 });
    const body = (req.body ?? {}) as Record<string, unknown>;
    const messages = (body.messages as Message[] | undefined) ?? [];
    const model = typeof body.model === "string" ? body.model : "claude-fake";
    const { anchor, step } = anthropicAnchor(messages);
    const script = scriptOf(anchor ? anthropicMessageText(anchor) : "");
    if (script.turn?.kind === "error" && step === 0) {
      const { status, times } = parseErrorArg(script.turn.arg);
      if (budget.take(script.turn, times)) return jsonResponse(status, anthropicErrorBody(status));
    }
    const turn = script.turn?.kind === "error" ? null : script.turn;
    const blocks = planTurn(turn, script.thinking, step, anthropicCwd(body));
    if (body.stream === false) {
      return jsonResponse(200, {
        id: newId("msg"),
        type: "message",
        role: "assistant",
        model,
        content: blocks.map((b) =>
          b.type === "tool_use" ? { type: "tool_use", id: newId("toolu"), name: b.name, input: b.input } : b.type ===
              "thinking"
            ? { type: "thinking", thinking: b.thinking, signature: "fake-signature" }
            : { type: "text", text: b.text }
        ),
        stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
        usage: { input_tokens: 120, output_tokens: 10 },
      });
    }
    return sseResponse(streamTurn(model, blocks, tickMs), signal);
  }, opts);
}

if (import.meta.main) await runStandalone(startFakeAnthropic, Deno.args);
