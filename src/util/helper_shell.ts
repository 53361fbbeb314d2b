/**
 * A run's helper shell: one long-lived `sh`, started once per run in its own session, that runs the runner's
 * read-only helper commands (the baseline's `git status` at every prompt start, the verifier's git queries) one at a
 * time. A spawn from the runner itself — a large process — costs far more CPU than the command it runs; the shell is
 * small, so its fork is cheap, and the runner only writes a line to a pipe (docs/bench.md `scale`).
 *
 * Protocol: each request is one line of shell (`K='v' … 'cmd' 'arg' … </dev/null 2>"$E"`, every word single-quoted),
 * answered on stdout by the command's own output, then `\0<token> <exit code>\n`, its stderr when the code is not 0,
 * and `\0<token>\n` (the token is random per shell, so no output can forge the frame). A request whose words hold a
 * newline or NUL is not sent (the caller runs the command the ordinary way). A request past its deadline takes the
 * shell's whole group down (SIGKILL: its commands only read, so there is nothing to clean up) and the next request
 * starts a new shell; the shell exits when the runner closes its stdin or dies.
 *
 * A shell reads its input one byte per system call (`read` must not consume past the line), so a request's length is
 * its cost before the command even starts — about a microsecond per byte here, ~170 for a baseline's `git status`
 * (docs/bench.md, "Per-prompt cost"). The first time a request's text is seen it is defined as a shell function and
 * called; the same request again sends only the function's name. The names are per shell (a new shell starts with
 * none) and at most {@link MAX_NAMED} are defined; past that, requests go as written.
 */
import { sendSignal } from "./signal.ts";
import { meterSpawn } from "./read_meter.ts";
import { type HelperResult, mayRunQuietly } from "./helper.ts";

const SCRIPT = "E=$(mktemp) || exit 1\ntrap 'rm -f \"$E\"' EXIT\n" +
  'while IFS= read -r line; do eval "$line"; r=$?; printf \'\\0%s %d\\n\' "$PR_TOKEN" "$r"; ' +
  '[ "$r" -eq 0 ] || cat "$E"; printf \'\\0%s\\n\' "$PR_TOKEN"; done\n';

/** Most distinct requests a shell keeps as functions (a run repeats a few: its repos' baselines, its git queries). */
const MAX_NAMED = 64;

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** One request of {@link HelperShell.run}. */
export interface ShellRequest {
  command: string;
  args: string[];
  /** Set for the command only. */
  env?: Record<string, string>;
  timeoutMs: number;
}

/** The long-lived shell (see the module note). */
export class HelperShell {
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #token = "";
  #buf = new Uint8Array(65536);
  #len = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** The shell could not be spawned (e.g. a narrow `--allow-run` without `sh`): serve nothing, callers spawn. */
  #unavailable = false;
  /** Requests defined as functions in the running shell, request text → function name. */
  #named = new Map<string, string>();
  /** Shells started (the first, and one after each deadline). */
  starts = 0;
  /** Bytes of requests written to the shells (test seam: a repeated request is sent as a short call). */
  sentBytes = 0;

  /** Whether `req` can go through the shell (no newline or NUL in any word). */
  static accepts(req: ShellRequest): boolean {
    const words = [req.command, ...req.args, ...Object.entries(req.env ?? {}).flat()];
    return words.every((w) => !/[\n\0]/.test(w)) &&
      Object.keys(req.env ?? {}).every((k) => /^[A-Z_][A-Z0-9_]*$/.test(k));
  }

  /** Run one command (requests are served in order); null when the shell is closed or cannot start. */
  run(req: ShellRequest): Promise<HelperResult | null> {
    const next = this.#queue.then(() => this.#serve(req));
    this.#queue = next.catch(() => {});
    return next;
  }

