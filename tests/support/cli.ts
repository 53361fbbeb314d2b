/**
 * Black-box CLI helper: spawns `prompt_runner` as a user would, with exactly the permissions its subcommand declares
 * in src/cli/registry.ts, and returns exit code, stdout and stderr.
 */
import { findCommand } from "../../src/cli/registry.ts";
import { denoFlagsFor } from "../../src/cli/frame.ts";

/** Absolute path of main.ts. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** Absolute path of the repository root. */
export const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Result of one CLI invocation. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@link runCli}. */
export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Override the permission flags (default: exactly the subcommand's set). */
  denoFlags?: string[];
  stdin?: string;
}

/**
 * Variables a CI service sets that may change what the CLI prints (colour, heartbeats, annotations). Every child
 * spawned here runs without them, so a test's output is the same on a laptop and in CI.
 */
export const CI_VARIABLES = ["CI", "GITHUB_ACTIONS", "GITLAB_CI"] as const;

/** The environment of a spawned CLI: this process's, minus {@link CI_VARIABLES}, with `NO_COLOR=1` and `extra`. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Deno.env.toObject();
  for (const name of CI_VARIABLES) delete env[name];
  return { ...env, NO_COLOR: "1", ...extra };
}

/** Deno flags for the subcommand named by argv (exactly its declared permissions). */
export function permissionFlags(args: string[]): string[] {
  const found = findCommand(args);
  return found ? denoFlagsFor(found.entry.permissions) : [];
}

/** The command options of one CLI invocation (exactly the subcommand's permissions, {@link childEnv}). */
export function cliCommandOptions(args: string[], opts: CliOptions = {}): Deno.CommandOptions {
  const flags = opts.denoFlags ?? permissionFlags(args);
  return {
    args: ["run", "--quiet", "--no-prompt", ...flags, MAIN, ...args],
    cwd: opts.cwd ?? ROOT,
    clearEnv: true,
    env: childEnv(opts.env),
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  };
}

/** Run the CLI to completion. */
export async function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), cliCommandOptions(args, opts)).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Spawn the CLI without waiting (live runs driven from a second process). */
export function spawnCli(args: string[], opts: CliOptions = {}): Deno.ChildProcess {
  const { stdin: _stdin, ...rest } = opts;
  return new Deno.Command(Deno.execPath(), cliCommandOptions(args, rest)).spawn();
}

/** Parse stdout as one JSON document, with a helpful failure message. */
export function parseJsonOut(r: CliResult): Record<string, unknown> {
  try {
    return JSON.parse(r.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.code}):\n${r.stdout}\n--- stderr ---\n${r.stderr}`);
  }
}

/**
 * Read `reader` up to and including its first newline (or its end): what a process printed first, such as a server's
 * ready line. The reader stays open for the rest.
 */
export async function readFirstLine(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let buf = "";
  while (!buf.includes("\n")) {
    const r = await reader.read();
    if (r.done) break;
    buf += r.value;
  }
  return buf;
}
