/**
 * The HTTP server of `control serve` (docs/reference/http_api.md): `Deno.serve` (TLS with a certificate), the guards
 * in their order — Host, route, token (401), body, write rate (429, audited), role (403, audited), the refused body
 * (400, 408, 413, 415, audited) — then the endpoint, whose own 400s are audited too.
 * No CORS header is ever sent, so a page of another origin can neither read an answer nor send a token.
 */
import { type Code, Exit, type ExitCode, PromptRunnerError } from "../../errors.ts";
import { recordRefusal, type RefusedCall, type RunRef, snapshot } from "../../control/mod.ts";
import { performRead, performWrite, replayAnswer, type ServeTarget, targetRow, WRITES, type WriteSpec } from "./api.ts";
import { fingerprintOf, idempotencyKeyOf, IdempotencyStore } from "./idempotency.ts";
import { dashboardResponse } from "./dashboard.ts";
import {
  allowedHosts,
  checkHost,
  HttpError,
  pathId,
  readJsonBody,
  runParam,
  TARGET_ID,
  WriteLimiter,
} from "./guard.ts";
import { endFrame, eventFrames, eventsCursor, logFrames, runOf, sseResponse } from "./sse.ts";
import { EventHub, HUB_FROM_START_SEQS } from "./hub.ts";
import { hubFrames } from "./hub_frames.ts";
import { roleAllows, type TokenEntry, TokenFile, type TokenTable } from "./tokens.ts";

/** Options of {@link startServer}. */
export interface ServeOptions {
  targets: readonly ServeTarget[];
  /** The tokens: fixed, or a `--tokens` file read again when it changes (a revoked token's streams are ended). */
  tokens: TokenTable | TokenFile;
  hostname: string;
  /** 0: a free port. */
  port: number;
  /** PEM text of the certificate chain and key: TLS. */
  tls?: { cert: string; key: string };
  /** More Host header names to answer (`--allow-host`). */
  allowHosts?: readonly string[];
  /** Writes a minute per token (default 60), and how many at once (default 10). */
  writesPerMinute?: number;
  writeBurst?: number;
  /** How long a write's body may take to arrive (ms; default `BODY_TIMEOUT_MS`, 10 s). */
  bodyTimeoutMs?: number;
  /** Event and log streams one token may hold open at once (default `MAX_STREAMS_PER_TOKEN`, 32). */
  maxStreamsPerToken?: number;
}

/** Event and log streams one token may hold open at once. */
export const MAX_STREAMS_PER_TOKEN = 32;

/** How often a tokens file is looked at while streams are open and no request comes (ms). */
const TOKEN_FILE_LOOK_MS = 1000;

/** A listening server. */
export interface RunningServer {
  url: string;
  port: number;
  /** Open event and log streams. */
  streams(): number;
  /** Shared followers open (one per live run with clients; closed with its last client). */
  hubs(): number;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Close every stream and stop listening. */
  shutdown(): Promise<void>;
}

const BASE_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function json(status: number, body: unknown, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: { ...BASE_HEADERS, "content-type": "application/json; charset=utf-8", ...extra },
  });
}

/** The HTTP status of a Control API error, by its exit (docs/reference/http_api.md §6). */
export function statusOf(e: PromptRunnerError): number {
  if (e.code === "run_not_running" || e.code === "stale_run" || e.exit === Exit.lease) return 409;
  if (e.exit === Exit.usage) return 400;
  if (e.exit === Exit.packet) return 422;
  if (e.exit === Exit.notFound) return 404;
  return 500;
}

function errorResponse(e: unknown): Response {
  if (e instanceof HttpError) {
    return json(e.status, { error: { code: e.code, message: e.message, hint: e.hint } }, e.headers);
  }
  if (e instanceof PromptRunnerError) {
    const hint = e.hints.length ? e.hints.join("\n") : null;
    return json(statusOf(e), { error: { code: e.code, message: e.message, hint, exit: e.exit, ...e.details } });
  }
  const message = e instanceof Error ? e.message : String(e);
  return json(500, { error: { code: "internal_error", message, hint: null, exit: 1 } });
}

/** The presented token; `""` for an Authorization header that is not `Bearer <token>` (two, Basic, …); null for none. */
function bearer(req: Request): string | null {
  const h = req.headers.get("authorization");
  if (h === null) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : "";
}

/** The hubs of live runs, shared by their clients and closed with the last one. */
class HubTable {
  private readonly byRun = new Map<string, EventHub>();

