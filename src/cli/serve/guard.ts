/**
 * The request guards of `control serve` (docs/reference/http_api.md §3): the Host allow-list (no DNS rebinding), the
 * body size cap, the per-token write rate limit, and the shapes an id in a path or a query may take (no traversal).
 */
import { isRunId } from "../../util/time.ts";

/** The largest request body a write takes (bytes): a steer is at most 8 KiB, an amendment a few entries. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The deepest nesting of arrays and objects a body may have (the body itself is level 1). The deepest write needs 4
 * (an amendment's `commands` entry's `args`); thousands of levels would overflow the stack of whatever walks the
 * value later — the audit record of a refusal among them, so such a body would be refused off the record.
 */
export const MAX_JSON_DEPTH = 32;

/** How deeply `value` nests arrays and objects (0 for a scalar), counted without recursion. */
export function jsonDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    deepest = Math.max(deepest, d);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/** An HTTP-level refusal: status, machine code, message. */
export class HttpError extends Error {
  /** A refusal with its HTTP status and machine code. */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly hint: string | null = null,
  ) {
    super(message);
  }
}

/** Whether a listen host is a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The Host header values a server answers: the listen host (and the loopback names when it listens on loopback, or
 * on a wildcard address), each with the port, plus the `--allow-host` names given.
 */
export function allowedHosts(listenHost: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set<string>();
  const bare = listenHost.replace(/^\[|\]$/g, "").toLowerCase();
  const add = (h: string) => names.add(h.includes(":") && !h.startsWith("[") ? `[${h}]:${port}` : `${h}:${port}`);
  add(bare);
  if (isLoopbackHost(bare) || bare === "0.0.0.0" || bare === "::") {
    for (const h of ["localhost", "127.0.0.1", "::1"]) add(h);
  }
  for (const e of extra) {
    const x = e.toLowerCase();
    if (/:\d+$/.test(x) && !x.endsWith("]")) names.add(x);
    else add(x);
  }
  return names;
}

/** Refuse a request whose Host header is not allowed (421, `host_not_allowed`). */
export function checkHost(req: Request, allowed: ReadonlySet<string>): void {
  // HTTP/2 has no Host header: its `:authority` is the URL's host. A host without a port has the scheme's default.
  const url = new URL(req.url);
  let host = (req.headers.get("host") ?? url.host).toLowerCase();
  if (!/:\d+$/.test(host.replace(/^\[[^\]]*\]/, ""))) host += url.protocol === "https:" ? ":443" : ":80";
  if (!allowed.has(host)) {
    // The names it does answer are not listed: a page served through DNS rebinding reads this answer, and the
    // `--allow-host` names are none of its business.
    throw new HttpError(
      421,
      "host_not_allowed",
      `Host "${host}" is not served here; to answer it, start the server with --allow-host ${host}`,
    );
  }
}

/** How long a write's body may take to arrive, from the end of its headers (ms). */
export const BODY_TIMEOUT_MS = 10_000;

/**
 * Read a JSON object body of at most {@link MAX_BODY_BYTES}, counting the bytes as they arrive, within `timeoutMs`
 * (408 `request_timeout`: a client that sends a byte now and then must not hold the request open for ever).
 */
export async function readJsonBody(
  req: Request,
  limit = MAX_BODY_BYTES,
  timeoutMs = BODY_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw new HttpError(413, "body_too_large", `request body is ${declared} bytes; the limit is ${limit}`);
  }
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    await req.body?.cancel().catch(() => {});
    throw new HttpError(415, "unsupported_media_type", "a write takes Content-Type: application/json");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (req.body) {
    const reader = req.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), timeoutMs));
    try {
      for (;;) {
        const next = await Promise.race([reader.read(), late]);
        if (next === "late") {
          await reader.cancel().catch(() => {});
          throw new HttpError(408, "request_timeout", `request body did not arrive within ${timeoutMs} ms`, {
            connection: "close",
          });
        }
        const { done, value } = next;
        if (done) break;
        size += value.length;
        if (size > limit) {
          await reader.cancel().catch(() => {});
          throw new HttpError(413, "body_too_large", `request body is over the limit of ${limit} bytes`);
        }
        chunks.push(value);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (e) {
    throw new HttpError(400, "invalid_json", `request body is not JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new HttpError(400, "invalid_json", "request body must be a JSON object");
  }
  if (jsonDepth(doc) > MAX_JSON_DEPTH) {
    throw new HttpError(
      400,
      "invalid_json",
      `request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  return doc as Record<string, unknown>;
}

/** A token bucket per token name: `burst` writes at once, refilled at `perMinute`. */
export class WriteLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** A limiter allowing `perMinute` writes a minute per token, `burst` at once. */
  constructor(readonly perMinute: number, readonly burst: number, private readonly now: () => number = Date.now) {}

  /** Take one write for `name`; null when allowed, else the seconds until the next one is. */
  take(name: string): number | null {
    const t = this.now();
    const b = this.buckets.get(name) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 60_000) * this.perMinute);
    b.at = t;
    this.buckets.set(name, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil(((1 - b.tokens) * 60) / this.perMinute));
  }
}

/** A target id: the packet's or workspace's label, as `GET targets` lists it. */
export const TARGET_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** A prompt id as a path segment: digits only (normalised by the Control API). */
export const PROMPT_ID = /^\d{1,9}$/;
/** A request file name (`outcomes/<name>`). */
export const REQUEST_ID = /^\d{8}T\d{6}\.\d{6}Z-\d+-\d{6,}-[0-9a-f]{4}\.json$/;

/**
 * One path segment, decoded, checked against `shape`: `..`, `/`, `\`, NUL and anything else outside the shape is
 * refused (400 `invalid_id`) before it reaches any file name.
 */
export function pathId(raw: string, shape: RegExp, what: string): string {
  let v: string;
  try {
    v = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, "invalid_id", `${what} "${raw}" is not a valid path segment`);
  }
  if (!shape.test(v) || v.includes("..")) {
    throw new HttpError(400, "invalid_id", `${what} ${JSON.stringify(v)} is not a valid ${what}`);
  }
  return v;
}

/**
 * The `?run=` of a request: null when absent or empty, else a run id (`YYYYMMDDTHHMMSSZ-XXXXXX`). Anything else is
 * refused (400 `invalid_id`): a run id becomes part of a file name in the store (an earlier run's event archive), so
 * `?run=../../elsewhere` must never reach one.
 */
export function runParam(url: URL): string | null {
  const v = url.searchParams.get("run");
  if (v === null || v === "") return null;
  if (!isRunId(v)) {
    throw new HttpError(400, "invalid_id", `run ${JSON.stringify(v)} is not a run id (YYYYMMDDTHHMMSSZ-XXXXXX)`);
  }
  return v;
}
