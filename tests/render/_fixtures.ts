/** Helpers for render tests: load recorded envelope fixtures and render them through a renderer. */
import type { Envelope, View } from "../../src/events/types.ts";
import { createRenderer } from "../../src/render/mod.ts";
import type { RenderSettings } from "../../src/render/types.ts";
import { parseJsonLines } from "../../src/util/fs.ts";

/** Recorded fixtures under tests/fixtures/render, one per lane shape. */
export const FIXTURES = [
  "claude",
  "codex",
  "cursor",
  "antigravity",
  "simulated",
  "errors",
  "cancelled",
  "large",
] as const;

/** Load a fixture's envelopes. */
export function loadFixture(name: string): Envelope[] {
  const text = Deno.readTextFileSync(new URL(`../fixtures/render/${name}.jsonl`, import.meta.url));
  return parseJsonLines<Envelope>(text);
}

/** A deterministic stand-in for `gitPathDiff` (renderers must label it as the current state). */
export function fakePathDiff(path: string): string[] | null {
  if (path.endsWith("missing.txt")) return null;
  return [`  # ${path}`, "- old line", "+ new line", "+ another line"];
}

/** Settings with the defaults of docs/reference/events-and-rendering.md §6 and §8, no colour, no tty, overridden by `over`. */
export function settings(over: Partial<RenderSettings> = {}): RenderSettings {
  return {
    log_mode: "compact",
    tool_output: "summary",
    thinking: "show",
    diff: "stat",
    diff_max_lines: 60,
    tool_output_max_lines: 200,
    color: false,
    tty: false,
    pathDiff: fakePathDiff,
    ...over,
  };
}

/** Render every event then the footer. */
export function renderAll(events: Envelope[], s: RenderSettings): string {
  const r = createRenderer(s);
  let out = "";
  for (const ev of events) out += r.render(ev);
  return out + r.finish();
}

/** Short settings label for golden names, e.g. `tool_output-full_diff-full_color`. */
export function variantName(over: Partial<View & { color: boolean; tty: boolean }>): string {
  const parts = Object.entries(over).map(([k, v]) => (typeof v === "boolean" ? (v ? k : `no-${k}`) : `${k}-${v}`));
  return parts.length ? parts.join("_") : "default";
}

let seq = 0;
/** Build one envelope (provider origin unless the type is a runner event). */
export function envelope(type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): Envelope {
  seq++;
  return {
    seq,
    at: "2026-11-30T12:05:01.000Z",
    run_id: "20261130T120501Z-7QK2MD",
    origin: "provider",
    type,
    prompt_id: "01",
    attempt: 1,
    stream: "initial",
    provider: "claude",
    session_id: "s1",
    timestamp: null,
    data,
    ...extra,
  } as unknown as Envelope;
}

/** A completed tool call: start + completion envelopes. */
export function toolCall(
  id: string,
  name: string,
  input: Record<string, unknown>,
  output = "",
  extra: Record<string, unknown> = {},
): Envelope[] {
  return [
    envelope("tool_call_started", { tool_call_id: id, tool_name: name, tool_input: input }),
    envelope("tool_call_completed", {
      tool_call_id: id,
      tool_name: name,
      tool_output: output,
      is_error: false,
      ...extra,
    }),
  ];
}
