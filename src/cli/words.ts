/**
 * The program's words that do not need the command table loaded: the version and help flags, the built-in words, and
 * the groups of a given table. src/cli/usage.ts applies them to the registry; `completions` to the table it is given
 * (importing the registry from a command module would be a file cycle: the registry loads the command modules).
 */
import type { CommandEntry } from "./frame.ts";

/** Top-level flags that print the version (`-v` is the sdk's spelling, `-V` the common one). */
export const VERSION_FLAGS: readonly string[] = ["--version", "-V", "-v"];
/** Top-level flags that print the help. */
export const HELP_FLAGS: readonly string[] = ["--help", "-h"];

/** Words the program takes besides the registered commands, with their summaries. */
export const BUILTINS: Readonly<Record<string, string>> = {
  version: "print the version (also --version, -V, -v)",
  help: "help for a command or a command group: help [GROUP] [COMMAND]",
};

/** The command groups of a table (first words of multi-word commands), in table order: `control`, `packet`, … */
export function groupsOf(table: readonly CommandEntry[]): string[] {
  const out: string[] = [];
  for (const c of table) if (c.path.length > 1 && !out.includes(c.path[0]!)) out.push(c.path[0]!);
  return out;
}

/** The commands of one group of a table, in table order. */
export function groupCommandsOf(table: readonly CommandEntry[], group: string): CommandEntry[] {
  return table.filter((c) => c.path.length > 1 && c.path[0] === group);
}

/** Every word that may follow `prompt_runner`: single commands, groups and the built-in words. */
export function topWordsOf(table: readonly CommandEntry[]): string[] {
  const out: string[] = [];
  for (const c of table) if (!out.includes(c.path[0]!)) out.push(c.path[0]!);
  return [...out, ...Object.keys(BUILTINS)];
}
