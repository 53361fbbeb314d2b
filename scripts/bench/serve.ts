/**
 * `control serve` (docs/reference/http_api.md): the server runs as the real CLI in its own process; clients are this
 * process's fetch streams; everything shares the machine's cores.
 * - Latency: an event recorded by a live plane in this process (record, boundary — the runner's path) → the SSE
 *   client here has its frame, one clock; p50/p99 over single events spaced apart.
 * - Load: a full-speed simulated `prompt_runner run` (its own process, one prompt streaming 100,000 messages at
 *   zero delay) followed by 0, 1, 10 and 50 SSE clients, the client counts alternated within each repeat: the run's own
 *   duration (its `run_opened` → `run_finished` instants) as a ratio to 0 clients, the server's peak RSS, and its CPU
 *   (from the first client, and from the first frame: streaming alone). One server serves every run of the case, as
 *   a dashboard left open does: it has streamed one run before the first measured one (its code compiled and
 *   optimised), and its RSS at the start of the first and the last run shows whether memory stays flat across runs.
 * - Cold server: the same run with 10 clients against a server started for it (its first stream: the JavaScript
 *   still cold), alternated with 0 clients; reported beside the headline, which is the warm server's.
 * The clients scan the bytes for the `id:` lines (no text decoding, no per-frame strings), so that they take as little
 * of the cores as they can: the figures are the server's cost, not this process's string handling.
 * Checked: every client received every seq once, in order, then the `end` frame with `completed`; every run exits 0.
 */
import { check, median, pairedRatio, percentile, quick, round, sized } from "./_harness.ts";
import { streamPacket } from "./_stream_packet.ts";
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";
import { acquireLease } from "../../src/store/lease.ts";
import { benchPlane } from "./_plane.ts";
import { storePaths, storeRootForPacket } from "../../src/store/paths.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function cli(args: string[], stdout: "piped" | "null" = "null"): Deno.ChildProcess {
  const flags = denoFlagsFor(findCommand(args)!.entry.permissions);
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", ...flags, MAIN, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout,
    stderr: "piped",
  }).spawn();
}

interface Server {
  url: string;
  /** The next client's token, in turn. */
  token(): string;
  child: Deno.ChildProcess;
  stop(): Promise<void>;
}

/** Readers the clients share out: one token holds at most 32 streams (`MAX_STREAMS_PER_TOKEN`), a case opens 50. */
const READERS = 4;

async function serve(dirs: string[]): Promise<Server> {
  const tokens = Array.from({ length: READERS }, (_, i) => `bench-reader-${i}-${crypto.randomUUID()}`);
  const file = await Deno.makeTempFile({ suffix: ".tokens.json" });
  await Deno.chmod(file, 0o600);
  await Deno.writeTextFile(
    file,
    JSON.stringify({ tokens: tokens.map((token, i) => ({ name: `reader${i}`, role: "read", token })) }),
  );
  const child = cli(["control", "serve", ...dirs, "--json", "--tokens", file], "piped");
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const r = await reader.read();
    if (r.done) check(false, `control serve exited before listening: ${await new Response(child.stderr).text()}`);
    buf += r.value;
  }
  const { url } = JSON.parse(buf.slice(0, buf.indexOf("\n")));
  const errText = new Response(child.stderr).text();
  let next = 0;
  return {
    url,
    token: () => tokens[next++ % tokens.length]!,
    child,
    async stop() {
      child.kill("SIGTERM");
      await reader.cancel().catch(() => {});
      const s = await child.status;
      await Deno.remove(file).catch(() => {});
      check(s.code === 0, `control serve exited ${s.code}: ${await errText}`);
    },
  };
}

const NL = 0x0a;
const CR = 0x0d;
const ID = new TextEncoder().encode("id: ");
const END = new TextEncoder().encode("event: end");
const DATA = new TextEncoder().encode("data: ");

/** Whether `buf` holds `word` at `at`. */
function startsAt(buf: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at + word.length > buf.length) return false;
  for (let k = 0; k < word.length; k++) if (buf[at + k] !== word[k]) return false;
  return true;
}

/**
 * An SSE stream's bytes, fed in pieces of any size: counts the `id:` lines (each must follow the one before by one)
 * and keeps the `end` frame's data; no text is decoded but that.
 */
