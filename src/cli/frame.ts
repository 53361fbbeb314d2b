/**
 * The command frame: typed flag specs, help text, the command context, and permission scoping. Every subcommand is
 * a {@link CommandSpec} in its own module under src/cli/; src/cli/registry.ts lists them with their permissions.
 */
import { UsageError } from "../errors.ts";
import type { TextOut } from "../util/mod.ts";
import { closest } from "../util/edit_distance.ts";

export { denoOut, type TextOut } from "../util/text_out.ts";

/** A Deno permission a subcommand may keep (docs/reference/cli.md §6). */
export type Permission = "read" | "write" | "run" | "net" | "env" | "sys";

/** One flag of a subcommand. */
export interface FlagSpec {
  type: "boolean" | "string";
  short?: string;
  multiple?: boolean;
  /** Shown in help, e.g. `N` or `MODE`. */
  value?: string;
  /** The fixed set of values the flag takes, when it has one (offered by `completions`). */
  values?: readonly string[];
  description: string;
}

/** Parsed flags: booleans, strings, or string lists for `multiple`. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** What a command's `run` receives. */
export interface CommandContext {
  /** The command path, e.g. `["control", "status"]`. */
  readonly path: string[];
  readonly flags: FlagValues;
  readonly positionals: string[];
  readonly json: boolean;
  readonly verbose: boolean;
  /** Colour allowed on stdout (TTY, NO_COLOR unset or empty, `--color` not `never`; `always` forces). */
  readonly color: boolean;
  readonly stdout: TextOut;
  readonly stderr: TextOut;
  /** The original argv after the command path (for records such as run.pid `argv`). */
  readonly argv: string[];
  /** The command table (src/cli/registry.ts), for commands about commands (`completions`). */
  readonly commands: readonly CommandEntry[];
}

/** A subcommand's definition. `run` returns the exit code. */
export interface CommandSpec {
  /** Synopsis after the program and command path, e.g. `[TARGET] [IDS…] [flags]`. */
  usage: string;
  /** One paragraph shown under the synopsis. */
  description: string;
  flags: Record<string, FlagSpec>;
  run(ctx: CommandContext): Promise<number>;
}

/** A registry entry: light metadata available before the command module loads. */
export interface CommandEntry {
  path: string[];
  summary: string;
  permissions: Permission[];
  load(): Promise<{ spec: CommandSpec }>;
}

/** Flags every command accepts (docs/reference/cli.md §1). */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  help: { type: "boolean", short: "h", description: "show help for this command" },
  json: { type: "boolean", description: "machine-readable output on stdout" },
  color: { type: "string", value: "auto|always|never", description: "colour on stdout (default auto)" },
  verbose: { type: "boolean", description: "add the cause chain to errors" },
};

/**
 * Parse argv for one command; unknown flags and bad values are usage errors (exit 2). Supports `--name value`,
 * `--name=value`, `-x`, repeatable flags, and `--` (everything after it is positional). A small strict parser of
 * our own: `node:util` would pull Node compatibility into every cold start.
 */
