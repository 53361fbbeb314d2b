/**
 * `control relax [TARGET] ID --drop CLAUSE --reason TEXT --confirm [--persist] [--author A] [--json]`
 * (docs/reference/control-plane.md §13): remove a clause from a prompt's contract, on the record.
 */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { UsageError } from "../../errors.ts";
import { relax } from "../../control/mod.ts";
import { AUTHOR_FLAG, controlTarget, list, paintFor, printJson, str, TARGET_FLAGS } from "./_common.ts";
import { amendNote } from "./amend.ts";

function parseEntry(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] ID --drop CLAUSE --reason TEXT --confirm [--persist] [--author A] [--json]",
  description:
    "Remove (or weaken) a clause of a prompt's contract. Needs --confirm and a reason; the timing class relative " +
    "to the latest verification is recorded.",
  flags: {
    ...TARGET_FLAGS,
    ...AUTHOR_FLAG,
    drop: { type: "string", value: "CLAUSE", description: "remove this clause" },
    replace: { type: "string", value: "CLAUSE", description: "set this clause to the --entry values" },
    remove: { type: "string", value: "CLAUSE", description: "remove the --entry values from this clause" },
    entry: {
      type: "string",
      multiple: true,
      value: "X",
      description: "an entry for --replace/--remove (JSON or text)",
    },
    reason: { type: "string", value: "TEXT", description: "why (required)" },
    confirm: { type: "boolean", description: "confirm that the contract is being loosened (required)" },
    persist: { type: "boolean", description: "write the change back into the prompt file" },
  },
  async run(ctx: CommandContext): Promise<number> {
    const ops = (["drop", "replace", "remove"] as const).filter((o) => str(ctx, o) !== undefined);
    if (ops.length === 0) throw new UsageError("missing_argument", "nothing to relax (--drop CLAUSE)");
    if (ops.length > 1) throw new UsageError("conflicting_flags", `--${ops[0]} and --${ops[1]} cannot be combined`);
    const operation = ops[0]!;
    const clause = str(ctx, operation)!;
    const target = await controlTarget(ctx);
    const id = target.rest[0];
    if (id === undefined) throw new UsageError("missing_argument", "no prompt id given");
    const author = str(ctx, "author");
    const r = await relax({ packetDir: target.packetDir, storeRoot: target.storeRoot }, id, {
      clause,
      operation,
      entries: list(ctx, "entry").map(parseEntry),
      reason: str(ctx, "reason") ?? "",
      confirm: ctx.flags.confirm === true,
      persist: ctx.flags.persist === true,
      say: (line) => ctx.stderr.write(line + "\n"),
      ...(author !== undefined ? { author } : {}),
    });
    if (ctx.json) {
      printJson(ctx, r);
      return 0;
    }
    const paint = paintFor(ctx);
    const verb = operation === "drop" ? "dropped" : operation === "replace" ? "replaced" : "removed entries from";
    ctx.stdout.write(paint("yellow", `Relaxed ${r.prompt}: ${verb} ${r.clause} (${r.phase})`) + "\n");
    ctx.stdout.write(paint("dim", amendNote(r)) + "\n");
    return 0;
  },
};
