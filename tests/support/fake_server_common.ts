/**
 * Shared machinery of the loopback fake model servers (docs/reference/providers.md §7.5, §7.6): scripted-turn directives, the
 * JSON-lines request log, SSE framing, and the start/stop life cycle on 127.0.0.1 with port 0.
 *
 * A directive is `[[e2e:<kind> <args>]]` anywhere in the latest user text. Kinds:
 * `text <words>`, `slow <seconds>`, `write <path> [content]`, `edit <path> <old> => <new>`, `bash <command>`,
 * `error <status> [times=N]`, `thinking` (a modifier: a thinking/reasoning block precedes the first turn).
 * When several turn-shaping directives appear, the last one wins (a restart prompt that repeats the original text
 * followed by an operator's directive plays the operator's).
 */

/** One parsed directive. */
export interface Directive {
  kind: "text" | "slow" | "write" | "edit" | "bash" | "error" | "thinking";
  /** Everything after the kind, trimmed. */
  arg: string;
  /** The whole `[[e2e:…]]` text (keys the `times=N` counters). */
  raw: string;
}

/** What the latest user text asks the fake to do. */
export interface Script {
  /** The turn-shaping directive, or null for a plain text reply. */
  turn: Directive | null;
  thinking: boolean;
}

const DIRECTIVE_RE = /\[\[e2e:([a-z]+)\s*([\s\S]*?)\]\]/g;
const KINDS = new Set(["text", "slow", "write", "edit", "bash", "error", "thinking"]);

/** Find the directives in a text, in order. Unknown kinds are ignored. */
export function parseDirectives(text: string): Directive[] {
  const found: Directive[] = [];
  for (const m of text.matchAll(DIRECTIVE_RE)) {
    const kind = m[1] ?? "";
    if (!KINDS.has(kind)) continue;
    found.push({ kind: kind as Directive["kind"], arg: (m[2] ?? "").trim(), raw: m[0] });
  }
  return found;
}

/** Reduce directives to a script: the last turn-shaping directive wins, `thinking` anywhere applies. */
export function scriptOf(text: string): Script {
  let turn: Directive | null = null;
  let thinking = false;
  for (const d of parseDirectives(text)) {
    if (d.kind === "thinking") thinking = true;
    else turn = d;
  }
  return { turn, thinking };
}

/** Parse `edit` arguments `<path> <old> => <new>`. */
export function parseEditArg(arg: string): { path: string; oldText: string; newText: string } {
  const sp = arg.indexOf(" ");
  const path = sp < 0 ? arg : arg.slice(0, sp);
  const rest = sp < 0 ? "" : arg.slice(sp + 1);
  const arrow = rest.indexOf("=>");
  const oldText = arrow < 0 ? rest.trim() : rest.slice(0, arrow).trim();
  const newText = arrow < 0 ? "" : rest.slice(arrow + 2).trim();
  return { path, oldText, newText };
}

/** Parse `write` arguments `<path> [content]`; content defaults to `hello`, a newline is appended. */
export function parseWriteArg(arg: string): { path: string; content: string } {
  const sp = arg.indexOf(" ");
  if (sp < 0) return { path: arg, content: "hello\n" };
  return { path: arg.slice(0, sp), content: `${arg.slice(sp + 1)}\n` };
}

/** Parse `error` arguments `<status> [times=N]` (times absent: every matching request fails). */
export function parseErrorArg(arg: string): { status: number; times: number | null } {
  const [statusText = "500", ...rest] = arg.split(/\s+/);
  const status = Number.parseInt(statusText, 10);
  let times: number | null = null;
  for (const r of rest) {
    const m = /^times=(\d+)$/.exec(r);
    if (m) times = Number.parseInt(m[1] ?? "1", 10);
  }
  return { status: Number.isFinite(status) ? status : 500, times };
}

/** Seconds of a `slow` directive (default 20). */
export function parseSlowArg(arg: string): number {
  const n = Number.parseFloat(arg);
  return Number.isFinite(n) && n > 0 ? n : 20;
}

/** One logged request (a line of the request log). */
export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, or null when empty. */
  body: unknown;
}

