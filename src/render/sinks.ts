/**
 * Sinks (docs/reference/events-and-rendering.md §10): the terminal, the attempt log file (no ANSI, no lone `\r`), the per-attempt
 * `.events.jsonl` (docs/reference/runner.md §10.4) and the `run --json` JSON Lines writer. File-backed sinks buffer and write in
 * few large syscalls: they flush when 64 KiB are pending, when the oldest pending text is 20 ms old (checked at the
 * next write), and on `flush()` — call it at stream idle and at stream end.
 */
import type { TextOut } from "../util/mod.ts";
import type { Envelope } from "../events/mod.ts";
import { encodeEnvelope } from "../events/json.ts";
import { openStoreFileSync } from "../util/safe_fs.ts";
import { stripAnsi } from "./ansi.ts";
import { oneLine, shortModel } from "./text.ts";
import type { EventSink, TextSink } from "./types.ts";

const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 20;

/** A string buffer in front of a synchronous writer. */
class Buffered {
  private pending = "";
  private since = 0;
  constructor(private readonly out: (text: string) => void) {}

  write(text: string): void {
    if (text === "") return;
    const now = Date.now();
    if (this.pending === "") this.since = now;
    this.pending += text;
    if (this.pending.length >= FLUSH_BYTES || now - this.since >= FLUSH_MS) this.flush();
  }

  flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.out(text);
  }
}

const encoder = new TextEncoder();

function fileWriter(path: string, opened?: Deno.FsFile): { write(text: string): void; close(): void } {
  // A store log: never through a link (docs/store.md). Each attempt's files have new names: created first.
  const file = opened ?? openStoreFileSync(path, { fresh: true });
  return {
    write(text: string) {
      const bytes = encoder.encode(text);
      let off = 0;
      while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    },
    close() {
      file.close();
    },
  };
}

/** A {@link Buffered} append-only file; writes after `close()` are dropped. */
function bufferedFile(path: string, opened?: Deno.FsFile): { write(text: string): void; flush(): void; close(): void } {
  const file = fileWriter(path, opened);
  const buf = new Buffered((t) => file.write(t));
  let open = true;
  return {
    write(text) {
      if (open) buf.write(text);
    },
    flush() {
      if (open) buf.flush();
    },
    close() {
      if (!open) return;
      buf.flush();
      file.close();
      open = false;
    },
  };
}

const CLEAR_LINE = "\r\x1b[2K";

/**
 * Text for a file: a studio overwrite (`\r\e[2K`) becomes a line break so both lines stay readable, then ANSI
 * sequences and lone `\r` are removed.
 */
export function cleanForFile(text: string): string {
  if (text.indexOf("\x1b") < 0 && text.indexOf("\r") < 0) return text;
  const t = stripAnsi(text.replaceAll(CLEAR_LINE, "\n"));
  return t.indexOf("\r") < 0 ? t : t.replace(/\r(?!\n)/g, "");
}

/** The terminal sink: text goes straight to `out` when it is a terminal, buffered otherwise. */
export function ttySink(out: TextOut): TextSink {
  if (out.isTerminal) {
    return {
      write(text) {
        if (text !== "") out.write(text);
      },
      flush() {},
      close() {},
    };
  }
  const buf = new Buffered((t) => out.write(t));
  return { write: (t) => buf.write(t), flush: () => buf.flush(), close: () => buf.flush() };
}

/**
 * The attempt log sink: appends to `path` (created 0600, or `opened`: the handle the caller created it with) with ANSI
 * and lone `\r` stripped.
 */
export function fileSink(path: string, opened?: Deno.FsFile): TextSink {
  const file = bufferedFile(path, opened);
  return {
    write(text) {
      if (text !== "") file.write(cleanForFile(text));
    },
    flush: () => file.flush(),
    close: () => file.close(),
  };
}

/** Abbreviations of the compact events file (docs/reference/runner.md §10.4). */
const ABBREV: Record<string, string> = {
  run_started: "rs",
  message_streamed: "ms",
  tool_call_started: "ts",
  tool_call_completed: "tc",
  tool_call_failed: "tf",
  token_usage_updated: "tu",
  message_received: "mr",
  run_completed: "rc",
  run_failed: "rf",
  error_occurred: "er",
  run_cancelled: "rx",
};

function dropEmpty(rec: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    if (v === undefined || v === null || v === "") delete rec[k];
  }
  return rec;
}

/** The compact events-file record of one envelope: `{"t": <epoch ms>, "e": {"t": <abbrev>, …}}`. */
export function compactEventRecord(ev: Envelope): { t: number; e: Record<string, unknown> } {
  const e: Record<string, unknown> = { t: ABBREV[ev.type] ?? ev.type };
  switch (ev.type) {
    case "run_started":
      e.m = ev.data.model ? shortModel(ev.data.model) : null;
      break;
    case "message_streamed":
      e.l = ev.data.delta.length;
      break;
    case "tool_call_started":
      e.n = ev.data.tool_name;
      break;
    case "tool_call_completed":
    case "tool_call_failed":
      e.n = ev.data.tool_name;
      e.l = typeof ev.data.tool_output === "string" ? ev.data.tool_output.length : null;
      break;
    case "token_usage_updated":
      e.i = ev.data.input_tokens;
      e.o = ev.data.output_tokens;
      e.$ = ev.data.cost_usd;
      break;
    case "run_completed":
      e.sr = ev.data.stop_reason;
      break;
    case "run_failed":
    case "error_occurred":
      e.x = oneLine(ev.data.error_message ?? "", 120);
      break;
  }
  const t = Date.parse(ev.at);
  return { t: Number.isNaN(t) ? 0 : t, e: dropEmpty(e) };
}

const NULL_EVENT_SINK: EventSink = { event() {}, flush() {}, close() {} };

/**
 * The per-attempt `.events.jsonl` sink: `compact` records, `full` envelopes exactly as in `control/events.jsonl`,
 * or `off` (no file is created). Hidden events are never written. `opened`: the handle the caller created the file
 * with (else it is created here, new).
 */
export function eventsFileSink(path: string, mode: "compact" | "full" | "off", opened?: Deno.FsFile): EventSink {
  if (mode === "off") {
    opened?.close();
    return NULL_EVENT_SINK;
  }
  const file = bufferedFile(path, opened);
  return {
    event(ev) {
      if (!ev.hidden) {
        file.write((mode === "full" ? encodeEnvelope(ev) : JSON.stringify(compactEventRecord(ev))) + "\n");
      }
    },
    flush: () => file.flush(),
    close: () => file.close(),
  };
}

/** The `run --json` writer: every envelope (hidden ones included) as one line, plus `line()` for `run_summary`. */
export interface JsonLinesSink extends EventSink {
  /** Write one extra JSON document as a line (the final `run_summary`). */
  line(value: unknown): void;
}

/** A {@link JsonLinesSink} over a text stream (stdout). */
export function jsonLinesSink(out: TextOut): JsonLinesSink {
  const buf = new Buffered((t) => out.write(t));
  return {
    event(ev) {
      buf.write(encodeEnvelope(ev) + "\n");
    },
    line(value) {
      buf.write(JSON.stringify(value) + "\n");
    },
    flush: () => buf.flush(),
    close: () => buf.flush(),
  };
}
