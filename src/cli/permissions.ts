/**
 * The permission sets subcommands keep (docs/reference/cli.md §6). src/cli/registry.ts assigns one to each command; the detached
 * start reads {@link RUNNER} here (not through the registry, which loads the command modules) for its child.
 */
import type { Permission } from "./frame.ts";

/** Commands that only read files and the environment. */
export const READ_ONLY: Permission[] = ["read", "env"];
/** Read-only commands that also read system facts (host name, process table). */
export const OBSERVE: Permission[] = ["read", "env", "sys"];
/** The runner: `run`, `start`, `repair`, … */
export const RUNNER: Permission[] = ["read", "write", "run", "env", "sys"];