class SseScan {
  count = 0;
  last = 0;
  inOrder = true;
  end: Record<string, unknown> | null = null;
  #endNext = false;
  /** The incomplete last line of the previous piece (a line may span two pieces). */
  #carry: Uint8Array | null = null;

  constructor(private readonly onFrame?: (seq: number) => void) {}

  feed(piece: Uint8Array): void {
    let buf = piece;
    if (this.#carry !== null) {
      buf = new Uint8Array(this.#carry.length + piece.length);
      buf.set(this.#carry);
      buf.set(piece, this.#carry.length);
      this.#carry = null;
    }
    let i = 0;
    for (;;) {
      const j = buf.indexOf(NL, i);
      if (j < 0) {
        if (i < buf.length) this.#carry = buf.slice(i);
        return;
      }
      if (startsAt(buf, i, ID)) {
        let seq = 0;
        for (let k = i + ID.length; k < j; k++) {
          const d = buf[k]! - 0x30;
          check(d >= 0 && d <= 9, "an id: line that is not a number");
          seq = seq * 10 + d;
        }
        if (seq !== this.last + 1 && this.last !== 0) this.inOrder = false;
        this.last = seq;
        this.count += 1;
        this.onFrame?.(seq);
      } else if (startsAt(buf, i, END)) this.#endNext = true;
      else if (this.#endNext && startsAt(buf, i, DATA)) {
        this.end = JSON.parse(new TextDecoder().decode(buf.subarray(i + DATA.length, j)));
        this.#endNext = false;
      }
      i = j + 1;
    }
  }
}

/** Where an HTTP head ends (the offset of its blank line's CRLFCRLF), or -1 when `data` does not hold it all. */
function headEnd(data: Uint8Array): number {
  for (let k = data.indexOf(CR); k >= 0 && k + 3 < data.length; k = data.indexOf(CR, k + 1)) {
    if (data[k + 1] === NL && data[k + 2] === CR && data[k + 3] === NL) return k;
  }
  return -1;
}

/**
 * One SSE client: counts frames; resolves with the seqs seen and the end frame. It speaks HTTP/1.1 over its own
 * socket and reads into one large buffer (no fetch body stream, whose per-read machinery cost this process more CPU
 * than the server spent), and scans the bytes for the `id:` lines ({@link SseScan}): the figures are the server's
 * cost, not this process's. The checks are the same: every `id:` counted, each following the one before by one.
 */
async function client(srv: Server, path: string, onFrame?: (seq: number) => void) {
  const url = new URL(path, srv.url);
  check(url.protocol === "http:", `the bench's client speaks plain HTTP, not ${url.protocol}`);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  // A stream that never ends fails the case instead of hanging it.
  const timer = setTimeout(() => conn.close(), 300_000);
  try {
    const request = `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n` +
      `Authorization: Bearer ${srv.token()}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`;
    const out = new TextEncoder().encode(request);
    for (let at = 0; at < out.length;) at += await conn.write(out.subarray(at));
    const scan = new SseScan(onFrame);
    const buf = new Uint8Array(1 << 18);
    let held = new Uint8Array(0); // bytes read but not yet consumed (the head, a chunk-size line)
    let chunked = false, headDone = false, left = 0; // left: data bytes of the current chunk still to come
    let ended = false;
    while (!ended) {
      const n = await conn.read(buf);
      if (n === null) break;
      let data = buf.subarray(0, n);
      if (held.length > 0) {
        const joined = new Uint8Array(held.length + n);
        joined.set(held);
        joined.set(data, held.length);
        data = joined;
        held = new Uint8Array(0);
      }
      let i = 0;
      if (!headDone) {
        const cut = headEnd(data);
        if (cut < 0) {
          held = data.slice();
          continue;
        }
        const head = new TextDecoder().decode(data.subarray(0, cut));
        check(/^HTTP\/1\.1 200 /.test(head), `stream answered ${head.split("\r\n")[0]}`);
        chunked = /^transfer-encoding:\s*chunked/im.test(head);
        headDone = true;
        i = cut + 4;
      }
      while (i < data.length) {
        if (!chunked) {
          scan.feed(data.subarray(i));
          i = data.length;
        } else if (left > 0) {
          const take = Math.min(left, data.length - i);
          scan.feed(data.subarray(i, i + take));
          i += take;
          left -= take;
        } else {
          // A chunk's size line ("<hex>\r\n"), after the CRLF that ends the chunk before it.
          let k = i;
          if (data[k] === CR && data[k + 1] === NL) k += 2;
          const eol = data.indexOf(NL, k);
          if (eol < 0) {
            held = data.slice(i);
            break;
          }
          const size = parseInt(new TextDecoder().decode(data.subarray(k, eol)).trim(), 16);
          check(Number.isFinite(size), "a malformed chunk size");
          i = eol + 1;
          if (size === 0) {
            ended = true;
            break;
          }
          left = size;
        }
      }
    }
    return { count: scan.count, last: scan.last, inOrder: scan.inOrder, end: scan.end };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
}

/** A process's `/proc` status file, read through `cat` (Deno reads `/proc` only with every permission). */
async function procText(pid: number, file: "status" | "stat"): Promise<string> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/${file}`], stdout: "piped", stderr: "null" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

/**
 * A process's peak RSS, sampled every 100 ms by one long-lived shell that reads `/proc/<pid>/status` with its
 * builtins: a process spawned per sample cost this process more CPU than the server it measured, on the same cores.
 */
class RssSampler {
  #peak = 0;
  readonly #child: Deno.ChildProcess;
  readonly #reading: Promise<void>;

  constructor(pid: number) {
    const status = `/proc/${pid}/status`;
    const script = `while [ -r ${status} ]; do while read -r k v _; do case "$k" in VmRSS:) echo "$v";; esac; done ` +
      `< ${status}; sleep 0.1; done`;
    const child = new Deno.Command("sh", { args: ["-c", script], stdin: "null", stdout: "piped", stderr: "null" })
      .spawn();
    this.#child = child;
    this.#reading = (async () => {
      let rest = "";
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
        const lines = (rest + text).split("\n");
        rest = lines.pop()!;
        for (const l of lines) if (/^\d+$/.test(l)) this.#peak = Math.max(this.#peak, Number(l) / 1024);
      }
    })();
  }

  /** Stop sampling; the peak in MB (0 if no sample was taken). */
  async stop(): Promise<number> {
    try {
      this.#child.kill("SIGTERM");
    } catch { /* already ended */ }
    await this.#child.status;
    await this.#reading;
    return this.#peak;
  }
}

async function rssMb(pid: number): Promise<number> {
  const m = /VmRSS:\s+(\d+) kB/.exec(await procText(pid, "status"));
  return m ? Number(m[1]) / 1024 : 0;
}

/** User + system CPU of a process so far, in ms (clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await procText(pid, "stat")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function latency(root: string, samples: number): Promise<{ p50: number; p99: number }> {
  const dir = await streamPacket(root, 1);
  const storeRoot = storeRootForPacket(dir);
  const runId = "20261201T230000Z-SERVE1";
  const lease = await acquireLease(storeRoot, { runId, packetDir: dir, argv: ["bench"] });
  const plane = await benchPlane(storeRoot, { runId, packetDir: dir, live: true });
  const ctx = { prompt_id: "01", attempt: 1, stream: "initial" as const, provider: "simulated", session_id: "s" };
  plane.boundary();
  await plane.sync();
  const srv = await serve([dir]);
  const waiting = new Map<number, () => void>();
  const got = client(srv, "/api/v1/targets/" + dir.slice(dir.lastIndexOf("/") + 1) + "/events", (seq) => {
    waiting.get(seq)?.();
  });
  const out: number[] = [];
  try {
    let seen: Promise<void> = Promise.resolve();
    for (let i = 0; i < samples; i++) {
      let mark = (): void => {};
      seen = new Promise<void>((r) => mark = r);
      const t0 = performance.now();
      const seq = plane.record({ type: "message_streamed", data: { delta: `sample ${i} ` } }, ctx).seq;
      waiting.set(seq, mark);
      plane.boundary();
      await seen;
      out.push(performance.now() - t0);
      waiting.delete(seq);
      await new Promise((r) => setTimeout(r, 15)); // spaced: single events, not a batch
    }
    await plane.close("completed", null);
    const r = await got;
    check(r.end?.status === "completed", `the latency stream ended with ${JSON.stringify(r.end)}`);
    check(r.inOrder, "the latency stream skipped a seq");
  } finally {
    await lease.release();
    await srv.stop();
  }
  return { p50: percentile(out, 50), p99: percentile(out, 99) };
}

/** One full-speed run of `dir` (one of `srv`'s targets) followed by `clients` SSE clients; its figures. */
async function loaded(srv: Server, dir: string, clients: number, messages: number) {
  const id = dir.slice(dir.lastIndexOf("/") + 1);
  let peak = await rssMb(srv.child.pid);
  const base = peak;
  check(base > 0, "the server's RSS could not be read");
  // The server's CPU over the run only: what it spent starting up is not the clients' cost.
  const cpuBefore = await cpuMs(srv.child.pid);
  const sampler = new RssSampler(srv.child.pid);
  const run = cli(["run", dir]);
  const runErr = new Response(run.stderr).text();
  try {
    const snap = storePaths(storeRootForPacket(dir)).snapshot;
    for (let i = 0; i < 4000; i++) {
      try {
        await Deno.stat(snap);
        break;
      } catch { /* not yet */ }
      await new Promise((r) => setTimeout(r, 5));
    }
    // The server's CPU from the first frame a client receives: what streaming costs per event, without what a first
    // client costs once (the stream's modules loaded and compiled, the connections set up).
    let streaming: Promise<number> | null = null;
    const first = () => streaming ??= cpuMs(srv.child.pid);
    const streams = Array.from(
      { length: clients },
      (_, i) => client(srv, `/api/v1/targets/${id}/events`, i === 0 ? first : undefined),
    );
    const status = await run.status;
    check(status.code === 0, `run exited ${status.code}: ${(await runErr).slice(-400)}`);
    const results = await Promise.all(streams);
    const events = await Deno.readTextFile(storePaths(storeRootForPacket(dir)).events);
    const lines = events.trimEnd().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string; at: string });
    const opened = lines.find((l) => l.type === "run_opened")!, finished = lines.at(-1)!;
    check(finished.type === "run_finished", "the run's stream did not end with run_finished");
    check(lines.filter((l) => l.type === "message_streamed").length >= messages, "the run streamed fewer messages");
    for (const r of results) {
      check(
        r.count === finished.seq && r.last === finished.seq && r.inOrder,
        `a client got ${r.count}/${finished.seq}`,
      );
      check(r.end?.status === "completed", `a client's stream ended with ${JSON.stringify(r.end)}`);
    }
    const cpuEnd = await cpuMs(srv.child.pid);
    const cpu = cpuEnd - cpuBefore;
    const streamingCpu = streaming === null ? 0 : cpuEnd - await streaming;
    check(Number.isFinite(cpu) && cpu >= 0, "the server's CPU time could not be read");
    const sampled = await sampler.stop();
    check(sampled > 0, "the server's RSS was not sampled during the run");
    peak = Math.max(peak, sampled);
    return {
      runMs: Date.parse(finished.at) - Date.parse(opened.at),
      peakMb: peak,
      baseMb: base,
      events: finished.seq,
      serverCpuMs: cpu,
      streamingCpuMs: streamingCpu,
    };
  } finally {
    await sampler.stop();
  }
}

