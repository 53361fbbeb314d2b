/**
 * `control serve [TARGET…] [--listen HOST:PORT] [--tokens FILE] [--cert F --key F] [--insecure-listen]
 * [--allow-host NAME]… [--write-rate N] [--nice N] [--json]` (docs/reference/http_api.md): the control plane over HTTP.
 */
import { type CommandContext, type CommandSpec, untilInterrupted } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { resolveTarget } from "../target.ts";
import { listRegistry } from "../../workspace/registry.ts";
import type { ServeTarget } from "../serve/api.ts";
import { isLoopbackHost } from "../serve/guard.ts";
import { DEFAULT_NICE, lowerPriority, parseNice } from "../serve/priority.ts";
import { generateToken, TokenFile, tokensFileExposure, TokenTable } from "../serve/tokens.ts";
import { list, printJson, str } from "./_common.ts";
import { defaultAuthor } from "../../util/common.ts";

/** `HOST:PORT`, `HOST`, `:PORT` or `[v6]:PORT` → parts (default 127.0.0.1, port 0 = a free one). */
export function parseListen(value: string | undefined): { hostname: string; port: number } {
  if (value === undefined) return { hostname: "127.0.0.1", port: 0 };
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]]*))(?::(\d{1,5}))?$/.exec(value.trim());
  const port = m?.[3] === undefined ? 0 : Number(m[3]);
  if (!m || port > 65535) {
    throw new UsageError("invalid_value", `--listen does not take "${value}"; expected HOST:PORT, HOST or :PORT`);
  }
  return { hostname: m[1] ?? (m[2] || "127.0.0.1"), port };
}

