/**
 * Running the CLI in a pseudo-terminal, as a person at a terminal does: `script` gives the command a TTY on stdin,
 * stdout and stderr, and the program runs as the README says (`deno run -A main.ts`, no `--no-prompt`). Deno then
 * asks on the terminal before any access a command's scoped permissions lack; {@link permissionPrompt} finds that
 * question in the output.
 */
import { childEnv, MAIN } from "./cli.ts";

/** What one command printed on its terminal, and how it ended. */
export interface TerminalResult {
  code: number;
  /** stdout and stderr as the terminal showed them, ANSI sequences removed. */
  output: string;
  /** Whether the test stopped it (it printed a permission prompt, or outlived `timeoutMs`). */
  stopped: boolean;
}

/** Options of {@link runInTerminal}. */
export interface TerminalOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Stop the command after this long (default 90 s): a command waiting at a prompt never ends by itself. */
  timeoutMs?: number;
  /**
   * For a command that runs until interrupted: called once with the output as soon as `ready` matches it; when it
   * resolves, Ctrl-C is typed on the terminal (the terminal sends SIGINT, as for a person pressing it).
   */
  interact?: { ready: RegExp; then: (output: string) => Promise<void> };
}

/** Whether `script` (util-linux) is available. */
export function hasScript(): boolean {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Remove ANSI escape sequences and carriage returns. */
export function plain(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replaceAll("\r", "");
}

/** Deno's permission question (`Deno requests sys access to "hostname".`) in a terminal's output, or null. */
export function permissionPrompt(output: string): string | null {
  const m = /Deno requests [^\n]*access[^\n]*/.exec(output);
  return m ? m[0] : null;
}

/**
 * Run `prompt_runner ARGS…` in a pseudo-terminal. The command is stopped as soon as a permission prompt appears
 * (nobody will answer it) or after `timeoutMs`.
 */
export async function runInTerminal(args: string[], opts: TerminalOptions = {}): Promise<TerminalResult> {
  const line = ["exec", Deno.execPath(), "run", "-A", MAIN, ...args].map(shellQuote).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    clearEnv: true,
    env: childEnv(opts.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const timer = setTimeout(stop, opts.timeoutMs ?? 90_000);
  const dec = new TextDecoder();
  let output = "";
  let interacting: Promise<void> | null = null;
  const interact = opts.interact;
  const readOut = (async () => {
    for await (const chunk of child.stdout) {
      output += dec.decode(chunk, { stream: true });
      if (permissionPrompt(plain(output))) stop();
      else if (interact && interacting === null && interact.ready.test(plain(output))) {
        interacting = interact.then(plain(output)).finally(async () => {
          const w = child.stdin.getWriter();
          await w.write(new Uint8Array([3])).catch(() => {});
          w.releaseLock();
        });
      }
    }
  })();
  const errText = new Response(child.stderr).text();
  try {
    const status = await child.status;
    await readOut;
    if (interacting !== null) await interacting;
    output += await errText;
    return { code: status.code, output: plain(output), stopped };
  } finally {
    clearTimeout(timer);
    await child.stdin.close().catch(() => {});
  }
}
