/**
 * `control serve` in tests: spawns the command as a user would (exactly its permissions, tests/support/cli.ts),
 * reads its one `--json` line, and offers small fetch helpers and an SSE frame reader.
 */
import { type CliOptions, readFirstLine, spawnCli } from "../support/cli.ts";

/** A running `control serve`. */
export interface Served {
  url: string;
  token: string | null;
  /** The nice value the server reported in force (null: it could not set one). */
  nice: number | null;
  child: Deno.ChildProcess;
  /** SIGTERM, then the exit status and what it printed on stderr. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** Start `control serve ARGS… --json` and wait for its line. */
export async function startServe(args: string[], opts: CliOptions = {}): Promise<Served> {
  const child = spawnCli(["control", "serve", ...args, "--json"], opts);
  const errText = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const buf = await readFirstLine(reader);
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  if (!buf.includes("\n")) {
    const status = await child.status;
    throw new Error(`control serve exited ${status.code} before listening:\n${await errText}`);
  }
  const line = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as {
    url: string;
    token: string | null;
    nice: number | null;
  };
  let stopped: Promise<{ code: number; stderr: string }> | null = null;
  return {
    url: line.url,
    token: line.token,
    nice: line.nice,
    child,
    stop() {
      stopped ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch { /* already gone */ }
        const status = await child.status;
        return { code: status.code, stderr: await errText };
      })();
      return stopped;
    },
  };
}

/** A fetch against the server with a bearer token (null: none). */
export async function call(
  base: string,
  path: string,
  token: string | null,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}) };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(new URL(path, base), {
    method: init.method ?? (init.body !== undefined || init.raw !== undefined ? "POST" : "GET"),
    headers: { ...headers, ...init.headers },
    ...(init.raw !== undefined
      ? { body: init.raw }
      : init.body !== undefined
      ? { body: JSON.stringify(init.body) }
      : {}),
  });
  const text = await r.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { text };
  }
  return { status: r.status, json, headers: r.headers };
}

/** One parsed SSE frame. */
export interface Frame {
  id: string | null;
  event: string;
  data: Record<string, unknown>;
}

/** Parse SSE frames from a response body, one at a time. */
export async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  try {
    for (;;) {
      let cut: number;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        let id: string | null = null, event = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) id = line.slice(4);
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data !== "") yield { id, event, data: JSON.parse(data) };
      }
      const r = await reader.read();
      if (r.done) return;
      buf += r.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Open an SSE stream; throws with the body when the answer is not 200. */
export async function openStream(
  base: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<AsyncGenerator<Frame>> {
  const r = await fetch(new URL(path, base), {
    headers: { authorization: `Bearer ${token}`, ...headers },
    ...(signal ? { signal } : {}),
  });
  if (r.status !== 200) throw new Error(`stream ${path}: ${r.status} ${await r.text()}`);
  return frames(r.body!);
}

/** Send a raw HTTP/1.1 request (any Host header, any path, unnormalised) and return the status and body text. */
export async function rawHttp(base: string, head: string, body = ""): Promise<{ status: number; text: string }> {
  const u = new URL(base);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    const enc = new TextEncoder();
    await conn.write(enc.encode(`${head.replace(/\n/g, "\r\n")}\r\nConnection: close\r\n\r\n${body}`));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "0");
    return { status, text: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}
