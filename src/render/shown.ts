/**
 * An event as the renderers may show it (docs/rendering.md, "Untrusted text"): every string in its data — the agent's
 * messages, tool names, inputs and output, provider errors, notices — with its control characters shown escaped
 * (`\x1b`), so nothing an agent or a provider writes reaches the terminal raw. Multi-line text keeps its newlines and
 * tabs (a CRLF becomes a newline); one-line fields (names, paths, ids) show a newline escaped too. The escapes are
 * plain ASCII, so every width measured afterwards is the width shown.
 */
import type { Envelope } from "../events/mod.ts";
import { escapeControl, escapeControlKeepLines } from "../util/escape.ts";

/** Fields whose text is one line wherever they are shown: a newline in them could only forge a line. */
const ONE_LINE = new Set([
  "tool_name",
  "tool_call_id",
  "name",
  "model",
  "provider",
  "provider_session_id",
  "session_id",
  "message_id",
  "prompt_name",
  "prompt_id",
  "packet",
  "cwd",
  "path",
  "file_path",
  "notebook_path",
  "code",
  "error_code",
  "stop_reason",
  "kind",
  "status",
  "author",
  "request",
  "reasoning_effort",
  "simulation_label",
  "version",
]);

// deno-lint-ignore no-control-regex
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function shownString(text: string, key: string | null): string {
  if (!ANY_CONTROL.test(text)) return text;
  if (key !== null && ONE_LINE.has(key)) return escapeControl(text);
  return escapeControlKeepLines(text.replaceAll("\r\n", "\n"));
}

/** `value` with its strings made safe; the same object when nothing in it needed escaping. */
function shownValue(value: unknown, key: string | null): unknown {
  if (typeof value === "string") return shownString(value, key);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = shownValue(value[i], key);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const s = shownValue(v, k);
    if (s !== v) (out ??= { ...value as Record<string, unknown> })[k] = s;
  }
  return out ?? value;
}

/** `ev` with every string of its data and header shown escaped; `ev` itself when it holds no control character. */
export function shownEvent<E extends Envelope>(ev: E): E {
  return shownValue(ev, null) as E;
}

/** One line of untrusted text (a file's diff line, a name) shown escaped, its tabs kept. */
export function shownLine(text: string): string {
  return ANY_CONTROL.test(text) ? escapeControlKeepLines(text.replace(/\r$/, "")).replaceAll("\n", "\\x0a") : text;
}
