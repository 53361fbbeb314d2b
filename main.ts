/**
 * prompt_runner entry point: parse argv, pick the subcommand, scope permissions to what it declares, run it, and
 * map errors to exit codes (docs/reference/cli.md §4).
 */
import { COMMANDS, findCommand } from "./src/cli/registry.ts";
import {
  type CommandContext,
  type CommandEntry,
  commandHelp,
  type CommandSpec,
  denoOut,
  parseCommandArgs,
  scopePermissions,
  type TextOut,
} from "./src/cli/frame.ts";
import { EXIT, PromptRunnerError, UsageError } from "./src/errors.ts";
import { CAPABILITIES, VERSION } from "./src/version.ts";
import { detachWatchersAtStop } from "./src/control/watch_release.ts";

function topHelp(): string {
  const lines = [
    "prompt_runner — run packets of prompts through coding-agent CLIs, verify each against its contract,",
    "and watch and steer a live run from outside it.",
    "",
    "Usage: prompt_runner <command> [args] [flags]",
    "",
    "Commands:",
  ];
  const width = Math.max(...COMMANDS.map((c) => c.path.join(" ").length));
  for (const c of COMMANDS) lines.push(`  ${c.path.join(" ").padEnd(width)}  ${c.summary}`);
  lines.push(
    `  ${"version".padEnd(width)}  print the version`,
    `  ${"help [COMMAND]".padEnd(width)}  help for a command`,
    "",
    "Global flags: --help, --version, --json, --color auto|always|never, --verbose",
  );
  return lines.join("\n") + "\n";
}

function errorLines(e: PromptRunnerError | Error, verbose: boolean): string {
  const lines = [`error: ${e.message}`];
  if (e instanceof PromptRunnerError) { for (const h of e.hints) lines.push(`  ${h}`); }
  if (verbose) {
    let cause: unknown = e.cause;
    while (cause) {
      lines.push(`  caused by: ${cause instanceof Error ? cause.message : String(cause)}`);
      cause = cause instanceof Error ? cause.cause : undefined;
    }
    if (!(e instanceof PromptRunnerError) && e.stack) lines.push(e.stack);
  }
  return lines.join("\n") + "\n";
}

function reportError(e: unknown, json: boolean, verbose: boolean, stdout: TextOut, stderr: TextOut): number {
  const err = e instanceof Error ? e : new Error(String(e));
  const code = err instanceof PromptRunnerError ? err.code : "internal_error";
  const exit = err instanceof PromptRunnerError ? err.exit : EXIT.internal_error;
  stderr.write(errorLines(err, verbose));
  if (json) {
    const hint = err instanceof PromptRunnerError && err.hints.length ? err.hints.join("\n") : null;
    const details = err instanceof PromptRunnerError ? err.details : {};
    stdout.write(JSON.stringify({ error: { code, message: err.message, hint, exit, ...details } }) + "\n");
  }
  return exit;
}

/** Run the CLI with the given argv; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const stdout = denoOut(Deno.stdout);
  const stderr = denoOut(Deno.stderr);
  const json = argv.includes("--json");
  const verbose = argv.includes("--verbose");
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
    stdout.write(topHelp());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === "--version" || argv[0] === "version") {
    stdout.write(
      json ? JSON.stringify({ version: VERSION, capabilities: CAPABILITIES }) + "\n" : `prompt_runner ${VERSION}\n`,
    );
    return 0;
  }
  if (argv[0] === "help") {
    const found = findCommand(argv.slice(1));
    if (!found) {
      stdout.write(topHelp());
      return argv.length > 1 ? 2 : 0;
    }
    const { spec } = await found.entry.load();
    stdout.write(commandHelp(found.entry, spec));
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    return reportError(
      new UsageError("unknown_command", `unknown command "${argv.filter((a) => !a.startsWith("-")).join(" ")}"`, {
        hints: ["run: prompt_runner --help"],
      }),
      json,
      verbose,
      stdout,
      stderr,
    );
  }
  const { entry, rest } = found;
  let spec: CommandSpec | undefined;
  try {
    ({ spec } = await entry.load());
    scopePermissions(entry.permissions);
    const { flags, positionals } = parseCommandArgs(spec, rest);
    if (flags.help) {
      stdout.write(commandHelp(entry, spec));
      return 0;
    }
    const colorFlag = (flags.color as string | undefined) ?? "auto";
    const noColor = (() => {
      try {
        return (Deno.env.get("NO_COLOR") ?? "") !== "";
      } catch {
        return true;
      }
    })();
    const color = colorFlag === "always" || (colorFlag === "auto" && stdout.isTerminal && !noColor);
    const ctx: CommandContext = {
      path: entry.path,
      flags,
      positionals,
      json: flags.json === true,
      verbose: flags.verbose === true,
      color,
      stdout,
      stderr,
      argv: [...entry.path, ...rest],
    };
    return await spec.run(ctx);
  } catch (e) {
    const exit = reportError(e, json, verbose, stdout, stderr);
    if (e instanceof UsageError && spec && !json) stderr.write("\n" + commandHelp(entry as CommandEntry, spec));
    return exit;
  }
}

if (import.meta.main) {
  // Every command ends in Deno.exit, so a watcher is never closed (closing one whose thread is stuck opening a FIFO
  // would freeze the process before the exit).
  detachWatchersAtStop();
  Deno.exit(await main(Deno.args));
}
