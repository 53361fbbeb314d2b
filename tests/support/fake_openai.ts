/**
 * A loopback fake of the OpenAI Responses API for driving the real `codex` CLI offline (docs/reference/providers.md §7.6).
 *
 * In-process: `await using server = await startFakeOpenAI({logPath})`. Standalone:
 * `deno run --allow-net=127.0.0.1 --allow-write tests/support/fake_openai.ts --port-file F --log F`.
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
export const OPENAI_CLOSING_TEXT = "Done: the tool finished.";
/** The reply to a prompt without directives. */
export const OPENAI_DEFAULT_TEXT = "Hello from the fake OpenAI server.";

/** One `input` item of a Responses request (only the fields the fake reads). */
export interface InputItem {
  type?: string;
  role?: string;
  content?: string | { type: string; text?: string }[];
  [k: string]: unknown;
}

const ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: null },
};

/** The `{"error":{message,type,code,param}}` body for an HTTP status. */
export function openaiErrorBody(status: number): {
  error: { message: string; type: string; code: string | null; param: null };
} {
  const e = ERRORS[status] ?? { type: status >= 500 ? "server_error" : "invalid_request_error", code: null };
  return { error: { message: `fake ${e.type} (HTTP ${status})`, type: e.type, code: e.code, param: null } };
}

/** Text of an input item's text parts. */
export function openaiItemText(item: InputItem): string {
  if (typeof item.content === "string") return item.content;
  return (item.content ?? []).map((c) => c.text ?? "").join("\n");
}

const WRAPPERS = /^\s*<(environment_context|turn_aborted|user_instructions|user_shell_command)>/;

function isUserMessage(item: InputItem): boolean {
  return item.role === "user" && (item.type === undefined || item.type === "message");
}

/** The latest real user message (context wrappers skipped) and how many tool outputs followed it. */
export function openaiAnchor(input: InputItem[]): { anchor: InputItem | null; step: number } {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (!item || !isUserMessage(item) || WRAPPERS.test(openaiItemText(item))) continue;
    const step = input.slice(i + 1).filter((x) =>
      x.type === "function_call_output" || x.type === "custom_tool_call_output"
    ).length;
    return { anchor: item, step };
  }
  return { anchor: null, step: 0 };
}

/** The cwd named by the `<environment_context>` message, if any. */
export function openaiCwd(input: InputItem[]): string | null {
  for (const item of input) {
    const m = /<cwd>([^<]+)<\/cwd>/.exec(openaiItemText(item));
    if (m?.[1]) return m[1];
  }
  return null;
}

let counter = 0;
function newId(prefix: string): string {
  counter++;
  return `${prefix}_e2e${Date.now().toString(36)}${counter.toString(36).padStart(4, "0")}`;
}

type OutItem =
  | { type: "message"; text: string; slowSeconds?: number }
  | { type: "reasoning"; text: string }
  | { type: "function_call"; name: string; arguments: string }
  | { type: "custom_tool_call"; name: string; input: string };

/** The apply_patch envelope that adds a file. */
export function addFilePatch(path: string, content: string): string {
  const lines = content.replace(/\n$/, "").split("\n").map((l) => `+${l}`);
  return ["*** Begin Patch", `*** Add File: ${path}`, ...lines, "*** End Patch", ""].join("\n");
}

/** The apply_patch envelope that replaces one line of a file. */
export function updateFilePatch(path: string, oldText: string, newText: string): string {
  return ["*** Begin Patch", `*** Update File: ${path}`, "@@", `-${oldText}`, `+${newText}`, "*** End Patch", ""]
    .join("\n");
}

function planTurn(turn: Directive | null, thinking: boolean, step: number): OutItem[] {
  const items: OutItem[] = [];
  if (thinking && step === 0) items.push({ type: "reasoning", text: "**Planning**\n\nLet me think this through." });
  const closing: OutItem = { type: "message", text: OPENAI_CLOSING_TEXT };
  if (step > 0 || !turn) {
    items.push(step > 0 ? closing : { type: "message", text: OPENAI_DEFAULT_TEXT });
    return items;
  }
  switch (turn.kind) {
    case "text":
      items.push({ type: "message", text: turn.arg || OPENAI_DEFAULT_TEXT });
      break;
    case "slow":
      items.push({ type: "message", text: "Working slowly on it. ".repeat(40), slowSeconds: parseSlowArg(turn.arg) });
      break;
    case "write": {
      const { path, content } = parseWriteArg(turn.arg);
      items.push({ type: "custom_tool_call", name: "apply_patch", input: addFilePatch(path, content) });
      break;
    }
    case "edit": {
      const { path, oldText, newText } = parseEditArg(turn.arg);
      items.push({ type: "custom_tool_call", name: "apply_patch", input: updateFilePatch(path, oldText, newText) });
      break;
    }
    case "bash":
      items.push({
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: turn.arg, yield_time_ms: 120_000 }),
      });
      break;
    default:
      items.push(closing);
  }
  return items;
}