  #start(): boolean {
    this.#token = crypto.randomUUID().replaceAll("-", "");
    if (!mayRunQuietly("sh")) return false; // a narrow --allow-run without sh: never ask, spawn the ordinary way
    try {
      meterSpawn("helper_shell");
      this.#child = new Deno.Command("sh", {
        args: ["-c", SCRIPT],
        env: { PR_TOKEN: this.#token },
        stdin: "piped",
        stdout: "piped",
        stderr: "null",
        detached: true,
      }).spawn();
    } catch {
      return false;
    }
    this.#child.unref();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.getReader();
    this.#len = 0;
    this.#named = new Map();
    this.starts++;
    return true;
  }

  async #serve(req: ShellRequest): Promise<HelperResult | null> {
    if (this.#closed || this.#unavailable) return null;
    if (!this.#child && !this.#start()) {
      this.#unavailable = true;
      return null;
    }
    const env = Object.entries(req.env ?? {}).map(([k, v]) => `${k}=${quote(v)} `).join("");
    const line = this.#line(`${env}${[req.command, ...req.args].map(quote).join(" ")} </dev/null 2>"$E"`);
    meterSpawn(req.command);
    // At the deadline the answer is given up at once: a child that left the group may still hold the pipe open.
    let expire!: () => void;
    const expired = new Promise<"expired">((r) => (expire = () => r("expired")));
    const deadline = setTimeout(expire, req.timeoutMs);
    try {
      const bytes = new TextEncoder().encode(line);
      this.sentBytes += bytes.length;
      await this.#writer!.write(bytes);
      const frame = await Promise.race([this.#readFrame(), expired]);
      if (frame === "expired") {
        this.#drop();
        const none = new Uint8Array();
        return { success: false, code: null, signal: "SIGKILL", stdout: none, stderr: none, timedOut: true };
      }
      if (frame === null) {
        this.#drop();
        return null; // the shell died: the caller runs the command the ordinary way
      }
      const ok = frame.code === 0;
      return { success: ok, code: frame.code, signal: null, stdout: frame.out, stderr: frame.err, timedOut: false };
    } catch {
      this.#drop();
      return null;
    } finally {
      clearTimeout(deadline);
    }
  }

  /** The line that runs `command` in the current shell: its function's name once defined (see the module note). */
  #line(command: string): string {
    const known = this.#named.get(command);
    if (known !== undefined) return `${known}\n`;
    if (this.#named.size >= MAX_NAMED) return `${command}\n`;
    const name = `_pr_${this.#named.size}`;
    this.#named.set(command, name);
    return `${name}() { ${command}; }; ${name}\n`;
  }

  /** Read up to the closing frame: the command's stdout, exit code and stderr; null at end of stream. */
  async #readFrame(): Promise<{ out: Uint8Array; code: number; err: Uint8Array } | null> {
    const enc = new TextEncoder();
    const open = enc.encode(`\0${this.#token} `);
    const close = enc.encode(`\0${this.#token}\n`);
    let at = -1;
    let scanned = 0;
    for (;;) {
      const buf = this.#buf.subarray(0, this.#len);
      if (at < 0) {
        at = indexOf(buf, open, Math.max(0, scanned - open.length));
        scanned = at >= 0 ? at + open.length : buf.length;
      }
      if (at >= 0) {
        const end = indexOf(buf, close, Math.max(at + open.length, scanned - close.length));
        if (end >= 0) {
          const nl = buf.indexOf(10, at + open.length);
          const code = Number(new TextDecoder().decode(buf.subarray(at + open.length, nl)));
          const frame = { out: buf.slice(0, at), code, err: buf.slice(nl + 1, end) };
          const rest = buf.slice(end + close.length);
          this.#buf = new Uint8Array(Math.max(65536, rest.length));
          this.#buf.set(rest);
          this.#len = rest.length;
          return frame;
        }
        scanned = buf.length;
      }
      const r = await this.#reader!.read();
      if (r.done) return null;
      if (this.#len + r.value.length > this.#buf.length) {
        // Doubling: a large answer (a status of many paths) is copied O(size) times in all, not once per chunk.
        const grown = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + r.value.length));
        grown.set(this.#buf.subarray(0, this.#len));
        this.#buf = grown;
      }
      this.#buf.set(r.value, this.#len);
      this.#len += r.value.length;
    }
  }

  #kill(): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    if (!sendSignal(-pid, "SIGKILL")) sendSignal(pid, "SIGKILL");
  }

  #drop(): void {
    this.#kill();
    this.#reader?.cancel().catch(() => {});
    this.#writer?.close().catch(() => {});
    this.#child = null;
    this.#writer = null;
    this.#reader = null;
  }

  /** Close stdin (the shell exits after the command it is running) and wait for it, at most `graceMs`. */
  async close(graceMs = 2000): Promise<void> {
    this.#closed = true;
    await this.#queue;
    const child = this.#child;
    if (!child) return;
    this.#child = null;
    await this.#writer?.close().catch(() => {});
    await this.#reader?.cancel().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), graceMs)));
    const how = await Promise.race([child.status, late]);
    clearTimeout(timer);
    if (how === "late") {
      if (!sendSignal(-child.pid, "SIGKILL")) sendSignal(child.pid, "SIGKILL");
      await child.status;
    }
  }
}

let active: HelperShell | null = null;

/** Start serving helper commands through a shell (the runner, for one run); returns it for {@link closeHelperShell}. */
export function openHelperShell(): HelperShell {
  active = new HelperShell();
  return active;
}

/** The shell of the current run, or null outside a run. */
export function activeHelperShell(): HelperShell | null {
  return active;
}

/** Stop serving through `shell` and close it. */
export async function closeHelperShell(shell: HelperShell): Promise<void> {
  if (active === shell) active = null;
  await shell.close();
}