/** {@link loaded} against a server started for the one run (its first stream: cold). */
async function loadedCold(root: string, clients: number, messages: number) {
  const dir = await streamPacket(root, messages);
  const srv = await serve([dir]);
  try {
    return await loaded(srv, dir, clients, messages);
  } finally {
    await srv.stop();
  }
}

/** The machine's 1-minute load average (the figures are only as good as the machine was idle). */
async function loadAverage(): Promise<number> {
  const out = await new Deno.Command("cat", { args: ["/proc/loadavg"], stdout: "piped", stderr: "null" }).output();
  return Number(new TextDecoder().decode(out.stdout).split(" ")[0]);
}

/** Run the serve benchmark. */
export async function bench(): Promise<Record<string, number | string>> {
  const root = await Deno.makeTempDir({ prefix: "pr-bench-serve-" });
  const loadStart = await loadAverage();
  try {
    const lat = await latency(root, sized(200, 60));
    const counts = [0, 1, 10, 50];
    // 100,000 messages: a full-speed run of ~1.1–1.4 s on a fast 2-core machine. At 30,000 (~0.45 s) the repeats'
    // spread (the 1-client ratio 0.95–1.15 over six runs of the case) was as wide as the 10-client target's margin
    // (docs/bench.md, "control serve").
    const messages = sized(100_000, 5_000);
    const runs = new Map<
      number,
      { runMs: number; peakMb: number; baseMb: number; events: number; serverCpuMs: number; streamingCpuMs: number }[]
    >();
    // Each repeat runs every client count once, in a rotated order; a slowdown is the median over repeats of the
    // n-client run against the same repeat's 0-client run (the machine's drift between repeats cancels).
    const repeats = 7;
    // Every packet up front: the server serves them all (its targets are fixed when it starts).
    const warmup = await streamPacket(root, messages);
    const dirs: string[] = [];
    for (let k = 0; k < repeats * counts.length; k++) dirs.push(await streamPacket(root, messages));
    const srv = await serve([warmup, ...dirs]);
    const rssAtStart: number[] = [];
    try {
      await loaded(srv, warmup, 1, messages);
      for (let r = 0; r < repeats; r++) {
        const order = counts.map((_, i) => counts[(i + r) % counts.length]!);
        for (const [i, n] of order.entries()) {
          rssAtStart.push(await rssMb(srv.child.pid));
          const dir = dirs[r * counts.length + i]!;
          runs.set(n, [...(runs.get(n) ?? []), await loaded(srv, dir, n, messages)]);
        }
      }
    } finally {
      await srv.stop();
    }
    const cold = new Map<number, number[]>();
    for (let r = 0; r < 5; r++) {
      for (const n of r % 2 === 0 ? [0, 10] : [10, 0]) {
        cold.set(n, [...(cold.get(n) ?? []), (await loadedCold(root, n, messages)).runMs]);
      }
    }
    const runMs = (n: number) => median(runs.get(n)!.map((x) => x.runMs));
    const paired = (by: Map<number, number[]>, n: number) => pairedRatio(by.get(n)!, by.get(0)!);
    const runMsBy = new Map([...runs].map(([n, xs]) => [n, xs.map((x) => x.runMs)]));
    const figures: Record<string, number | string> = {
      serve_sse_latency_p50_ms: round(lat.p50, 2),
      serve_sse_latency_p99_ms: round(lat.p99, 2),
      serve_run_events: runs.get(0)![0]!.events,
      serve_run_0_clients_ms: round(runMs(0), 0),
    };
    for (const n of [1, 10, 50]) {
      figures[`serve_run_${n}_clients_ms`] = round(runMs(n), 0);
      figures[`serve_slowdown_${n}_clients_ratio`] = round(paired(runMsBy, n), 3);
    }
    figures.serve_cold_server_run_0_clients_ms = round(median(cold.get(0)!), 0);
    figures.serve_cold_server_run_10_clients_ms = round(median(cold.get(10)!), 0);
    figures.serve_cold_server_slowdown_10_clients_ratio = round(paired(cold, 10), 3);
    figures.serve_rss_server_first_run_start_mb = round(rssAtStart[0]!, 1);
    figures.serve_rss_server_last_run_start_mb = round(rssAtStart.at(-1)!, 1);
    for (const n of counts) {
      figures[`serve_rss_peak_${n}_clients_mb`] = round(Math.max(...runs.get(n)!.map((x) => x.peakMb)), 1);
      figures[`serve_rss_growth_${n}_clients_mb`] = round(median(runs.get(n)!.map((x) => x.peakMb - x.baseMb)), 1);
      figures[`serve_server_cpu_${n}_clients_ms`] = round(median(runs.get(n)!.map((x) => x.serverCpuMs)), 0);
      figures[`serve_server_cpu_per_event_${n}_clients_us`] = round(
        median(runs.get(n)!.map((x) => (1000 * x.serverCpuMs) / x.events)),
        1,
      );
      if (n > 0) {
        figures[`serve_server_cpu_streaming_per_event_${n}_clients_us`] = round(
          median(runs.get(n)!.map((x) => (1000 * x.streamingCpuMs) / x.events)),
          1,
        );
      }
    }
    figures.serve_load_average_start = round(loadStart, 2);
    figures.serve_load_average_end = round(await loadAverage(), 2);
    figures.target = "SSE p50 ≤ 10 ms, p99 ≤ 50 ms; 10 clients slow the run ≤ 15 % (a server left running); " +
      "server memory flat" +
      (quick() ? " (quick run: smaller stream)" : "");
    return figures;
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}
