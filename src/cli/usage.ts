/**
 * The program's own words (docs/reference/cli.md §1): top-level and group help, the version flags, `help`, and the
 * "did you mean" suggestions for a mistyped command or flag. Light on purpose: main.ts loads it on every start.
 */
import { COMMANDS } from "./registry.ts";
import type { CommandEntry } from "./frame.ts";
import { UsageError } from "../errors.ts";
import { closest } from "../util/edit_distance.ts";
import { BUILTINS, groupCommandsOf, groupsOf, HELP_FLAGS, topWordsOf, VERSION_FLAGS } from "./words.ts";

export { BUILTINS, HELP_FLAGS, VERSION_FLAGS } from "./words.ts";

/** The command groups of the registry (first words of multi-word commands), in help order: `control`, `packet`, … */
export function commandGroups(): string[] {
  return groupsOf(COMMANDS);
}

/** The registered commands of one group, in help order. */
export function groupCommands(group: string): CommandEntry[] {
  return groupCommandsOf(COMMANDS, group);
}

/** Every word that may follow `prompt_runner`: single commands, groups and the built-in words. */
export function topWords(): string[] {
  return topWordsOf(COMMANDS);
}

/** `; did you mean "x"?` for the closest candidate, or "". */
export function didYouMean(word: string, candidates: readonly string[], show = (c: string) => c): string {
  const c = closest(word, candidates);
  return c === null ? "" : `; did you mean "${show(c)}"?`;
}

/** The hint line under a usage error: where the help is. */
export function seeHelp(path: readonly string[] = []): string {
  return `see \`prompt_runner ${[...path, "--help"].join(" ")}\``;
}

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`);
}

/** The program's help: every command, the groups, the built-in words and the global flags. */
export function topHelp(): string {
  const rows: [string, string][] = COMMANDS.map((c) => [c.path.join(" "), c.summary]);
  rows.push(["version", BUILTINS.version!], ["help [GROUP] [COMMAND]", "help for a command or a command group"]);
  return [
    "prompt_runner — run packets of prompts through coding-agent CLIs, verify each against its contract,",
    "and watch and steer a live run from outside it.",
    "",
    "Usage: prompt_runner <command> [args] [flags]",
    "",
    "Commands:",
    ...table(rows),
    "",
    `Command groups (\`prompt_runner <group>\` lists its commands): ${commandGroups().join(", ")}`,
    "Global flags: --help (-h), --version (-V, -v), --json, --color auto|always|never, --verbose",
    "Run `prompt_runner help <command>` or `prompt_runner <command> --help` for a command's flags.",
  ].join("\n") + "\n";
}

/** The help of one command group: its commands and how to get theirs. */
export function groupHelp(group: string): string {
  const rows: [string, string][] = groupCommands(group).map((c) => [c.path.slice(1).join(" "), c.summary]);
  return [
    `Usage: prompt_runner ${group} <command> [args] [flags]`,
    "",
    "Commands:",
    ...table(rows),
    "",
    `Run \`prompt_runner help ${group} <command>\` or \`prompt_runner ${group} <command> --help\` for its flags.`,
  ].join("\n") + "\n";
}

/** The help of a built-in word (`version`, `help`). */
export function builtinHelp(word: string): string {
  const usage = word === "help" ? "help [GROUP] [COMMAND]" : word;
  return `Usage: prompt_runner ${usage}\n\n${BUILTINS[word]}\n`;
}

/**
 * The usage error for argv that names no command: an unknown word, an unknown word after a group, or an unknown
 * top-level flag — each with a suggestion when one is close, and where the help is.
 */
export function unknownCommandError(argv: readonly string[]): UsageError {
  const first = argv[0] ?? "";
  if (first.startsWith("-")) {
    const name = first.split("=")[0]!;
    const flags = [...HELP_FLAGS, ...VERSION_FLAGS].filter((f) => f.startsWith("--"));
    const globalAfter = /^--(json|color|verbose)$/.test(name);
    return new UsageError(
      "unknown_flag",
      `unknown flag "${name}"${
        globalAfter ? " before the command" : didYouMean(name.slice(2), flags.map((f) => f.slice(2)), (f) => `--${f}`)
      }`,
      { hints: [globalAfter ? `flags follow the command: prompt_runner <command> ${name}` : seeHelp()] },
    );
  }
  const groups = commandGroups();
  if (groups.includes(first)) {
    const sub = argv[1] ?? "";
    const subs = groupCommands(first).map((c) => c.path.slice(1).join(" "));
    return new UsageError(
      "unknown_command",
      `unknown command "${first} ${sub}"${didYouMean(sub, subs, (s) => `${first} ${s}`)}`,
      { hints: [seeHelp([first])] },
    );
  }
  return new UsageError("unknown_command", `unknown command "${first}"${didYouMean(first, topWords())}`, {
    hints: [seeHelp()],
  });
}

/** A group followed by a flag but no command (`control --json`): which commands it has, and where the help is. */
export function groupFlagError(group: string, flag: string): UsageError {
  const subs = groupCommands(group).map((c) => c.path.slice(1).join(" "));
  return new UsageError(
    "missing_argument",
    `${group} needs a command before "${flag.split("=")[0]}": ${subs.join(", ")}`,
    { hints: [seeHelp([group])] },
  );
}

/** `version` (or `--version`, `-V`, `-v`) takes only the global output flags; anything else is a usage error. */
export function versionArgsError(args: readonly string[]): UsageError | null {
  const extra = args.find((a, i) =>
    a !== "--json" && a !== "--verbose" && !/^--color(=|$)/.test(a) && args[i - 1] !== "--color"
  );
  if (extra === undefined) return null;
  return extra.startsWith("-")
    ? new UsageError("unknown_flag", `unknown flag "${extra.split("=")[0]}" for version`, {
      hints: [seeHelp(["version"])],
    })
    : new UsageError("unexpected_argument", `unexpected argument "${extra}"`, { hints: [seeHelp(["version"])] });
}