  /** The hub of `ref`, opened when none is: from the run's start while it has at most `HUB_FROM_START_SEQS` events. */
  acquire(ref: RunRef, lastSeq: number): EventHub {
    const key = `${ref.storeRoot}\n${ref.runId}`;
    let hub = this.byRun.get(key);
    if (!hub) {
      hub = new EventHub(ref, undefined, lastSeq <= HUB_FROM_START_SEQS ? "start" : "current");
      this.byRun.set(key, hub);
    }
    hub.clients += 1;
    return hub;
  }

  release(hub: EventHub): void {
    hub.clients -= 1;
    if (hub.clients > 0) return;
    hub.close();
    this.byRun.delete(`${hub.ref.storeRoot}\n${hub.ref.runId}`);
  }

  /** Hubs open. */
  get size(): number {
    return this.byRun.size;
  }
}

/** Start serving; resolves once listening. */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const byId = new Map(opts.targets.map((t) => [t.id, t]));
  const perMinute = opts.writesPerMinute ?? 60;
  const limiter = new WriteLimiter(perMinute, opts.writeBurst ?? Math.max(1, Math.min(10, perMinute)));
  // The Idempotency-Key of each write this server answered (docs/reference/http_api.md §4, "Retrying a write").
  const keys = new IdempotencyStore();
  const streams = new Set<AbortController>();
  const hubs = new HubTable();
  /** Tokens over their write rate: refusals counted since the recorded one, and where that one went. */
  const overRate = new Map<string, { count: number; storeRoot: string; command: WriteSpec["command"] }>();
  let allowed = new Set<string>();

  const authenticate = async (req: Request): Promise<TokenEntry> => {
    const presented = bearer(req);
    const table = opts.tokens instanceof TokenFile ? await opts.tokens.current() : opts.tokens;
    const who = presented === null || presented === "" ? null : await table.lookup(presented);
    if (who === null) {
      throw new HttpError(
        401,
        "unauthorized",
        presented === null
          ? "an Authorization: Bearer <token> header is required"
          : presented === ""
          ? "the Authorization header is not one Bearer <token> (one header, the word Bearer, the token)"
          : "the token is not valid",
        { "www-authenticate": 'Bearer realm="prompt_runner"' },
      );
    }
    return who;
  };

  // A stream ends when its frames end, the client leaves (the body is cancelled) or the server stops (`streams`).
  // `req.signal` is not used: under Deno's legacy behaviour it also aborts on a successful response.
  // A token holds at most `maxStreams` streams at once: each costs the server a follower and its buffers.
  const maxStreams = opts.maxStreamsPerToken ?? MAX_STREAMS_PER_TOKEN;
  const streamsOf = new Map<string, Set<AbortController>>();
  // A token taken out of the tokens file (or given another value) ends the streams it holds open.
  // Streams make no requests: while any is open the file is looked at every second too, so a revoked token's stream
  // ends within a second even when nothing else is asked.
  const tokenFile = opts.tokens instanceof TokenFile ? opts.tokens : null;
  let tokenWatch: ReturnType<typeof setInterval> | null = null;
  if (tokenFile !== null) {
    tokenFile.onRevoked = (names) => {
      for (const name of names) for (const ac of [...(streamsOf.get(name) ?? [])]) ac.abort();
    };
    const watch = setInterval(() => {
      if (streams.size > 0) tokenFile.current().catch(() => {});
    }, TOKEN_FILE_LOOK_MS);
    Deno.unrefTimer(watch);
    tokenWatch = watch;
  }
  const stream = (who: TokenEntry, make: (signal: AbortSignal, onClose: () => void) => Response): Response => {
    const mine = streamsOf.get(who.name) ?? new Set();
    if (mine.size >= maxStreams) {
      throw new HttpError(
        429,
        "too_many_streams",
        `token "${who.name}" has ${mine.size} streams open, the most one token may; close one first`,
        { "retry-after": "1" },
      );
    }
    const ac = new AbortController();
    streams.add(ac);
    mine.add(ac);
    streamsOf.set(who.name, mine);
    return make(ac.signal, () => {
      streams.delete(ac);
      mine.delete(ac);
      if (mine.size === 0 && streamsOf.get(who.name) === mine) streamsOf.delete(who.name);
    });
  };

  // Record a refusal made here; its hint when it could not be recorded (the caller must know it is not on the record).
  const refuse = async (
    storeRoot: string,
    call: RefusedCall,
    code: Code,
    message: string,
    exit: ExitCode,
  ) => {
    const error = new PromptRunnerError(code, message, exit);
    await recordRefusal(storeRoot, call, error);
    return error.hints.length > 0 ? error.hints.join("\n") : null;
  };

  // A write refused here for its body or a field of it (400, 408, 413, 415) is on the record like a 403: the token's
  // name, the endpoint's command, what was refused and why; the answer carries the hint when it could not be recorded.
  const onRecord = async (storeRoot: string, call: RefusedCall, e: HttpError): Promise<HttpError> => {
    const hint = await refuse(storeRoot, call, e.code as Code, e.message, Exit.usage);
    return new HttpError(e.status, e.code, e.message, e.headers, hint);
  };

  const write = async (req: Request, t: ServeTarget, kind: string, who: TokenEntry): Promise<Response> => {
    const spec = WRITES[kind]!;
    let body: Record<string, unknown> | null = null;
    let unread: HttpError | null = null;
    try {
      body = await readJsonBody(req, undefined, opts.bodyTimeoutMs);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      unread = e;
    }
    const call = body !== null
      ? {
        command: spec.command,
        params: spec.params(body),
        author: who.name,
        ...(spec.promptId ? { promptId: spec.promptId(body) } : {}),
      }
      : { command: spec.command, params: { body_refused: unread!.code }, author: who.name };
    // Every write a token tries counts against its rate, a forbidden one too: each refusal is an audit entry (with up
    // to 64 KiB of params), and a read token's 403s at the speed of the loopback would otherwise fill the disk.
    const wait = limiter.take(who.name);
    if (wait !== null) {
      const message = `token "${who.name}" is over its write rate (${perMinute} a minute); retry in ${wait} s`;
      let hint: string | null = null;
      const streak = overRate.get(who.name);
      if (streak) streak.count += 1;
      else {
        // The first refusal of a streak is recorded; the rest are counted, and the count is recorded when it ends.
        overRate.set(who.name, { count: 0, storeRoot: t.storeRoot, command: spec.command });
        const recorded = `${message}; until it may write again its further writes are counted, not recorded one by one`;
        hint = await refuse(t.storeRoot, call, "rate_limited", recorded, Exit.failed);
      }
      throw new HttpError(429, "rate_limited", message, { "retry-after": String(wait) }, hint);
    }
    const streak = overRate.get(who.name);
    if (streak) {
      overRate.delete(who.name);
      if (streak.count > 0) {
        const message = `token "${who.name}" was refused ${streak.count} more writes over its write rate ` +
          `(${perMinute} a minute) after the entry before, counted, not recorded one by one`;
        const call = { command: streak.command, params: { refused: streak.count }, author: who.name };
        await refuse(streak.storeRoot, call, "rate_limited", message, Exit.failed);
      }
    }
    if (body === null) throw await onRecord(t.storeRoot, call, unread!);
    if (!roleAllows(who.role, spec.role)) {
      const message = `token "${who.name}" has role ${who.role}; ${kind} needs role ${spec.role}`;
      const hint = await refuse(t.storeRoot, call, "forbidden", message, Exit.usage);
      throw new HttpError(403, "forbidden", message, {}, hint);
    }
    // A write sent again with its Idempotency-Key gets the first one's answer, not a second write (idempotency.ts).
    const key = idempotencyKeyOf(req);
    if (key === "invalid") {
      const e = new HttpError(
        400,
        "invalid_value",
        "Idempotency-Key: expected 1 to 128 characters of A-Z a-z 0-9 . _ : -",
      );
      throw await onRecord(t.storeRoot, call, e);
    }
    const perform = () => performWrite(kind, t, body!, who.name, AbortSignal.timeout(31_000));
    const settled = key === null
      ? null
      : keys.run(`${who.name}\0${t.id}\0${kind}\0${key}`, await fingerprintOf(kind, body), perform);
    if (settled === "conflict") {
      const message = `Idempotency-Key "${key}" was used by token "${who.name}" for another ${kind} write; a retry ` +
        "sends the same body";
      const hint = await refuse(t.storeRoot, call, "idempotency_key_reused", message, Exit.usage);
      throw new HttpError(422, "idempotency_key_reused", message, {}, hint);
    }
    try {
      if (settled === null) {
        const r = await perform();
        return json(r.status, r.body);
      }
      const { answer, replayed } = await settled;
      if (!replayed) return json(answer.status, answer.body);
      const again = await replayAnswer(t, answer, body, AbortSignal.timeout(31_000));
      return json(again.status, again.body, { "idempotent-replayed": "true" });
    } catch (e) {
      // The API's own checks of the fields (400 invalid_value, missing_argument); the control layer's refusals are
      // recorded where they are made and never arrive here as an HttpError.
      if (e instanceof HttpError) throw await onRecord(t.storeRoot, call, e);
      throw e;
    }
  };

  const handle = async (req: Request): Promise<Response> => {
    try {
      checkHost(req, allowed);
      const url = new URL(req.url);
      if (!url.pathname.startsWith("/api/")) {
        if (req.method !== "GET" && req.method !== "HEAD") {
          throw new HttpError(405, "method_not_allowed", `${req.method} is not served here`);
        }
        const page = dashboardResponse(req, url.pathname);
        if (page === null) throw new HttpError(404, "not_found", `nothing is served at ${url.pathname}`);
        for (const [k, v] of Object.entries(BASE_HEADERS)) if (!page.headers.has(k)) page.headers.set(k, v);
        return page;
      }
      const segs = url.pathname.split("/").slice(1);
      if (segs[1] !== "v1") throw new HttpError(404, "not_found", `no endpoint at ${url.pathname}`);
      const who = await authenticate(req);
      const rest = segs.slice(2);
      const isGet = req.method === "GET" || req.method === "HEAD";
      if (rest.length === 1 && rest[0] === "whoami" && isGet) return json(200, who);
      if (rest[0] !== "targets") throw new HttpError(404, "not_found", `no endpoint at ${url.pathname}`);
      if (rest.length === 1) {
        if (!isGet) throw new HttpError(405, "method_not_allowed", `${req.method} ${url.pathname} is not served`);
        return json(200, { targets: await Promise.all(opts.targets.map(targetRow)) });
      }
      const id = pathId(rest[1]!, TARGET_ID, "target id");
      const t = byId.get(id);
      if (!t) throw new HttpError(404, "target_not_found", `no target "${id}" is served here`);
      const tail = rest.slice(2);
      if (req.method === "POST") {
        if (tail.length === 1 && tail[0]! in WRITES) return await write(req, t, tail[0]!, who);
        throw new HttpError(404, "not_found", `no write endpoint at ${url.pathname}`);
      }
      if (!isGet) throw new HttpError(405, "method_not_allowed", `${req.method} ${url.pathname} is not served`);
      if (tail.length === 1 && tail[0] === "events") {
        const ref = await runOf(t.storeRoot, runParam(url));
        const from = eventsCursor(req.headers.get("last-event-id"), url.searchParams.get("from"));
        const snap = await snapshot(ref).catch(() => null);
        if (snap?.status !== "running") {
          return stream(who, (signal, end) => sseResponse((s) => eventFrames(ref, from, s), signal, BASE_HEADERS, end));
        }
        return stream(who, (signal, end) =>
          sseResponse(
            (s) => {
              const hub = hubs.acquire(ref, snap.last_seq);
              s.addEventListener("abort", () => hubs.release(hub), { once: true });
              return hubFrames(hub, from, s, () => endFrame(ref));
            },
            signal,
            BASE_HEADERS,
            end,
          ));
      }
      if (tail.length === 2 && tail[0] === "log" && tail[1] === "stream") {
        const ref = await runOf(t.storeRoot, runParam(url));
        const last = Number(req.headers.get("last-event-id") ?? "0");
        const after = Number.isInteger(last) && last > 0 ? last : 0;
        const all = url.searchParams.get("all_runs") === "1";
        return stream(
          who,
          (signal, end) => sseResponse((s) => logFrames(ref, after, all, s), signal, BASE_HEADERS, end),
        );
      }
      const body = await performRead(t, tail, url);
      if (body === null) throw new HttpError(404, "not_found", `no endpoint at ${url.pathname}`);
      return json(200, body);
    } catch (e) {
      return errorResponse(e);
    }
  };

  let listening: (addr: Deno.NetAddr) => void;
  const ready = new Promise<Deno.NetAddr>((r) => listening = r);
  let server: Deno.HttpServer<Deno.NetAddr>;
  const base = { hostname: opts.hostname, port: opts.port, onListen: (a: Deno.NetAddr) => listening(a) };
  try {
    server = opts.tls
      ? Deno.serve({ ...base, cert: opts.tls.cert, key: opts.tls.key }, handle)
      : Deno.serve(base, handle);
  } catch (e) {
    throw new PromptRunnerError(
      "listen_failed",
      `cannot listen on ${opts.hostname}:${opts.port}: ${(e as Error).message}`,
      Exit.failed,
    );
  }
  const addr = await ready;
  allowed = allowedHosts(opts.hostname, addr.port, opts.allowHosts ?? []);
  const shownHost = opts.hostname.includes(":") ? `[${opts.hostname}]` : opts.hostname;
  return {
    url: `${opts.tls ? "https" : "http"}://${shownHost}:${addr.port}/`,
    port: addr.port,
    streams: () => streams.size,
    hubs: () => hubs.size,
    finished: server.finished,
    async shutdown() {
      if (tokenWatch !== null) clearInterval(tokenWatch);
      for (const s of [...streams]) s.abort();
      // A connection that does not let go within 2 s does not hold the process: stop waiting for it.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([server.shutdown(), new Promise((r) => timer = setTimeout(r, 2000))]);
      clearTimeout(timer);
    },
  };
}