function streamResponse(model: string, items: OutItem[], tickMs: number): SseEvent[] {
  const responseId = newId("resp");
  const events: SseEvent[] = [];
  let seq = 0;
  const push = (type: string, data: Record<string, unknown>, delayMs?: number) => {
    const ev: SseEvent = { event: type, data: { type, sequence_number: seq++, ...data } };
    if (delayMs) ev.delayMs = delayMs;
    events.push(ev);
  };
  const base = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
  push("response.created", { response: { ...base, status: "in_progress", output: [] } });
  push("response.in_progress", { response: { ...base, status: "in_progress", output: [] } });
  const done: Record<string, unknown>[] = [];
  items.forEach((it, output_index) => {
    if (it.type === "message") {
      const id = newId("msg");
      const item = { id, type: "message", role: "assistant", status: "in_progress", content: [] };
      push("response.output_item.added", { output_index, item });
      push("response.content_part.added", {
        item_id: id,
        output_index,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      const n = it.slowSeconds ? Math.max(1, Math.round((it.slowSeconds * 1000) / tickMs)) : 3;
      for (const delta of chunks(it.text, n)) {
        push(
          "response.output_text.delta",
          { item_id: id, output_index, content_index: 0, delta },
          it.slowSeconds ? tickMs : undefined,
        );
      }
      push("response.output_text.done", { item_id: id, output_index, content_index: 0, text: it.text });
      const final = {
        id,
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: it.text, annotations: [] }],
      };
      push("response.output_item.done", { output_index, item: final });
      done.push(final);
    } else if (it.type === "reasoning") {
      const id = newId("rs");
      push("response.output_item.added", { output_index, item: { id, type: "reasoning", summary: [] } });
      push("response.reasoning_summary_part.added", {
        item_id: id,
        output_index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of chunks(it.text, 2)) {
        push("response.reasoning_summary_text.delta", { item_id: id, output_index, summary_index: 0, delta });
      }
      push("response.reasoning_summary_text.done", { item_id: id, output_index, summary_index: 0, text: it.text });
      const final = {
        id,
        type: "reasoning",
        summary: [{ type: "summary_text", text: it.text }],
        encrypted_content: "fake-encrypted-reasoning",
      };
      push("response.output_item.done", { output_index, item: final });
      done.push(final);
    } else if (it.type === "function_call") {
      const id = newId("fc");
      const call_id = newId("call");
      push("response.output_item.added", {
        output_index,
        item: { id, type: "function_call", status: "in_progress", call_id, name: it.name, arguments: "" },
      });
      for (const delta of chunks(it.arguments, 3)) {
        push("response.function_call_arguments.delta", { item_id: id, output_index, delta });
      }
      push("response.function_call_arguments.done", { item_id: id, output_index, arguments: it.arguments });
      const final = { id, type: "function_call", status: "completed", call_id, name: it.name, arguments: it.arguments };
      push("response.output_item.done", { output_index, item: final });
      done.push(final);
    } else {
      const id = newId("ctc");
      const call_id = newId("call");
      push("response.output_item.added", {
        output_index,
        item: { id, type: "custom_tool_call", status: "in_progress", call_id, name: it.name, input: "" },
      });
      for (const delta of chunks(it.input, 3)) {
        push("response.custom_tool_call_input.delta", { item_id: id, output_index, delta });
      }
      push("response.custom_tool_call_input.done", { item_id: id, output_index, input: it.input });
      const final = { id, type: "custom_tool_call", status: "completed", call_id, name: it.name, input: it.input };
      push("response.output_item.done", { output_index, item: final });
      done.push(final);
    }
  });
  push("response.completed", {
    response: {
      ...base,
      status: "completed",
      output: done,
      usage: {
        input_tokens: 200,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 30,
        output_tokens_details: { reasoning_tokens: items.some((i) => i.type === "reasoning") ? 12 : 0 },
        total_tokens: 230,
      },
    },
  });
  return events;
}

/** Start the fake OpenAI Responses server on 127.0.0.1:0. */
export function startFakeOpenAI(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const tickMs = opts.slowTickMs ?? 250;
  const budget = new ErrorBudget();
  return startFakeServer((req: LoggedRequest, signal) => {
    if (req.method === "GET" && req.path.startsWith("/v1/models")) return jsonResponse(200, { data: [] });
    if (req.method !== "POST" || !req.path.startsWith("/v1/responses")) {
      if (req.method === "HEAD") return new Response(null, { status: 200 });
      return jsonResponse(404, openaiErrorBody(404));
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const input = Array.isArray(body.input) ? (body.input as InputItem[]) : [];
    const model = typeof body.model === "string" ? body.model : "gpt-fake";
    const { anchor, step } = openaiAnchor(input);
    const script = scriptOf(anchor ? openaiItemText(anchor) : "");
    if (script.turn?.kind === "error" && step === 0) {
      const { status, times } = parseErrorArg(script.turn.arg);
      if (budget.take(script.turn, times)) return jsonResponse(status, openaiErrorBody(status));
    }
    const turn = script.turn?.kind === "error" ? null : script.turn;
    return sseResponse(streamResponse(model, planTurn(turn, script.thinking, step), tickMs), signal);
  }, opts);
}

if (import.meta.main) await runStandalone(startFakeOpenAI, Deno.args);