export function parseCommandArgs(
  spec: CommandSpec,
  argv: string[],
): { flags: FlagValues; positionals: string[] } {
  const all: Record<string, FlagSpec> = { ...GLOBAL_FLAGS, ...spec.flags };
  const byShort = new Map<string, string>();
  for (const [name, f] of Object.entries(all)) if (f.short) byShort.set(f.short, name);
  const flags: FlagValues = {};
  const positionals: string[] = [];
  const set = (name: string, f: FlagSpec, value: string | boolean) => {
    if (f.multiple) {
      const prev = flags[name];
      flags[name] = [...(Array.isArray(prev) ? prev : []), String(value)];
    } else flags[name] = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      if (eq >= 0) inline = arg.slice(eq + 1);
    } else if (arg.startsWith("-") && arg.length === 2 && arg !== "-") {
      name = byShort.get(arg.slice(1));
      if (name === undefined) throw new UsageError("unknown_flag", `unknown flag "${arg}"`);
    } else {
      positionals.push(arg);
      continue;
    }
    const f = all[name];
    if (!f) throw new UsageError("unknown_flag", `unknown flag "--${name}"${flagSuggestion(name, Object.keys(all))}`);
    if (f.type === "boolean") {
      if (inline !== undefined) throw new UsageError("invalid_value", `--${name} takes no value`);
      set(name, f, true);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("-") && next.length > 1 && !/^-\d/.test(next))) {
        throw new UsageError("missing_argument", `--${name} needs a value${f.value ? ` (${f.value})` : ""}`);
      }
      value = next;
      i++;
    }
    set(name, f, value);
  }
  const color = flags.color;
  if (color !== undefined && color !== "auto" && color !== "always" && color !== "never") {
    throw new UsageError("invalid_value", `--color does not take "${color}"; allowed: always, auto, never`);
  }
  return { flags, positionals };
}

/** `; did you mean "--x"?` for the flag closest to a mistyped one (`--dryrun` → `--dry-run`), or "". */
export function flagSuggestion(name: string, names: readonly string[]): string {
  const c = closest(name, names);
  return c === null ? "" : `; did you mean "--${c}"?`;
}

/** Help text for one command. */
export function commandHelp(entry: CommandEntry, spec: CommandSpec): string {
  const lines = [
    `Usage: prompt_runner ${entry.path.join(" ")} ${spec.usage}`.trimEnd(),
    "",
    spec.description,
    "",
    "Flags:",
  ];
  const all = { ...spec.flags, ...GLOBAL_FLAGS };
  const rows = Object.entries(all).map(([name, f]) => {
    const left = `${f.short ? `-${f.short}, ` : "    "}--${name}${f.type === "string" ? ` ${f.value ?? "VALUE"}` : ""}`;
    return [left, f.description + (f.multiple ? " (repeatable)" : "")] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length));
  for (const [l, d] of rows) lines.push(`  ${l.padEnd(width)}  ${d}`);
  lines.push("", `Permissions: ${entry.permissions.join(", ") || "none"}`);
  return lines.join("\n") + "\n";
}

/** Every Deno permission name that scoping may revoke. */
const REVOCABLE: Deno.PermissionName[] = ["read", "write", "run", "net", "env", "sys", "ffi"];

/**
 * Revoke every permission the subcommand does not declare, so that a read-only command cannot write, spawn or open
 * sockets even when the binary was granted more.
 */
export function scopePermissions(keep: readonly Permission[]): void {
  const keepSet = new Set<string>(keep);
  for (const name of REVOCABLE) {
    if (keepSet.has(name)) continue;
    Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
  }
}

/** Deno `--allow-*` flags for a permission set (used by `compile`, the bundle check and black-box tests). */
export function denoFlagsFor(perms: readonly Permission[], opts: { netHost?: string } = {}): string[] {
  return perms.map((p) => p === "net" ? `--allow-net=${opts.netHost ?? "127.0.0.1"}` : `--allow-${p}`);
}

let interruptSeen = false;

/**
 * Whether a SIGINT ended an {@link untilInterrupted} wait in this process: main.ts then exits 130 (docs/exit_codes.md)
 * where the command itself returned 0.
 */
export function interruptedBySignal(): boolean {
  return interruptSeen;
}

/**
 * Run a following command until it ends or the user presses Ctrl-C: SIGINT aborts the given signal (so followers
 * unsubscribe cleanly) instead of killing the process mid-write, and marks the process interrupted (exit 130).
 */
export async function untilInterrupted<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const stop = () => {
    interruptSeen = true;
    ac.abort();
  };
  try {
    Deno.addSignalListener("SIGINT", stop);
  } catch { /* no signal support (e.g. permissions) */ }
  try {
    return await fn(ac.signal);
  } finally {
    try {
      Deno.removeSignalListener("SIGINT", stop);
    } catch { /* none installed */ }
  }
}
