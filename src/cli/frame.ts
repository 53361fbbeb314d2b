/**
 * The command frame: typed flag specs, help text, the command context, and permission scoping. Every subcommand is
 * a {@link CommandSpec} in its own module under src/cli/; src/cli/registry.ts lists them with their permissions.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../errors.ts";

/** A Deno permission a subcommand may keep (cli.md §6). */
export type Permission = "read" | "write" | "run" | "net" | "env" | "sys";

/** One flag of a subcommand. */
export interface FlagSpec {
  type: "boolean" | "string";
  short?: string;
  multiple?: boolean;
  /** Shown in help, e.g. `N` or `MODE`. */
  value?: string;
  description: string;
}

/** Parsed flags: booleans, strings, or string lists for `multiple`. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** A writable text stream. */
export interface TextOut {
  write(text: string): void;
  /** Whether this stream is a terminal. */
  readonly isTerminal: boolean;
}

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

/** Flags every command accepts (cli.md §1). */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  help: { type: "boolean", short: "h", description: "show help for this command" },
  json: { type: "boolean", description: "machine-readable output on stdout" },
  color: { type: "string", value: "auto|always|never", description: "colour on stdout (default auto)" },
  verbose: { type: "boolean", description: "add the cause chain to errors" },
};

/** Parse argv for one command; unknown flags and bad values are usage errors (exit 2). */
export function parseCommandArgs(
  spec: CommandSpec,
  argv: string[],
): { flags: FlagValues; positionals: string[] } {
  const all = { ...GLOBAL_FLAGS, ...spec.flags };
  const options: Record<string, { type: "boolean" | "string"; short?: string; multiple?: boolean }> = {};
  for (const [name, f] of Object.entries(all)) {
    options[name] = { type: f.type, ...(f.short ? { short: f.short } : {}), ...(f.multiple ? { multiple: true } : {}) };
  }
  // Everything after `--` is positional (steer text, ids).
  const dd = argv.indexOf("--");
  const head = dd >= 0 ? argv.slice(0, dd) : argv;
  const tail = dd >= 0 ? argv.slice(dd + 1) : [];
  try {
    const parsed = parseArgs({ args: head, options, allowPositionals: true, strict: true });
    const flags = parsed.values as FlagValues;
    const color = flags.color;
    if (color !== undefined && color !== "auto" && color !== "always" && color !== "never") {
      throw new UsageError("invalid_value", `--color does not take "${color}"; allowed: always, auto, never`);
    }
    return { flags, positionals: [...parsed.positionals, ...tail] };
  } catch (e) {
    if (e instanceof UsageError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    const code = /Unknown option/i.test(msg) ? "unknown_flag" : "invalid_value";
    throw new UsageError(code, msg.replace(/\. To specify a positional argument.*$/s, ""));
  }
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

/** A {@link TextOut} over a Deno stream, written synchronously so output order is exact. */
export function denoOut(stream: typeof Deno.stdout | typeof Deno.stderr): TextOut {
  const enc = new TextEncoder();
  return {
    write(text: string) {
      const bytes = enc.encode(text);
      let off = 0;
      while (off < bytes.length) {
        try {
          off += stream.writeSync(bytes.subarray(off));
        } catch (e) {
          if (e instanceof Deno.errors.BrokenPipe) return;
          throw e;
        }
      }
    },
    isTerminal: stream.isTerminal(),
  };
}
