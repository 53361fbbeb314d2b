/**
 * `control amend [TARGET] ID (--add-file PATH | --add-command CMD | --add-path PATH)… --reason TEXT [--persist]
 * [--author A] [--json]` (docs/reference/control-plane.md §13): add requirements to a prompt's contract.
 */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { amend } from "../../control/mod.ts";
import type { AmendmentRecord } from "../../contract/mod.ts";
import { AUTHOR_FLAG, controlTarget, list, paintFor, printJson, shellWords, str, TARGET_FLAGS } from "./_common.ts";
import { PHASE_COLOR } from "./contract.ts";

/** The dim note after an amendment. */
export function amendNote(r: AmendmentRecord): string {
  return r.persisted
    ? `written back to ${r.prompt_file}; commit it`
    : "run-local: recorded in the store root only; the prompt file is untouched";
}

/** `--add-command` value → a structured `commands` entry. */
function commandEntry(text: string): { exec: string; args: string[]; timeout_ms: number } {
  let words: string[];
  try {
    words = shellWords(text);
  } catch (e) {
    throw new UsageError("invalid_value", `--add-command "${text}": ${(e as Error).message}`);
  }
  const [exec, ...args] = words;
  if (!exec) throw new UsageError("invalid_value", "--add-command needs a command");
  return { exec, args, timeout_ms: 600000 };
}

/** The command. */
export const spec: CommandSpec = {
  usage:
    "[TARGET] ID (--add-file PATH | --add-command CMD | --add-path PATH)… --reason TEXT [--persist] [--author A] [--json]",
  description:
    "Add requirements to a prompt's contract. Run-local by default (recorded in the store root); --persist writes " +
    "the prompt file's verify block.",
  flags: {
    ...TARGET_FLAGS,
    ...AUTHOR_FLAG,
    "add-file": { type: "string", multiple: true, value: "PATH", description: "require a file (files_exist)" },
    "add-command": {
      type: "string",
      multiple: true,
      value: "CMD",
      description: "require a command to pass (commands)",
    },
    "add-path": {
      type: "string",
      multiple: true,
      value: "PATH",
      description: "allow a changed path (changed_paths_only)",
    },
    reason: { type: "string", value: "TEXT", description: "why (required)" },
    persist: { type: "boolean", description: "write the change back into the prompt file" },
  },
  async run(ctx: CommandContext): Promise<number> {
    const target = await controlTarget(ctx);
    const id = target.rest[0];
    if (id === undefined) throw new UsageError("missing_argument", "no prompt id given");
    // A missing reason is refused by the API (`reason_required`), which records the refusal in the audit log.
    const reason = str(ctx, "reason") ?? "";
    const groups: [string, unknown[]][] = [
      ["files_exist", list(ctx, "add-file")],
      ["changed_paths_only", list(ctx, "add-path")],
      ["commands", list(ctx, "add-command").map(commandEntry)],
    ];
    const present = groups.filter(([, entries]) => entries.length > 0);
    // Nothing to add: the API reports it in the docs/reference/control-plane.md §9.2 order (an unknown prompt first, then `no_entries`).
    if (present.length === 0) present.push(["files_exist", []]);
    const author = str(ctx, "author");
    const records: AmendmentRecord[] = [];
    for (const [clause, entries] of present) {
      records.push(
        await amend({ packetDir: target.packetDir, storeRoot: target.storeRoot }, id, {
          clause,
          entries,
          reason,
          persist: ctx.flags.persist === true,
          say: (line) => ctx.stderr.write(line + "\n"),
          ...(author !== undefined ? { author } : {}),
        }),
      );
    }
    if (ctx.json) {
      printJson(ctx, records.length === 1 ? records[0] : records);
      return 0;
    }
    const paint = paintFor(ctx);
    for (const r of records) {
      ctx.stdout.write(
        `Amended ${r.prompt}: added ${r.clause} ${JSON.stringify(r.entries)} (${
          paint(PHASE_COLOR[r.phase] ?? "dim", r.phase)
        })\n`,
      );
    }
    ctx.stdout.write(paint("dim", amendNote(records[0]!)) + "\n");
    return 0;
  },
};
