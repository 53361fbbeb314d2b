/** `control log [TARGET] [--follow] [--all-runs] [--json]` (docs/reference/control-plane.md §13): the control audit log. */
import { type CommandContext, type CommandSpec, untilInterrupted } from "../frame.ts";
import { ControlError, followLog, log, type LogEntry } from "../../control/mod.ts";
import type { Color, Paint } from "../../render/mod.ts";
import { escapeControl } from "../../util/escape.ts";
import { controlTarget, paintFor, runRef, TARGET_FLAGS } from "./_common.ts";

const OUTCOME_COLOR: Record<string, Color> = { applied: "green", rejected: "red", accepted: "yellow", received: "dim" };

/** The params shown for an entry: amendment bookkeeping (`persisted`, `amendment_id`) is left out. */
function shownParams(e: LogEntry): Record<string, unknown> {
  if (e.command !== "amend" && e.command !== "relax") return e.params;
  const { persisted: _p, amendment_id: _a, ...rest } = e.params;
  return rest;
}

/** One human line of a log entry. */
export function logLine(e: LogEntry, paint: Paint): string {
  const outcome = paint(OUTCOME_COLOR[e.outcome] ?? "dim", e.outcome.padEnd(8));
  const where = e.prompt_id !== null ? ` on ${e.prompt_id}${e.attempt !== null ? `/${e.attempt}` : ""}` : "";
  const reason = e.reason !== null ? ` — ${escapeControl(e.reason)}` : "";
  // Everything but the outcome's colour is escaped: a request's fields never reach the terminal raw.
  const body = escapeControl(`${e.command} ${JSON.stringify(shownParams(e))}  by ${e.author}`);
  return `${escapeControl(e.at)}  ${outcome}  ${body}${escapeControl(where)}${reason}`;
}

/** The command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--follow] [--all-runs] [--json]",
  description: "The control audit log of the current run: every request's outcome, refusals included.",
  flags: {
    ...TARGET_FLAGS,
    follow: { type: "boolean", description: "keep printing new entries until the run ends" },
    "all-runs": { type: "boolean", description: "include entries of earlier runs of this store root" },
  },
  async run(ctx: CommandContext): Promise<number> {
    const target = await controlTarget(ctx, { idsFollow: false });
    const allRuns = ctx.flags["all-runs"] === true;
    const paint = paintFor(ctx);
    const print = (e: LogEntry) => ctx.stdout.write((ctx.json ? JSON.stringify(e) : logLine(e, paint)) + "\n");
    const ref = await runRef(target).catch(async (e) => {
      // Before any run, a store root may already hold refusals (a refused workspace import-state): show those.
      if (!(e instanceof ControlError) || e.code !== "no_run" || ctx.flags.follow === true) throw e;
      const runLess = await log({ storeRoot: target.storeRoot, runId: "" }, { allRuns: true });
      if (runLess.length === 0) throw e;
      return runLess;
    });
    if (Array.isArray(ref)) {
      for (const e of ref) print(e);
      return 0;
    }
    if (ctx.flags.follow !== true) {
      for (const e of await log(ref, { allRuns })) print(e);
      return 0;
    }
    await untilInterrupted(async (signal) => {
      for await (const e of followLog(ref, { allRuns, signal })) print(e);
    });
    return 0;
  },
};