function targetId(label: string, taken: Set<string>): string {
  let base = label.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^[._-]+/, "").slice(0, 100) || "target";
  if (!/^[A-Za-z0-9]/.test(base)) base = `t${base}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** The targets to serve: those named, else every registered workspace plus the current directory's packet. */
export async function serveTargets(positionals: string[]): Promise<ServeTarget[]> {
  const out: ServeTarget[] = [];
  const taken = new Set<string>();
  const roots = new Set<string>();
  const add = (t: { kind: "packet" | "workspace"; label: string; packetDir: string; storeRoot: string }) => {
    if (roots.has(t.storeRoot)) return;
    roots.add(t.storeRoot);
    out.push({ id: targetId(t.label, taken), kind: t.kind, packetDir: t.packetDir, storeRoot: t.storeRoot });
  };
  if (positionals.length > 0) {
    for (const p of positionals) add(await resolveTarget([p], {}, { idsFollow: false, createStore: false }));
    return out;
  }
  for (const entry of await listRegistry()) {
    try {
      add(await resolveTarget([entry.workspace], {}, { idsFollow: false, createStore: false }));
    } catch { /* a stale registry entry or a workspace with no packet: not served */ }
  }
  try {
    await Deno.stat(`${Deno.cwd()}/prompt_runner_packet.md`);
    add(await resolveTarget([Deno.cwd()], {}, { idsFollow: false, createStore: false }));
  } catch { /* the current directory is not a packet */ }
  if (out.length === 0) {
    throw new UsageError(
      "missing_argument",
      "nothing to serve: no TARGET given, no registered workspace, no packet here",
      {
        hints: ["pass a packet directory, a workspace manifest or a workspace id"],
      },
    );
  }
  return out;
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET…] [--listen HOST:PORT] [--tokens FILE] [--cert F --key F] [--insecure-listen] [--allow-host NAME]… " +
    "[--write-rate N] [--nice N] [--json]",
  description:
    "Serve the control plane over HTTP (JSON API under /api/v1/, events as Server-Sent Events) for the given " +
    "packets or workspaces, default every registered workspace plus the current directory's packet. Prints the URL " +
    "and, without --tokens, a fresh token with role amend named after you. Listens on 127.0.0.1 and a free port " +
    "unless told; another address needs --cert/--key (TLS) or --insecure-listen. Runs at a lower priority than the " +
    "runs it serves (--nice). Runs until Ctrl-C.",
  flags: {
    listen: {
      type: "string",
      value: "HOST:PORT",
      description: "address to listen on (default 127.0.0.1, a free port)",
    },
    tokens: { type: "string", value: "FILE", description: "tokens file: name, role (read, steer, amend) and token" },
    cert: { type: "string", value: "F", description: "TLS certificate chain (PEM)" },
    key: { type: "string", value: "F", description: "TLS private key (PEM)" },
    "insecure-listen": { type: "boolean", description: "allow a non-loopback address without TLS" },
    "allow-host": {
      type: "string",
      multiple: true,
      value: "NAME",
      description: "another Host header name to answer (e.g. a DNS name of this machine)",
    },
    "write-rate": { type: "string", value: "N", description: "writes a minute per token (default 60)" },
    nice: {
      type: "string",
      value: "N",
      description: `the server's nice value, 0 (as started) to 19 (default ${DEFAULT_NICE}: the runs come first)`,
    },
  },
  async run(ctx: CommandContext): Promise<number> {
    const { hostname, port } = parseListen(str(ctx, "listen"));
    const cert = str(ctx, "cert"), key = str(ctx, "key");
    if ((cert === undefined) !== (key === undefined)) {
      throw new UsageError(
        "missing_argument",
        `--${cert === undefined ? "cert" : "key"} is needed with --${cert === undefined ? "key" : "cert"}`,
      );
    }
    if (!isLoopbackHost(hostname) && cert === undefined && ctx.flags["insecure-listen"] !== true) {
      throw new UsageError(
        "insecure_listen",
        `${hostname} is not a loopback address: tokens would cross the network in clear`,
        {
          hints: ["give --cert F --key F to serve HTTPS, or --insecure-listen to accept it"],
        },
      );
    }
    const rateText = str(ctx, "write-rate");
    const rate = rateText === undefined ? 60 : Number(rateText);
    if (!Number.isInteger(rate) || rate < 1 || rate > 100_000) {
      throw new UsageError("invalid_value", `--write-rate does not take "${rateText}"; expected a whole number from 1`);
    }
    const niceText = str(ctx, "nice");
    const nice = parseNice(niceText);
    if (nice === null) {
      throw new UsageError("invalid_value", `--nice does not take "${niceText}"; expected a whole number from 0 to 19`);
    }
    const readPem = async (flag: string, path: string) => {
      try {
        return await Deno.readTextFile(path);
      } catch (e) {
        throw new UsageError("invalid_value", `--${flag} ${path}: ${(e as Error).message}`);
      }
    };
    const tls = cert !== undefined && key !== undefined
      ? { cert: await readPem("cert", cert), key: await readPem("key", key) }
      : undefined;
    const tokensFile = str(ctx, "tokens");
    const generated = tokensFile === undefined ? generateToken() : null;
    // A tokens file is read again whenever it changes: taking a token out of it revokes that token at once.
    const tokens = generated !== null
      ? await TokenTable.of([[generated, { name: defaultAuthor(), role: "amend" as const }] as const])
      : await TokenFile.open(tokensFile!, (line) => ctx.stderr.write(`${line}\n`));
    if (tokensFile !== undefined) {
      const exposed = await tokensFileExposure(tokensFile);
      if (exposed !== null) ctx.stderr.write(`warning: ${exposed}\n`);
    }
    const targets = await serveTargets(ctx.positionals);
    // Before the server starts: the threads the runtime starts for it inherit the priority.
    const priority = await lowerPriority(nice);
    if (priority.nice === null) {
      ctx.stderr.write(`warning: could not lower the server's priority (--nice ${nice}): ${priority.error}\n`);
    }
    const { startServer } = await import("../serve/server.ts");
    const server = await startServer({
      targets,
      tokens,
      hostname,
      port,
      ...(tls ? { tls } : {}),
      allowHosts: list(ctx, "allow-host"),
      writesPerMinute: rate,
    });
    const announce = () => {
      if (ctx.json) printJson(ctx, { url: server.url, token: generated, nice: priority.nice });
      else {
        ctx.stdout.write(`Serving ${targets.map((t) => t.id).join(", ")} at ${server.url}\n`);
        if (priority.nice !== null && priority.nice > 0) ctx.stdout.write(`Priority: nice ${priority.nice}\n`);
        if (generated !== null) ctx.stdout.write(`Token (role amend, as ${defaultAuthor()}): ${generated}\n`);
        else ctx.stdout.write(`Tokens: ${tokensFile}\n`);
      }
    };
    await untilInterrupted(async (signal) => {
      let stopped: () => void = () => {};
      const stop = new Promise<void>((r) => stopped = r);
      const shut = () => void server.shutdown().then(stopped);
      const term = () => shut();
      try {
        Deno.addSignalListener("SIGTERM", term);
      } catch { /* no signal support */ }
      signal.addEventListener("abort", shut, { once: true });
      // Announced only once SIGINT and SIGTERM are handled: a supervisor that stops the server the moment it reads
      // the line gets a clean shutdown (exit 0), never the signal's default death.
      announce();
      await Promise.race([server.finished, stop]);
      try {
        Deno.removeSignalListener("SIGTERM", term);
      } catch { /* none installed */ }
    });
    return 0;
  },
};
