/**
 * The shared process driver of every CLI lane (docs/reference/providers.md §1): spawns the provider detached in its own process
 * group with stdin closed, splits stdout into lines, keeps stderr in a ring buffer, enforces the idle and session
 * timeouts, and runs the interrupt procedure of docs/reference/control-plane.md §8.5 so that no provider or tool process survives.
 */
import { concatBytes } from "../util/bytes.ts";
import { LaunchError, type ProcessIdentity } from "./types.ts";
import { spawnRetryingBusy } from "../util/spawn.ts";
import {
  aliveRecordedAsync,
  descendantsOf,
  killRecorded,
  listProcesses,
  listProcessesAsync,
  processIdentity,
  type RecordedProcess,
  trySignal,
} from "../util/proc_tree.ts";
import { SESSION_TOKEN_ENV, sweepByEnv } from "../util/containment.ts";

/** A stdout line longer than this is a `protocol_error` (docs/reference/providers.md §1). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Size of the stderr ring buffer. */
export const STDERR_RING_BYTES = 64 * 1024;
/** Delay between SIGTERM and SIGKILL in the interrupt procedure. */
export const KILL_AFTER_TERM_MS = 3000;
/** Largest delay `setTimeout` accepts. */
const MAX_TIMER_MS = 2_147_483_647;

/** The stream idle timeout for a session bound (docs/reference/packet.md §10): `max(120000, timeout + 30000)` ms. */
export function idleTimeoutFor(timeoutMs: number): number {
  return Math.max(120_000, timeoutMs + 30_000);
}

/** How to start one provider process. */
export interface DriverOptions {
  command: string;
  args: string[];
  cwd: string;
  /** Added to (not replacing) the runner's environment. */
  env: Record<string, string>;
  /** Session bound in ms; expiry ends the process with reason `session_timeout`. */
  sessionTimeoutMs: number;
  /** No stdout line for this long ends the process with reason `idle_timeout`. */
  idleTimeoutMs: number;
  maxLineBytes?: number;
  stderrRingBytes?: number;
  killAfterTermMs?: number;
  /** Period of background descendant scans while running (0 disables). Default 2000 ms. */
  scanIntervalMs?: number;
  /** How long to wait for stdout/stderr to close after the process exited. Default 2000 ms. */
  drainMs?: number;
  /** Keep stdin open for {@link ProviderProcess.writeInput} (input transports); default: stdin is closed at start. */
  input?: boolean;
}

/** Why the driver's process ended. */
export type DriverEndReason = "exit" | "idle_timeout" | "session_timeout" | "line_too_long";

/** Final facts about the process, available from {@link ProviderProcess.wait}. */
export interface DriverExit {
  code: number | null;
  signal: Deno.Signal | null;
  reason: DriverEndReason;
  /** The interrupt procedure signalled the process before it exited. */
  interrupted: boolean;
}

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let id: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<void>((resolve) => {
    id = setTimeout(resolve, Math.min(Math.max(0, ms), MAX_TIMER_MS));
  });
  return { promise, cancel: () => clearTimeout(id) };
}

/** Poll until none of the recorded processes is alive (or the bound passes). */
async function waitGone(recorded: Iterable<RecordedProcess>, boundMs: number): Promise<void> {
  const list = [...recorded];
  const until = Date.now() + boundMs;
  while ((await aliveRecordedAsync(list)).length > 0 && Date.now() < until) {
    const d = delay(20);
    await d.promise;
  }
}

/** One live provider process. Iterate {@link lines} once; {@link wait} resolves after exit, drain and clean-up. */
export class ProviderProcess {
  /** pid, process group and start ticks of the provider. */
  readonly identity: ProcessIdentity;
  readonly #child: Deno.ChildProcess;
  readonly #opts: Required<DriverOptions>;
  readonly #decoder = new TextDecoder();
  readonly #recorded = new Map<number, RecordedProcess>();
  #queue: string[] = [];
  #head = 0;
  #linesDone = false;
  #wake: (() => void) | null = null;
  #stderr: Uint8Array[] = [];
  #stderrLen = 0;
  #reason: DriverEndReason = "exit";
  #exited = false;
  #interrupted = false;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #lastLineAt = Date.now();
  #sessionTimer: ReturnType<typeof setTimeout> | undefined;
  #scanTimer: ReturnType<typeof setInterval> | undefined;
  #scanning = false;
  readonly #token: string;
  #stopProcedure: Promise<void> | null = null;
  #stdoutReader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #stderrReader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  readonly #exitStatus: Promise<Deno.CommandStatus>;
  readonly #done: Promise<DriverExit>;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #inputClosed = false;
  #inputChain: Promise<void> = Promise.resolve();

