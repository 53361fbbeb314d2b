/**
 * prompt_runner entry point: parse argv, pick the subcommand, scope permissions to what it declares, run it, and
 * map errors to exit codes (docs/reference/cli.md §4).
 */
import { COMMANDS, findCommand } from "./src/cli/registry.ts";
import {
  type CommandContext,
  commandHelp,
  denoOut,
  interruptedBySignal,
  parseCommandArgs,
  scopePermissions,
  type TextOut,
} from "./src/cli/frame.ts";
import {
  builtinHelp,
  BUILTINS,
  commandGroups,
  groupFlagError,
  groupHelp,
  HELP_FLAGS,
  seeHelp,
  topHelp,
  unknownCommandError,
  VERSION_FLAGS,
  versionArgsError,
} from "./src/cli/usage.ts";
import { EXIT, Exit, PromptRunnerError, UsageError } from "./src/errors.ts";
import { CAPABILITIES, SDK_COMPAT, VERSION } from "./src/version.ts";
import { detachWatchersAtStop } from "./src/control/watch_release.ts";
import { ciColourOff, ciEnvironment, denoEnv } from "./src/util/ci_env.ts";
import { guardWorkflowCommands } from "./src/util/text_out.ts";
import { escapeControlKeepLines } from "./src/util/escape.ts";

function errorLines(e: PromptRunnerError | Error, verbose: boolean): string {
  // Control characters other than newline and tab (ESC, CR, BEL, …) that a message may carry are shown escaped: an
  // error never drives the terminal.
  return escapeControlKeepLines(errorText(e, verbose));
}

function errorText(e: PromptRunnerError | Error, verbose: boolean): string {
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
  let stdout: TextOut = denoOut(Deno.stdout);
  let stderr: TextOut = denoOut(Deno.stderr);
  const json = argv.includes("--json");
  const verbose = argv.includes("--verbose");
  const fail = (e: unknown) => reportError(e, json, verbose, stdout, stderr);
  if (argv.length === 0 || HELP_FLAGS.includes(argv[0]!)) {
    stdout.write(topHelp());
    return argv.length === 0 ? 2 : 0;
  }
  if (VERSION_FLAGS.includes(argv[0]!) || argv[0] === "version") {
    if (argv.slice(1).some((a) => HELP_FLAGS.includes(a))) {
      stdout.write(builtinHelp("version"));
      return 0;
    }
    const extra = versionArgsError(argv.slice(1));
    if (extra) return fail(extra);
    stdout.write(
      json
        ? JSON.stringify({ version: VERSION, sdk_compat: SDK_COMPAT, capabilities: CAPABILITIES }) + "\n"
        : `prompt_runner ${VERSION}\n`,
    );
    return 0;
  }
  if (argv[0] === "help") {
    const words = argv.slice(1).filter((a) => !a.startsWith("-"));
    if (words.length === 0) {
      stdout.write(topHelp());
      return 0;
    }
    if (words.length === 1 && Object.hasOwn(BUILTINS, words[0]!)) {
      stdout.write(builtinHelp(words[0]!));
      return 0;
    }
    if (words.length === 1 && commandGroups().includes(words[0]!)) {
      stdout.write(groupHelp(words[0]!));
      return 0;
    }
    const named = findCommand(words);
    if (!named || named.rest.length > 0) return fail(unknownCommandError(words));
    const { spec } = await named.entry.load();
    stdout.write(commandHelp(named.entry, spec));
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    // A group alone (or with --help) lists its commands: exit 0 when help was asked for, 2 when a command is missing.
    const next = argv[1];
    if (commandGroups().includes(argv[0]!) && (next === undefined || next.startsWith("-"))) {
      const asked = argv.slice(1).some((a) => HELP_FLAGS.includes(a));
      // A flag but no command is a two-line error, not the group's help.
      if (!asked && next !== undefined) return fail(groupFlagError(argv[0]!, next));
      stdout.write(groupHelp(argv[0]!));
      return asked ? 0 : 2;
    }
    return fail(unknownCommandError(argv));
  }
  const { entry, rest } = found;
  try {
    const { spec } = await entry.load();
    scopePermissions(entry.permissions);
    const { flags, positionals } = parseCommandArgs(spec, rest);
    if (flags.help) {
      stdout.write(commandHelp(entry, spec));
      return 0;
    }
    const colorFlag = (flags.color as string | undefined) ?? "auto";
    const noColor = (() => {
      try {
        // Under CI (docs/ci.md) colour is off unless FORCE_COLOR or --color always forces it.
        return (Deno.env.get("NO_COLOR") ?? "") !== "" || ciColourOff((n) => Deno.env.get(n));
      } catch {
        return true;
      }
    })();
    // Under GitHub Actions no line this process writes is a workflow command unless it minted it (docs/ci.md).
    if (ciEnvironment(denoEnv)?.kind === "github") {
      stdout = guardWorkflowCommands(stdout);
      stderr = guardWorkflowCommands(stderr);
      const guarded = [stdout, stderr];
      globalThis.addEventListener("unload", () => guarded.forEach((o) => o.flush?.()));
    }
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
      commands: COMMANDS,
    };
    const code = await spec.run(ctx);
    // A follower stopped by Ctrl-C ends like any interrupted command (docs/exit_codes.md).
    return code === 0 && interruptedBySignal() ? Exit.interrupted : code;
  } catch (e) {
    // A usage error is two lines: what was wrong, and where the command's help is (not the whole help).
    if (e instanceof UsageError && !e.hints.length) e.hints.push(seeHelp(entry.path));
    return fail(e);
  }
}

if (import.meta.main) {
  // Every command ends in Deno.exit, so a watcher is never closed (closing one whose thread is stuck opening a FIFO
  // would freeze the process before the exit).
  detachWatchersAtStop();
  Deno.exit(await main(Deno.args));
}