/** A running fake server. */
export interface FakeServer {
  /** The bound port on 127.0.0.1. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Every request so far, in arrival order. */
  readonly requests: LoggedRequest[];
  /** Path of the JSON-lines request log, when one was requested. */
  readonly logPath: string | null;
  /** Resolves once a request matching `pred` has arrived (checks earlier ones too). */
  waitForRequest(pred: (r: LoggedRequest) => boolean, timeoutMs?: number): Promise<LoggedRequest>;
  /** Stop accepting and close open streams. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options shared by both fakes. */
export interface FakeServerOptions {
  /** Append every request as one JSON line here. */
  logPath?: string;
  /** Write the chosen port (decimal, newline) here once listening. */
  portFile?: string;
  /** Milliseconds between streamed deltas of a `slow` turn (default 250). */
  slowTickMs?: number;
}

/** A request handler: returns the response for one logged request. */
export type FakeHandler = (req: LoggedRequest, signal: AbortSignal) => Response | Promise<Response>;

/** Start a fake on 127.0.0.1:0 with request logging. */
export async function startFakeServer(handler: FakeHandler, opts: FakeServerOptions = {}): Promise<FakeServer> {
  const requests: LoggedRequest[] = [];
  const waiters: { pred: (r: LoggedRequest) => boolean; resolve: (r: LoggedRequest) => void }[] = [];
  const closing = new AbortController();
  const logFile = opts.logPath ? await Deno.open(opts.logPath, { append: true, create: true }) : null;
  const enc = new TextEncoder();

  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, async (request) => {
    const url = new URL(request.url);
    const text = request.body ? await request.text() : "";
    let body: unknown = null;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => headers[k] = v);
    const logged: LoggedRequest = {
      at: new Date().toISOString(),
      method: request.method,
      path: url.pathname + url.search,
      headers,
      body,
    };
    requests.push(logged);
    if (logFile) await logFile.write(enc.encode(JSON.stringify(logged) + "\n"));
    for (const w of [...waiters]) {
      if (w.pred(logged)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(logged);
      }
    }
    try {
      return await handler(logged, closing.signal);
    } catch (e) {
      return new Response(JSON.stringify({ error: String(e) }), { status: 500 });
    }
  });
  const port = server.addr.port;
  if (opts.portFile) await Deno.writeTextFile(opts.portFile, `${port}\n`);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    closing.abort();
    await server.shutdown();
    logFile?.close();
  };
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    logPath: opts.logPath ?? null,
    waitForRequest(pred, timeoutMs = 30_000) {
      const hit = requests.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(entry), 1);
          reject(new Error(`no matching request within ${timeoutMs} ms (${requests.length} seen)`));
        }, timeoutMs);
        const entry = {
          pred,
          resolve: (r: LoggedRequest) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        waiters.push(entry);
      });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
  /** Wait this long before sending (slow streams). */
  delayMs?: number;
}

/** Build a `text/event-stream` response that sends events with their delays and stops when aborted. */
export function sseResponse(events: SseEvent[], closing: AbortSignal): Response {
  const enc = new TextEncoder();
  // Aborted when the client goes away (cancel) or the server closes.
  const gone = new AbortController();
  const onClose = () => gone.abort();
  closing.addEventListener("abort", onClose);
  const signal = gone.signal;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        for (const ev of events) {
          if (ev.delayMs) await abortableSleep(ev.delayMs, signal);
          if (signal.aborted) break;
          controller.enqueue(enc.encode(`event: ${ev.event}\ndata: ${JSON.stringify(ev.data)}\n\n`));
        }
      } catch {
        // The client went away; nothing to do.
      } finally {
        closing.removeEventListener("abort", onClose);
        try {
          controller.close();
        } catch {
          // Already closed by a cancel.
        }
      }
    },
    cancel() {
      gone.abort();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** A JSON response with a status. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/** Split a text into `n` roughly equal chunks (at least one). */
export function chunks(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length));
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

/** Counts how often each `error … times=N` directive has fired, per server. */
export class ErrorBudget {
  #fired = new Map<string, number>();
  /** True when this directive should still fail now (and counts the failure). */
  take(d: Directive, times: number | null): boolean {
    if (times === null) return true;
    const n = this.#fired.get(d.raw) ?? 0;
    if (n >= times) return false;
    this.#fired.set(d.raw, n + 1);
    return true;
  }
}

/** Parse `--port-file F --log F --slow-tick MS` for the standalone entry points. */
export function standaloneOptions(args: string[]): FakeServerOptions {
  const opts: FakeServerOptions = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const v = args[i + 1];
    if (a === "--port-file" && v) opts.portFile = v, i++;
    else if (a === "--log" && v) opts.logPath = v, i++;
    else if (a === "--slow-tick" && v) opts.slowTickMs = Number.parseInt(v, 10), i++;
  }
  return opts;
}

/** Run a fake as a standalone process until SIGINT/SIGTERM; prints the port on stdout. */
export async function runStandalone(
  start: (opts: FakeServerOptions) => Promise<FakeServer>,
  args: string[],
): Promise<void> {
  const server = await start(standaloneOptions(args));
  console.log(JSON.stringify({ port: server.port, base_url: server.baseUrl }));
  const { promise, resolve } = Promise.withResolvers<void>();
  Deno.addSignalListener("SIGINT", resolve);
  Deno.addSignalListener("SIGTERM", resolve);
  await promise;
  await server.close();
}