  private constructor(child: Deno.ChildProcess, opts: Required<DriverOptions>, token: string) {
    this.#child = child;
    this.#token = token;
    this.#opts = opts;
    const id = processIdentity(child.pid);
    // A detached child calls setsid() before exec, so it leads its own group.
    this.identity = { pid: child.pid, pgid: child.pid, start_ticks: id.start_ticks };
    if (id.start_ticks !== null) this.#recorded.set(child.pid, { pid: child.pid, startTicks: id.start_ticks });
    const stdoutDone = this.#pumpStdout(child.stdout);
    const stderrDone = this.#pumpStderr(child.stderr);
    this.#sessionTimer = setTimeout(
      () => this.#expire("session_timeout"),
      Math.min(opts.sessionTimeoutMs, MAX_TIMER_MS),
    );
    this.#armIdle();
    if (opts.scanIntervalMs > 0) this.#scanTimer = setInterval(() => this.#scanInBackground(), opts.scanIntervalMs);
    this.#exitStatus = child.status.then((st) => {
      this.#exited = true;
      this.#clearTimers();
      return st;
    });
    this.#done = this.#finish(stdoutDone, stderrDone);
  }

  /** Spawn a provider process; throws {@link LaunchError} when the executable cannot be launched. */
  static spawn(options: DriverOptions): ProviderProcess {
    const opts: Required<DriverOptions> = {
      maxLineBytes: MAX_LINE_BYTES,
      stderrRingBytes: STDERR_RING_BYTES,
      killAfterTermMs: KILL_AFTER_TERM_MS,
      scanIntervalMs: 2000,
      drainMs: 2000,
      input: false,
      ...options,
    };
    let child: Deno.ChildProcess;
    // Inherited by everything the provider starts, so leftovers are found even outside its group (containment.ts).
    const token = crypto.randomUUID();
    try {
      child = spawnRetryingBusy(opts.command, {
        args: opts.args,
        cwd: opts.cwd,
        env: { ...opts.env, [SESSION_TOKEN_ENV]: token },
        stdin: opts.input ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
        detached: true,
      });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        // NotFound is also raised for a missing cwd; name whichever is missing.
        let cwdOk = true;
        try {
          cwdOk = Deno.statSync(opts.cwd).isDirectory;
        } catch {
          cwdOk = false;
        }
        if (!cwdOk) throw new LaunchError(`working directory "${opts.cwd}" does not exist`);
        throw new LaunchError(`executable "${opts.command}" was not found`);
      }
      if (e instanceof Deno.errors.PermissionDenied) {
        throw new LaunchError(`executable "${opts.command}" cannot be run: permission denied`);
      }
      throw new LaunchError(`cannot start "${opts.command}": ${e instanceof Error ? e.message : String(e)}`);
    }
    return new ProviderProcess(child, opts, token);
  }

  /** Stdout lines (without the newline, a trailing `\r` removed), ending when stdout closes. Single consumer. */
  async *lines(): AsyncGenerator<string, void, undefined> {
    while (true) {
      if (this.#head < this.#queue.length) {
        const next = this.#queue[this.#head++]!;
        if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        yield next;
        continue;
      }
      if (this.#linesDone) return;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /**
   * Write one line (a newline is added) to the process's stdin, in call order. Rejects when stdin was not kept open
   * ({@link DriverOptions.input}), is closed, or the process can no longer read it.
   */
  writeInput(line: string): Promise<void> {
    const w = this.#stdinWriter();
    if (w === null) return Promise.reject(new Error("the provider's stdin is closed"));
    const bytes = new TextEncoder().encode(`${line}\n`);
    const write = this.#inputChain.then(() => w.write(bytes));
    this.#inputChain = write.catch(() => {});
    return write;
  }

  /** Close stdin (end of input: the CLI finishes its last turn and exits). Idempotent; never throws. */
  closeInput(): void {
    const w = this.#stdinWriter();
    this.#inputClosed = true;
    if (w === null) return;
    this.#inputChain = this.#inputChain.then(() => w.close()).catch(() => {});
  }

  #stdinWriter(): WritableStreamDefaultWriter<Uint8Array> | null {
    if (!this.#opts.input || this.#inputClosed || this.#exited) return null;
    this.#writer ??= this.#child.stdin.getWriter();
    return this.#writer;
  }

  /** Resolves once the process exited, its output was drained and leftover processes were killed. */
  wait(): Promise<DriverExit> {
    return this.#done;
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /** The last `maxBytes` bytes of stderr as text. */
  stderrTail(maxBytes = 4096): string {
    const all = concatBytes(this.#stderr, this.#stderrLen);
    let start = Math.max(0, all.length - maxBytes);
    // Do not start inside a UTF-8 sequence.
    while (start < all.length && start > 0 && (all[start]! & 0xc0) === 0x80) start++;
    return this.#decoder.decode(all.subarray(start));
  }

  /**
   * The interrupt procedure (docs/reference/control-plane.md §8.5 steps 2–3): record descendants, SIGINT the group, SIGTERM after
   * `graceMs`, SIGKILL `killAfterTermMs` later, then kill recorded descendants still alive. Resolves when all is
   * gone. Concurrent calls share one procedure.
   */
  interrupt(graceMs: number): Promise<void> {
    this.#stopProcedure ??= this.#escalate("SIGINT", graceMs, true);
    return this.#stopProcedure.then(() => this.#done).then(() => {});
  }

  /** Kill the group and every recorded descendant immediately (a second signal). */
  kill(): void {
    if (!this.#exited) this.#interrupted = true;
    this.recordDescendants();
    trySignal(-this.identity.pgid, "SIGKILL");
    killRecorded(this.#recorded.values());
  }

  /** Remember the current descendants (with start ticks) so they can be killed after the provider is gone. */
  recordDescendants(): void {
    for (const p of descendantsOf(this.identity.pid, this.identity.pgid, listProcesses())) {
      if (!this.#recorded.has(p.pid)) this.#recorded.set(p.pid, { pid: p.pid, startTicks: p.startTicks });
    }
  }

  /** The periodic scan: asynchronous (never blocks the event loop) and never more than one in flight. */
  async #scanInBackground(): Promise<void> {
    if (this.#scanning || this.#exited) return;
    this.#scanning = true;
    try {
      await this.#recordAsync();
    } finally {
      this.#scanning = false;
    }
  }

  /** {@link recordDescendants} without blocking the event loop. */
  async #recordAsync(): Promise<void> {
    const procs = await listProcessesAsync();
    for (const p of descendantsOf(this.identity.pid, this.identity.pgid, procs)) {
      if (!this.#recorded.has(p.pid)) this.#recorded.set(p.pid, { pid: p.pid, startTicks: p.startTicks });
    }
  }

  async #escalate(first: "SIGINT" | "SIGTERM", graceMs: number, interrupt: boolean): Promise<void> {
    if (this.#exited) return;
    if (interrupt) this.#interrupted = true;
    await this.#recordAsync();
    trySignal(-this.identity.pgid, first);
    if (await this.#exitWithin(graceMs)) return;
    if (first === "SIGINT") {
      await this.#recordAsync();
      trySignal(-this.identity.pgid, "SIGTERM");
      if (await this.#exitWithin(this.#opts.killAfterTermMs)) return;
    }
    await this.#recordAsync();
    trySignal(-this.identity.pgid, "SIGKILL");
    await this.#exitStatus;
  }

  async #exitWithin(ms: number): Promise<boolean> {
    if (this.#exited) return true;
    const d = delay(ms);
    try {
      return await Promise.race([this.#exitStatus.then(() => true), d.promise.then(() => false)]);
    } finally {
      d.cancel();
    }
  }

  #expire(reason: DriverEndReason): void {
    // An interrupt (or an earlier expiry) already owns the process: keep its reason.
    if (this.#exited || this.#reason !== "exit" || this.#stopProcedure !== null) return;
    this.#reason = reason;
    // Timeouts and protocol errors are not interrupts: terminate, then kill.
    this.#stopProcedure ??= this.#escalate("SIGTERM", this.#opts.killAfterTermMs, false);
  }

  /** One timer for the idle bound; lines only move `#lastLineAt`, and the timer re-arms for the remainder. */
  #armIdle(): void {
    if (this.#exited) return;
    const due = this.#lastLineAt + this.#opts.idleTimeoutMs - Date.now();
    if (due <= 0) {
      this.#expire("idle_timeout");
      return;
    }
    this.#idleTimer = setTimeout(() => this.#armIdle(), Math.min(due, MAX_TIMER_MS));
  }

  #clearTimers(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#sessionTimer);
    clearInterval(this.#scanTimer);
  }

  #push(line: string): void {
    this.#queue.push(line.endsWith("\r") ? line.slice(0, -1) : line);
    this.#lastLineAt = Date.now();
    this.#wake?.();
    this.#wake = null;
  }

  async #pumpStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#stdoutReader = reader;
    const max = this.#opts.maxLineBytes;
    let pending: Uint8Array[] = [];
    let pendingLen = 0;
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        let start = 0;
        while (start <= value.length) {
          const nl = value.indexOf(10, start);
          if (nl < 0) {
            if (start < value.length) {
              pending.push(value.subarray(start));
              pendingLen += value.length - start;
            }
            break;
          }
          const piece = value.subarray(start, nl);
          if (pendingLen + piece.length > max) {
            pendingLen = max + 1;
            break;
          }
          const bytes = pending.length === 0 ? piece : concatBytes([...pending, piece], pendingLen + piece.length);
          pending = [];
          pendingLen = 0;
          this.#push(this.#decoder.decode(bytes));
          start = nl + 1;
        }
        if (pendingLen > max) {
          pending = [];
          this.#expire("line_too_long");
          await reader.cancel().catch(() => {});
          return;
        }
      }
      if (pendingLen > 0) this.#push(this.#decoder.decode(concatBytes(pending, pendingLen)));
    } catch {
      // cancelled during drain
    } finally {
      this.#linesDone = true;
      this.#wake?.();
      this.#wake = null;
    }
  }

  async #pumpStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#stderrReader = reader;
    const ring = this.#opts.stderrRingBytes;
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#stderr.push(value);
        this.#stderrLen += value.length;
        while (this.#stderrLen > ring && this.#stderr.length > 0) {
          const first = this.#stderr[0]!;
          const excess = this.#stderrLen - ring;
          if (first.length <= excess) {
            this.#stderr.shift();
            this.#stderrLen -= first.length;
          } else {
            this.#stderr[0] = first.subarray(excess);
            this.#stderrLen -= excess;
          }
        }
      }
    } catch {
      // cancelled during drain
    }
  }

  async #finish(stdoutDone: Promise<void>, stderrDone: Promise<void>): Promise<DriverExit> {
    const status = await this.#exitStatus;
    if (this.#opts.input && !this.#inputClosed) {
      // The process is gone: release its stdin (the pipe's write end) so no resource outlives it.
      this.#inputClosed = true;
      const w = this.#writer ?? this.#child.stdin.getWriter();
      await this.#inputChain.then(() => w.close()).catch(() => {});
    } else await this.#inputChain;
    await this.#stopProcedure?.catch(() => {});
    // Leftovers: anything still in the provider's group, and recorded descendants that left it (setsid tools).
    await this.#recordAsync();
    trySignal(-this.identity.pgid, "SIGKILL");
    // Only what is alive now can still be alive later: when nothing is, there is nothing to wait for and no further
    // /proc read (a `cat` spawn under scoped permissions).
    const alive = await aliveRecordedAsync(this.#recorded.values());
    for (const p of alive) trySignal(p.pid, "SIGKILL");
    await waitGone(alive, 2000);
    // Whatever carries this session's token is a leftover too: a setsid or double-forked tool, reparented away.
    await sweepByEnv(SESSION_TOKEN_ENV, this.#token, { termGraceMs: 500 }).catch(() => {});
    const pumps = Promise.all([stdoutDone, stderrDone]);
    const d = delay(this.#opts.drainMs);
    const drained = await Promise.race([pumps.then(() => true), d.promise.then(() => false)]);
    d.cancel();
    if (!drained) {
      // An orphan outside our reach still holds the pipes open: stop reading.
      await this.#stdoutReader?.cancel().catch(() => {});
      await this.#stderrReader?.cancel().catch(() => {});
      await pumps;
    }
    return {
      code: status.signal === null ? status.code : null,
      signal: status.signal,
      reason: this.#reason,
      interrupted: this.#interrupted,
    };
  }
}
