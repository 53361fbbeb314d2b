/**
 * `status --summary [--json]` (docs/run-summary.md): the run-summary document of the target's current run, read from
 * its records (run record, state.json) — the same document the end of `run` printed.
 */
import type { CommandContext } from "./frame.ts";
import type { ResolvedTarget } from "./target.ts";
import { UsageError } from "../errors.ts";
import { loadPacket } from "../packet/load.ts";
import { readRunSummaryStream, writeSummaryJson } from "../run/summary.ts";
import { writeSummaryTable } from "../render/summary_table.ts";

/**
 * Print the summary of the target's current run, prompt by prompt (the document is never held whole); a store without
 * a run prints a line saying so (exit 0).
 */
export async function printRunSummary(ctx: CommandContext, t: ResolvedTarget): Promise<number> {
  if (ctx.flags.watch === true) throw new UsageError("conflicting_flags", "--summary conflicts with --watch");
  const packet = await loadPacket(t.packetDir);
  const summary = await readRunSummaryStream(t.storeRoot, packet);
  if (summary === null) {
    ctx.stdout.write(ctx.json ? "null\n" : `No run recorded for ${t.label} yet.\n`);
    return 0;
  }
  const write = (text: string) => ctx.stdout.write(text);
  if (ctx.json) writeSummaryJson(summary, write);
  else writeSummaryTable(summary, ctx.color, write);
  return 0;
}
