/**
 * Run one verification process under a deadline with bounded, merged output capture (docs/reference/contract.md §4 points 4–6).
 * The child gets its own process group so the deadline can take down everything it started.
 */
import { sendSignal } from "../util/signal.ts";
import { spawnRetryingBusy } from "../util/spawn.ts";

/** Output kept per command: the last 1 MiB. */
const OUTPUT_CAP_BYTES = 1024 * 1024;
/** Grace between SIGTERM and SIGKILL of the process group. */
const KILL_GRACE_MS = 3000;
/** How long to wait for pipes to close after the leader exited before cleaning up the group. */
const DRAIN_GRACE_MS = 2000;

/** What to run. `argv[0]` is an executable path or name resolvable by the OS. */
export interface BoundedRun {
  argv: string[];
  cwd: string;
  /** Added to the inherited environment. */
  env: Record<string, string>;
  timeoutMs: number;
  /** Byte cap for the kept output tail (default 1 MiB). */
  maxOutputBytes?: number;
  /** SIGTERM→SIGKILL grace (default 3 s). */
  killGraceMs?: number;
  /** Stops the run early (the runner was interrupted): the group gets SIGTERM, then SIGKILL after the grace. */
  signal?: AbortSignal;
}

/** The outcome of a bounded run. */
export interface BoundedResult {
  /**
   * `exited`: the process ended on its own; `timeout`: the deadline fired; `cancelled`: the signal stopped it (or it
   * was aborted before it could start); `launch_error`: it never started.
   */
  outcome: "exited" | "timeout" | "cancelled" | "launch_error";
  code: number | null;
  signal: string | null;
  /** The kept output tail, decoded as UTF-8. */
  output: string;
  /** Bytes dropped from the front because of the cap. */
  droppedBytes: number;
  durationMs: number;
  /** Launch error message. */
  error?: string;
}

/** A byte ring that keeps only the last `cap` bytes of everything pushed into it. */
export class TailBuffer {
  #chunks: Uint8Array[] = [];
  #size = 0;
  /** Bytes dropped from the front so far. */
  dropped = 0;
  constructor(readonly cap: number) {}

  /** Append a chunk, dropping from the front to stay within the cap. */
  push(chunk: Uint8Array): void {
    if (chunk.byteLength >= this.cap) {
      this.dropped += this.#size + chunk.byteLength - this.cap;
      this.#chunks = [chunk.slice(chunk.byteLength - this.cap)];
      this.#size = this.cap;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    while (this.#size > this.cap) {
      const first = this.#chunks[0]!;
      const excess = this.#size - this.cap;
      if (first.byteLength <= excess) {
        this.#chunks.shift();
        this.#size -= first.byteLength;
        this.dropped += first.byteLength;
      } else {
        this.#chunks[0] = first.slice(excess);
        this.#size -= excess;
        this.dropped += excess;
      }
    }
  }

  /** The kept bytes. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#size);
    let off = 0;
    for (const c of this.#chunks) {
      out.set(c, off);
      off += c.byteLength;
    }
    return out;
  }
}

/** Process groups of verification commands still running (pid of each group leader). */
const running = new Set<number>();

/**
 * SIGKILL the group of every verification command still running: the second Ctrl-C, just before the runner exits
 * (a group left behind would outlive the run).
 */
export function killRunningCommands(): void {
  for (const pid of running) killGroup(pid, "SIGKILL");
}

/** Signal the group, else the leader. `sendSignal` also works under a narrow `--allow-run` (via `kill`). */
function killGroup(pid: number, signal: Deno.Signal): void {
  if (!sendSignal(-pid, signal)) sendSignal(pid, signal);
}

async function pump(stream: ReadableStream<Uint8Array>, sink: TailBuffer, stop: Promise<void>): Promise<void> {
  const reader = stream.getReader();
  const stopped = stop.then(() => null);
  try {
    while (true) {
      const r = await Promise.race([reader.read(), stopped]);
      if (r === null || r.done) break;
      sink.push(r.value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Run `argv` directly (never through a shell) in its own process group, stdin closed, stdout and stderr merged in
 * arrival order into a tail buffer. On the deadline (or when `signal` aborts) the group gets SIGTERM, then SIGKILL after
 * the grace.
 */
export async function runBounded(run: BoundedRun): Promise<BoundedResult> {
  const started = performance.now();
  const buf = new TailBuffer(run.maxOutputBytes ?? OUTPUT_CAP_BYTES);
  if (run.signal?.aborted) {
    return { outcome: "cancelled", code: null, signal: null, output: "", droppedBytes: 0, durationMs: 0 };
  }
  let child: Deno.ChildProcess;
  try {
    child = spawnRetryingBusy(run.argv[0]!, {
      args: run.argv.slice(1),
      cwd: run.cwd,
      env: run.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    });
  } catch (e) {
    return {
      outcome: "launch_error",
      code: null,
      signal: null,
      output: "",
      droppedBytes: 0,
      durationMs: Math.round(performance.now() - started),
      error: launchReason(e),
    };
  }
  running.add(child.pid);
  let timedOut = false;
  let cancelled = false;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = () => {
    killGroup(child.pid, "SIGTERM");
    killTimer ??= setTimeout(() => killGroup(child.pid, "SIGKILL"), run.killGraceMs ?? KILL_GRACE_MS);
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    terminate();
  }, run.timeoutMs);
  const onAbort = () => {
    if (timedOut) return;
    cancelled = true;
    terminate();
  };
  run.signal?.addEventListener("abort", onAbort, { once: true });
  let release!: () => void;
  const stop = new Promise<void>((r) => (release = r));
  const pumps = Promise.all([pump(child.stdout, buf, stop), pump(child.stderr, buf, stop)]);
  const status = await child.status;
  clearTimeout(deadline);
  run.signal?.removeEventListener("abort", onAbort);
  const stopped = timedOut || cancelled;
  // Grandchildren may still hold the pipes; give them a moment, then clean up the group and stop reading.
  const drainTimer = setTimeout(() => {
    killGroup(child.pid, "SIGKILL");
    release();
  }, stopped ? 200 : DRAIN_GRACE_MS);
  await pumps;
  clearTimeout(drainTimer);
  if (killTimer !== undefined) clearTimeout(killTimer);
  if (stopped) killGroup(child.pid, "SIGKILL");
  running.delete(child.pid);
  return {
    outcome: timedOut ? "timeout" : cancelled ? "cancelled" : "exited",
    code: status.code,
    signal: status.signal ?? null,
    output: new TextDecoder().decode(buf.bytes()),
    droppedBytes: buf.dropped,
    durationMs: Math.round(performance.now() - started),
  };
}

function launchReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/^Failed to spawn '[^']*': /, "");
}
