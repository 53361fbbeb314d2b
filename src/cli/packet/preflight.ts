/** `prompt_runner packet preflight [TARGET] [--json]` (cli.md §3.9): readiness report; exit 1 when not runnable. */
import type { CommandContext, CommandSpec } from "../frame.ts";
import { resolveTarget } from "../target.ts";
import { TARGET_FLAGS } from "../selection_flags.ts";
import { loadPacket } from "../../packet/load.ts";
import { readinessReport, renderReadiness } from "../../packet/readiness.ts";
import { laneFor } from "../../lanes/mod.ts";
import type { ProviderName } from "../../packet/types.ts";
import { Exit } from "../../errors.ts";
import { runPermissionsFor } from "../../run/run_permissions.ts";

/** Shared body of `packet preflight` and `packet doctor`. */
export async function runReadiness(ctx: CommandContext, doctor: boolean): Promise<number> {
  const target = await resolveTarget(ctx.positionals, ctx.flags, { idsFollow: false });
  const packet = await loadPacket(target.packetDir);
  const report = await readinessReport(
    packet,
    { probe: (provider, options) => laneFor(provider as ProviderName).probe(options) },
    { doctor },
  );
  report.permissions = { run: (await runPermissionsFor(packet, packet.prompts, target.storeRoot)).run };
  if (ctx.json) ctx.stdout.write(JSON.stringify(report) + "\n");
  else ctx.stdout.write(renderReadiness(report, doctor ? "Doctor" : "Preflight"));
  if (doctor || report.runtime_ready) return Exit.ok;
  ctx.stderr.write("error: preflight failed\n");
  for (const e of report.readiness_errors) ctx.stderr.write(`  ${e.message}\n`);
  return Exit.failed;
}

/** The `packet preflight` command. */
export const spec: CommandSpec = {
  usage: "[TARGET] [--json]",
  description: "Check that every repo exists, is a directory inside a git work tree, and that the lane's " +
    "executable is found. Exit 1 when the packet is not runnable.",
  flags: { ...TARGET_FLAGS },
  run: (ctx) => runReadiness(ctx, false),
};
