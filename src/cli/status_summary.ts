/**
 * `status --summary [--json]` (docs/run-summary.md): the run-summary document of the target's current run, read from
 * its records (run record, state.json) — the same document the end of `run` printed.
 */
import type { CommandContext } from "./frame.ts";
import type { ResolvedTarget } from "./target.ts";
import { UsageError } from "../errors.ts";
import { loadPacket } from "../packet/load.ts";
import { readRunSummary } from "../run/summary.ts";
import { summaryTable } from "../render/summary_table.ts";

/** Print the summary of the target's current run; a store without a run prints a line saying so (exit 0). */
export async function printRunSummary(ctx: CommandContext, t: ResolvedTarget): Promise<number> {
  if (ctx.flags.watch === true) throw new UsageError("conflicting_flags", "--summary conflicts with --watch");
  const packet = await loadPacket(t.packetDir);
  const summary = await readRunSummary(t.storeRoot, packet);
  if (summary === null) {
    ctx.stdout.write(ctx.json ? "null\n" : `No run recorded for ${t.label} yet.\n`);
    return 0;
  }
  ctx.stdout.write(ctx.json ? JSON.stringify(summary) + "\n" : summaryTable(summary, ctx.color));
  return 0;
}
